import MIME

/// Streams the message body through the canonicalizer into SHA-256, honouring `l=`
/// (RFC 6376 §3.4.5, §3.7).
struct BodyHashComputation {
    let hash: [UInt8]
    /// Length of the whole canonicalized body.
    let canonicalLength: Int
    let coversWholeBody: Bool

    init(message: Message, signature: DKIMSignature) {
        self.init(bytes: message.bytes, range: message.bodyRange, relaxed: signature.canonicalization.relaxedBody, limit: signature.bodyLength,
                  sha1: signature.algorithm.usesSHA1)
    }

    init(bytes: [UInt8], range: Range<Int>, relaxed: Bool, limit: Int?, sha1: Bool = false) {
        var canonicalizer = BodyCanonicalizer(relaxed: relaxed)
        canonicalizer.output.reserveCapacity(DKIMLimits.bodyChunkSize * 2 + 16)
        let digest = SHA256Digest(sha1: sha1)
        var total = 0
        func drain() {
            let produced = canonicalizer.output.count
            let room = limit.map { max(0, $0 - total) } ?? produced
            canonicalizer.output.withUnsafeBytes { digest.update(UnsafeRawBufferPointer(rebasing: $0[0..<min(room, produced)])) }
            canonicalizer.output.removeAll(keepingCapacity: true)
            total += produced
        }
        var start = range.lowerBound
        while start < range.upperBound {
            let end = min(start + DKIMLimits.bodyChunkSize, range.upperBound)
            canonicalizer.feed(bytes[start..<end])
            drain()
            start = end
        }
        canonicalizer.finish()
        drain()
        hash = digest.finish()
        canonicalLength = total
        coversWholeBody = limit.map { $0 >= total } ?? true
    }
}
