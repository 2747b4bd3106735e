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
        let digest = SHA256Digest(sha1: sha1)
        var total = 0
        func drain() {
            let output = canonicalizer.output
            canonicalizer.output.removeAll(keepingCapacity: true)
            let room = limit.map { max(0, $0 - total) } ?? output.count
            digest.update(room >= output.count ? output : Array(output[0..<room]))
            total += output.count
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
