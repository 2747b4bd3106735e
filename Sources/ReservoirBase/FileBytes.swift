import Glibc

/// Whole files and file descriptors read with open(2) and read(2): no Foundation in library
/// targets. Reads retry on EINTR; storage is sized from fstat(2) and not zeroed first.
package enum FileBytes {
    /// Bytes requested per read(2) call when the size is unknown (pipes).
    package static let readChunk = 1 << 16

    /// The content of the file at `path`, at most `limit` bytes (the rest is not read).
    /// Throws with `ENOENT` and the like when it cannot be opened, `EISDIR` for a directory.
    package static func read(_ path: String, limit: Int = .max) throws(FileReadError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FileReadError(code: errno) }
        defer { close(fd) }
        var info = stat()
        let known = fstat(fd, &info) == 0
        if known, info.st_mode & S_IFMT == S_IFDIR { throw FileReadError(code: EISDIR) }
        let size = known && info.st_mode & S_IFMT == S_IFREG ? Int(info.st_size) : 0
        return try readAll(fd, sizeHint: size, limit: limit)
    }

    /// Reads until end of file or `limit` bytes. `sizeHint` (the file's size, or 0) sizes the
    /// first read.
    package static func readAll(_ fd: Int32, sizeHint: Int, limit: Int = .max) throws(FileReadError) -> [UInt8] {
        // One byte more than the size, so the read that sees end of file needs no growth.
        var request = min(max(sizeHint + 1, readChunk), limit)
        var result = try readUpTo(fd, request)
        var last = result.count
        while last == request, result.count < limit {
            // The input is larger than its size said (a pipe, a growing file): read on.
            request = min(max(readChunk, result.count / 2), limit - result.count)
            let more = try readUpTo(fd, request)
            last = more.count
            result += more
        }
        return result
    }

    /// Up to `limit` bytes, fewer only at the end of the input.
    package static func readUpTo(_ fd: Int32, _ limit: Int) throws(FileReadError) -> [UInt8] {
        guard limit > 0 else { return [] }
        var failure: Int32 = 0
        let bytes = [UInt8](unsafeUninitializedCapacity: limit) { buffer, initialized in
            guard let base = buffer.baseAddress else { return }
            var filled = 0
            while filled < limit {
                let n = Glibc.read(fd, base + filled, limit - filled)
                if n > 0 {
                    filled += n
                    continue
                }
                if n == 0 { break }
                if errno == EINTR { continue }
                failure = errno
                break
            }
            initialized = filled
        }
        if failure != 0 { throw FileReadError(code: failure) }
        return bytes
    }
}

/// A read that failed, with the `errno` value the system gave.
package struct FileReadError: Error, Equatable, CustomStringConvertible {
    /// The `errno` value (`ENOENT`, `EACCES`, `EISDIR`, …).
    package let code: Int32

    package init(code: Int32) {
        self.code = code
    }

    /// The system's words for the code (strerror(3)).
    package var description: String { Self.text(code) }

    /// strerror(3) of any `errno` value.
    package static func text(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }
}
