import Glibc
import MIME

/// Streams the message body through the canonicalizer into SHA-256, honouring `l=`
/// (RFC 6376 §3.4.5, §3.7).
struct BodyHashComputation {
    let hash: [UInt8]
    /// Length of the whole canonicalized body.
    let canonicalLength: Int
    let coversWholeBody: Bool

    init(bytes: [UInt8], range: Range<Int>, relaxed: Bool, limit: Int?, sha1: Bool = false) {
        var hasher = BodyHasher(relaxed: relaxed, limit: limit, sha1: sha1)
        bytes.withUnsafeBufferPointer { buffer in
            var start = range.lowerBound
            while start < range.upperBound {
                let end = min(start + DKIMLimits.bodyChunkSize, range.upperBound)
                hasher.feed(UnsafeBufferPointer(rebasing: buffer[start..<end]))
                start = end
            }
        }
        self = hasher.finish()
    }

    /// The body read from `descriptor` (positional reads, so the file offset is left alone);
    /// nil when reading fails or the file is shorter than `range`.
    init?(descriptor: Int32, range: Range<Int>, relaxed: Bool, limit: Int?, sha1: Bool = false) {
        var hasher = BodyHasher(relaxed: relaxed, limit: limit, sha1: sha1)
        var chunk = [UInt8](repeating: 0, count: DKIMLimits.bodyChunkSize)
        var offset = range.lowerBound
        let complete = chunk.withUnsafeMutableBufferPointer { buffer -> Bool in
            while offset < range.upperBound {
                let n = pread(descriptor, buffer.baseAddress, min(buffer.count, range.upperBound - offset), off_t(offset))
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { return false }
                hasher.feed(UnsafeBufferPointer(rebasing: buffer[0..<n]))
                offset += n
            }
            return true
        }
        guard complete else { return nil }
        self = hasher.finish()
    }

    fileprivate init(hash: [UInt8], canonicalLength: Int, coversWholeBody: Bool) {
        self.hash = hash
        self.canonicalLength = canonicalLength
        self.coversWholeBody = coversWholeBody
    }
}

/// The body hash fed in pieces: canonicalize, count, and digest up to `l=`.
struct BodyHasher {
    private var canonicalizer: BodyCanonicalizer
    private let digest: SHA256Digest
    private let limit: Int?
    private var total = 0

    init(relaxed: Bool, limit: Int?, sha1: Bool) {
        canonicalizer = BodyCanonicalizer(relaxed: relaxed)
        canonicalizer.produced.reserve(DKIMLimits.bodyChunkSize * 2 + 16)
        digest = SHA256Digest(sha1: sha1)
        self.limit = limit
    }

    mutating func feed(_ bytes: UnsafeBufferPointer<UInt8>) {
        canonicalizer.feed(buffer: bytes)
        drain()
    }

    consuming func finish() -> BodyHashComputation {
        canonicalizer.finish()
        drain()
        return BodyHashComputation(hash: digest.finish(), canonicalLength: total, coversWholeBody: limit.map { $0 >= total } ?? true)
    }

    private mutating func drain() {
        let output = canonicalizer.produced
        let produced = output.count
        let room = limit.map { max(0, $0 - total) } ?? produced
        digest.update(UnsafeRawBufferPointer(start: output.base, count: min(room, produced)))
        output.removeAll()
        total += produced
    }
}
