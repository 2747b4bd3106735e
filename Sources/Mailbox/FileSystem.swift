import Glibc

/// The few POSIX calls the sources need: reading whole files and listing directories.
package enum FileSystem {
    /// Bytes requested per read(2) call when the size is unknown (pipes).
    static let readChunk = 1 << 16

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
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }

    /// The whole content of a file, read with open(2)/read(2).
    static func readFile(_ path: String) throws(MessageSourceError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            throw MessageSourceError(code == ENOENT ? .notFound : .unreadable, path: path, errorText(code))
        }
        defer { close(fd) }
        var info = stat()
        let known = fstat(fd, &info) == 0
        if known, info.st_mode & S_IFMT == S_IFDIR {
            throw MessageSourceError(.unreadable, path: path, "is a directory")
        }
        let size = known && info.st_mode & S_IFMT == S_IFREG ? Int(info.st_size) : 0
        return try readAll(fd, sizeHint: size, path: path)
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
            if n > 0 { filled += n; continue }
            if n < 0, errno == EINTR { continue }
            break
        }
        return filled == prefix.count && buffer == prefix
    }

    /// Reads until end of file, retrying on EINTR.
    static func readAll(_ fd: Int32, sizeHint: Int, path: String) throws(MessageSourceError) -> [UInt8] {
        // One byte more than the size, so the read that sees end of file needs no growth; the
        // storage is not zeroed first, the reads fill it.
        var request = max(sizeHint + 1, readChunk)
        var result = try readUpTo(fd, request, path: path)
        var last = result.count
        while last == request {
            // The input is larger than its size said (a pipe, a growing file): read on.
            request = max(readChunk, result.count / 2)
            let more = try readUpTo(fd, request, path: path)
            last = more.count
            result += more
        }
        return result
    }

    /// Up to `limit` bytes, fewer only at the end of the input; read into storage that is not
    /// zeroed first.
    package static func readUpTo(_ fd: Int32, _ limit: Int, path: String) throws(MessageSourceError) -> [UInt8] {
        var failure: Int32 = 0
        let bytes = [UInt8](unsafeUninitializedCapacity: limit) { buffer, initialized in
            var filled = 0
            while filled < limit {
                let n = read(fd, buffer.baseAddress! + filled, limit - filled)
                if n > 0 { filled += n; continue }
                if n == 0 { break }
                if errno == EINTR { continue }
                failure = errno
                break
            }
            initialized = filled
        }
        if failure != 0 { throw MessageSourceError(.unreadable, path: path, errorText(failure)) }
        return bytes
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
                if n > 0 { written += n; continue }
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
