import Glibc

/// Reads a whole small text file with POSIX calls (no Foundation in library targets).
enum FileContents {
    /// Largest keys file read.
    static let maxBytes = 16 * 1024 * 1024

    static func read(_ path: String) throws -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw KeysFile.Error.unreadable(path: path, errno: errno) }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while bytes.count < maxBytes {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw KeysFile.Error.unreadable(path: path, errno: errno)
            }
            if n == 0 { break }
            bytes += chunk[0..<n]
        }
        return bytes
    }
}
