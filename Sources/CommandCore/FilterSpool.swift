import Glibc
import MIME
import Mailbox
import Output
import Pipeline

/// Where the filter keeps a message too large to hold (over ``Limits/wholeMessageBytes``): an
/// unlinked temporary file in `$TMPDIR` (or /tmp), so the analysis reads it in pieces and the
/// output is copied from it. The file disappears with the process, however it ends.
struct FilterSpool {
    let fd: Int32
    /// Bytes written so far.
    private(set) var size = 0
    /// errno of the last write that failed.
    private(set) var lastError: Int32 = 0

    /// A new spool holding `first`; nil when the file cannot be created or written.
    init?(holding first: [UInt8]) {
        guard let fd = TemporaryFile.create() else { return nil }
        self.fd = fd
        guard append(first) else {
            close(fd)
            return nil
        }
    }

    enum Fill {
        /// Standard input is at its end and all of it is in the spool.
        case complete
        /// The spool reached the limit and standard input goes on.
        case tooLarge
        /// Writing the spool failed; `pending` was read from standard input and is not in it.
        case writeFailed(pending: [UInt8], error: Int32)
        /// Reading standard input failed.
        case readFailed
    }

    /// Copies the rest of standard input into the spool, up to `limit` bytes in all.
    mutating func fill(limit: Int) -> Fill {
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            if size >= limit {
                // One byte more tells "exactly at the limit" from "over it".
                var probe: UInt8 = 0
                let n = read(STDIN_FILENO, &probe, 1)
                if n == 0 { return .complete }
                if n < 0 { if errno == EINTR { continue } else { return .readFailed } }
                return append([probe]) ? .tooLarge : .writeFailed(pending: [probe], error: lastError)
            }
            let want = min(chunk.count, limit - size)
            let n = chunk.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, want) }
            if n == 0 { return .complete }
            if n < 0 { if errno == EINTR { continue } else { return .readFailed } }
            let piece = Array(chunk[0..<n])
            guard append(piece) else { return .writeFailed(pending: piece, error: lastError) }
        }
    }

    /// Writes `range` of the spool to standard output.
    func copyOut(_ range: Range<Int>) -> Bool {
        forEachPiece(range) { Output.bytes($0) }
    }

    /// Hands the spool from `offset` to its end to `consume` in pieces.
    func forEachPiece(from offset: Int, _ consume: (UnsafeBufferPointer<UInt8>) -> Bool) -> Bool {
        forEachPiece(offset..<max(offset, size), consume)
    }

    /// Hands `range` of the spool to `consume` in pieces; false when reading fails or `consume`
    /// returns false.
    func forEachPiece(_ range: Range<Int>, _ consume: (UnsafeBufferPointer<UInt8>) -> Bool) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        var position = range.lowerBound
        while position < range.upperBound {
            let n = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, min($0.count, range.upperBound - position), off_t(position)) }
            if n < 0, errno == EINTR { continue }
            guard n > 0, chunk.withUnsafeBufferPointer({ consume(UnsafeBufferPointer(rebasing: $0[0..<n])) }) else { return false }
            position += n
        }
        return true
    }

    /// The forged fields of the spooled message: its header is scanned from `first` (the
    /// spool's first bytes) and, when it goes on beyond them, from the file, to its end
    /// however long it is. Nil when the file cannot be read.
    func forgedFields(first: [UInt8], authservID: String) -> ForgedFields? {
        var scanner = ForgedFieldScanner(authservID: authservID)
        first.withUnsafeBufferPointer { scanner.scan($0) }
        let completed = forEachPiece(from: first.count) { piece in
            scanner.scan(piece)
            return !scanner.isDone
        }
        // Stopped early only when the header ended; otherwise reading failed.
        guard completed || scanner.isDone else { return nil }
        scanner.finish()
        return scanner.result
    }

    mutating func append(_ bytes: [UInt8]) -> Bool {
        guard TemporaryFile.append(bytes, to: fd) else {
            // A partial write is undone: what follows is written at `size` again.
            lastError = errno
            _ = ftruncate(fd, off_t(size))
            _ = lseek(fd, off_t(size), SEEK_SET)
            return false
        }
        size += bytes.count
        return true
    }
}
