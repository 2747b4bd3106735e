import Glibc
import ReservoirBase

/// A vdir: a directory of one `.ics` file per event, the storage vdirsyncer and khal read
/// (vdirsyncer's "vdir" storage format). Files are written to a temporary name in the same
/// directory and then linked or renamed into place, so a reader never sees half a file.
///
/// A file's entity tag is its inode and modification time, as vdirsyncer's filesystem
/// storage tags files: a replacement by someone else (vdirsyncer, khal, an editor) changes it.
public final class VdirCollection: CalendarCollection {
    public let path: String
    /// Largest file read back (a calendar object of one event is a few kilobytes).
    public static let maximumObjectBytes = 1 << 20

    /// Creates the directory (0700) when it is missing.
    public init(path: String) throws(DeliveryError) {
        self.path = path
        var current = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            current += "/" + component
            if mkdir(current, 0o700) != 0, errno != EEXIST {
                throw DeliveryError("cannot create the vdir \(current): \(String(cString: strerror(errno)))")
            }
        }
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw DeliveryError("the vdir \(path) is not a directory")
        }
    }

    public func put(_ name: String, body: String, condition: WriteCondition, deadline: Deadline) -> CollectionAnswer {
        guard let file = fileName(name) else { return .failed(DeliveryFailure(.refused, "\(name) is not a file name")) }
        let temporary: String
        switch writeTemporary(body) {
        case .success(let name): temporary = name
        case .failure(let failure): return .failed(failure)
        }
        defer { unlink(temporary) }
        switch condition {
        case .create:
            // link(2) fails with EEXIST instead of replacing: an atomic If-None-Match: *.
            if link(temporary, file) != 0 {
                return errno == EEXIST ? .preconditionFailed : .failed(Self.failure("cannot write \(file)"))
            }
        case .replace(let etag):
            guard let current = Self.tag(file) else { return errno == ENOENT ? .notFound : .failed(Self.failure("cannot read \(file)")) }
            guard current == etag else { return .preconditionFailed }
            if rename(temporary, file) != 0 { return .failed(Self.failure("cannot write \(file)")) }
        }
        syncDirectory()
        return .done(etag: Self.tag(file), body: nil)
    }

    public func get(_ name: String, deadline: Deadline) -> CollectionAnswer {
        guard let file = fileName(name) else { return .notFound }
        do {
            let bytes = try FileBytes.read(file, limit: Self.maximumObjectBytes)
            return .done(etag: Self.tag(file), body: String(decoding: bytes, as: UTF8.self))
        } catch {
            return error.code == ENOENT ? .notFound : .failed(DeliveryFailure(.localFile, "cannot read \(file): \(error)"))
        }
    }

    public func delete(_ name: String, etag: String?, deadline: Deadline) -> CollectionAnswer {
        guard let file = fileName(name) else { return .notFound }
        guard let current = Self.tag(file) else { return errno == ENOENT ? .notFound : .failed(Self.failure("cannot read \(file)")) }
        if let etag, etag != current { return .preconditionFailed }
        if unlink(file) != 0 { return errno == ENOENT ? .notFound : .failed(Self.failure("cannot remove \(file)")) }
        syncDirectory()
        return .done(etag: nil, body: nil)
    }

    /// The file for resource `name`; nil for a name that would leave the directory or hide
    /// the file (a slash, a leading dot).
    private func fileName(_ name: String) -> String? {
        guard !name.isEmpty, !name.contains("/"), !name.hasPrefix("."), !name.utf8.contains(0) else { return nil }
        return path + "/" + name
    }

    private enum Written {
        case success(String)
        case failure(DeliveryFailure)
    }

    /// `body` in a new hidden file of the directory, flushed to disk.
    private func writeTemporary(_ body: String) -> Written {
        var template = Array((path + "/.reservoir-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { return .failure(Self.failure("cannot create a file in \(path)")) }
        let name = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        fchmod(fd, 0o600)
        let bytes = Array(body.utf8)
        var offset = 0
        var ok = true
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, bytes.count - offset) }
            if n > 0 {
                offset += n
            } else if n < 0, errno == EINTR {
                continue
            } else {
                ok = false
                break
            }
        }
        if ok, fsync(fd) != 0 { ok = false }
        let failure = ok ? nil : Self.failure("cannot write \(name)")
        close(fd)
        if let failure {
            unlink(name)
            return .failure(failure)
        }
        return .success(name)
    }

    /// Makes the new name durable (a rename is in the directory, not the file).
    private func syncDirectory() {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }

    /// `inode-mtime` with nanoseconds; nil when the file cannot be examined (errno says why).
    static func tag(_ file: String) -> String? {
        var info = stat()
        guard stat(file, &info) == 0 else { return nil }
        return "\"\(info.st_ino)-\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)\""
    }

    private static func failure(_ what: String) -> DeliveryFailure {
        DeliveryFailure(.localFile, "\(what): \(String(cString: strerror(errno)))")
    }
}
