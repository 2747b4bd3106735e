import Glibc

/// Files that hold secrets (a netrc file, a token): opened, then checked on the open
/// descriptor, so the file read is the file checked — a regular file that neither its group nor
/// others may read or write, as ftp(1) and ssh demand of theirs.
package enum OwnerOnlyFile {
    package enum Refusal: Error, Equatable {
        /// It could not be opened or examined: errno's text.
        case unreadable(String)
        /// Group or others may access it: its permission bits (e.g. 0o644).
        case tooOpen(mode: UInt32)
        case notRegularFile
    }

    /// The open descriptor (the caller closes it) and the file's size.
    package static func open(_ path: String) -> Result<(fd: Int32, size: Int), Refusal> {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else { return .failure(.unreadable(String(cString: strerror(errno)))) }
        var status = stat()
        let refusal: Refusal?
        if fstat(fd, &status) != 0 {
            refusal = .unreadable(String(cString: strerror(errno)))
        } else if status.st_mode & S_IFMT != S_IFREG {
            refusal = .notRegularFile
        } else if UInt32(status.st_mode) & 0o077 != 0 {
            refusal = .tooOpen(mode: UInt32(status.st_mode) & 0o7777)
        } else {
            refusal = nil
        }
        if let refusal {
            close(fd)
            return .failure(refusal)
        }
        return .success((fd, Int(status.st_size)))
    }
}
