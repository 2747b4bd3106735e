import Glibc

/// Reads a whole small text file with POSIX calls (no Foundation in library targets).
enum FileContents {
    /// Largest keys file read.
    static let maxBytes = 16 * 1024 * 1024

    static func read(_ path: String) throws -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw KeysFile.Error.unreadable(path: path, errno: errno) }
        defer { close(fd) }
        // Read straight into the result, sized from fstat(2) (one more byte to see the end);
        // a pipe or a file that grows is read on in 64 KB steps, up to `maxBytes`.
        var status = stat()
        let expected = fstat(fd, &status) == 0 && status.st_mode & S_IFMT == S_IFREG ? Int(status.st_size) : 0
        var bytes = [UInt8](repeating: 0, count: min(max(expected + 1, 4096), maxBytes))
        var count = 0
        while count < maxBytes {
            if count == bytes.count { bytes += repeatElement(0, count: min(65_536, maxBytes - count)) }
            let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + count, $0.count - count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw KeysFile.Error.unreadable(path: path, errno: errno)
            }
            if n == 0 { break }
            count += n
        }
        bytes.removeLast(bytes.count - count)
        return bytes
    }
}
