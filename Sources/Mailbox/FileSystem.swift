import Glibc
import ReservoirBase

/// The few POSIX calls the sources need: reading whole files and listing directories.
package enum FileSystem {
    enum Kind { case file, directory, other, missing }

    static func kind(_ path: String) -> Kind {
        var info = stat()
        guard stat(path, &info) == 0 else { return .missing }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .file
        case S_IFDIR: return .directory
        default: return .other
        }
    }

    static func errorText(_ code: Int32) -> String {
        FileReadError.text(code)
    }

    /// The whole content of a file, read with open(2)/read(2).
    static func readFile(_ path: String) throws(MessageSourceError) -> [UInt8] {
        do {
            return try FileBytes.read(path)
        } catch {
            switch error.code {
            case ENOENT: throw MessageSourceError(.notFound, path: path, errorText(error.code))
            case EISDIR: throw MessageSourceError(.unreadable, path: path, "is a directory")
            default: throw MessageSourceError(.unreadable, path: path, errorText(error.code))
            }
        }
    }

    /// The first `limit` bytes of a file (fewer when it is shorter); nil when it cannot be read.
    static func prefix(_ path: String, _ limit: Int) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return try? readUpTo(fd, limit, path: path)
    }

    /// Whether the file begins with these bytes (reads only as many).
    static func fileStarts(_ path: String, with prefix: [UInt8]) -> Bool {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: prefix.count)
        var filled = 0
        while filled < prefix.count {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress.map { $0 + filled }, prefix.count - filled) }
            if n > 0 {
                filled += n
                continue
            }
            if n < 0, errno == EINTR { continue }
            break
        }
        return filled == prefix.count && buffer == prefix
    }

    /// Reads until end of file, retrying on EINTR.
    static func readAll(_ fd: Int32, sizeHint: Int, path: String) throws(MessageSourceError) -> [UInt8] {
        do {
            return try FileBytes.readAll(fd, sizeHint: sizeHint)
        } catch {
            throw MessageSourceError(.unreadable, path: path, errorText(error.code))
        }
    }

    /// Up to `limit` bytes, fewer only at the end of the input; read into storage that is not
    /// zeroed first.
    package static func readUpTo(_ fd: Int32, _ limit: Int, path: String) throws(MessageSourceError) -> [UInt8] {
        do {
            return try FileBytes.readUpTo(fd, limit)
        } catch {
            throw MessageSourceError(.unreadable, path: path, errorText(error.code))
        }
    }

    /// Writes every byte to `fd`, looping on partial writes and EINTR; gives up silently on any
    /// other error (a closed pipe must not kill a mail filter). Returns the bytes written.
    @discardableResult
    static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Int {
        bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return 0 }
            var written = 0
            while written < buffer.count {
                let n = write(fd, base + written, buffer.count - written)
                if n > 0 {
                    written += n
                    continue
                }
                if n < 0, errno == EINTR { continue }
                break
            }
            return written
        }
    }

    /// The names in a directory except "." and "..", sorted, each with its kind when readdir(3) knows it (d_type;
    /// nil when the file system does not say, or for a symbolic link, which the caller stats).
    /// A Maildir scan then needs no stat(2) per file to tell files from directories.
    static func entries(_ path: String) throws(MessageSourceError) -> [(name: String, kind: Kind?)] {
        guard let dir = opendir(path) else {
            let code = errno
            throw MessageSourceError(code == ENOENT ? .notFound : .unreadable, path: path, errorText(code))
        }
        defer { closedir(dir) }
        var entries: [(name: String, kind: Kind?)] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) {
                String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
            }
            if name == "." || name == ".." { continue }
            let kind: Kind?
            switch Int32(entry.pointee.d_type) {
            case Int32(DT_REG): kind = .file
            case Int32(DT_DIR): kind = .directory
            case Int32(DT_UNKNOWN), Int32(DT_LNK): kind = nil
            default: kind = .other
            }
            entries.append((name, kind))
        }
        // String's < compares bytes for the usual (ASCII, NFC) names; the order only has to be
        // the same on every run.
        entries.sort { $0.name < $1.name }
        return entries
    }
}
