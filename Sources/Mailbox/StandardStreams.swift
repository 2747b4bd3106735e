import Glibc
import MIME

/// Standard input, read whole.
public enum StandardInput {
    /// Every byte until end of file; retries on EINTR. Throws when read(2) fails.
    public static func readAll() throws -> [UInt8] {
        try FileSystem.readAll(0, sizeHint: 0, path: "standard input")
    }

    /// One message from standard input, held in memory up to ``Limits/wholeMessageBytes``.
    /// A larger one is read in place when standard input is a file (`< message`), otherwise
    /// copied to a ``TemporaryFile`` as it is read; only when that cannot be written is it held.
    static func message() throws(MessageSourceError) -> RawMessage {
        var info = stat()
        if fstat(0, &info) == 0, info.st_mode & S_IFMT == S_IFREG, Int(info.st_size) > Limits.wholeMessageBytes,
            lseek(0, 0, SEEK_CUR) == 0
        {
            return RawMessage(file: MessageFile(.descriptor(0), size: Int(info.st_size)), origin: MessageOrigin())
        }
        let first = try FileSystem.readUpTo(0, Limits.wholeMessageBytes + 1, path: "standard input")
        guard first.count > Limits.wholeMessageBytes else { return RawMessage(bytes: first, origin: MessageOrigin()) }
        let rest = { () throws(MessageSourceError) -> [UInt8] in try FileSystem.readAll(0, sizeHint: 0, path: "standard input") }
        guard let spool = TemporaryFile.create() else { return RawMessage(bytes: first + (try rest()), origin: MessageOrigin()) }
        guard TemporaryFile.append(first, to: spool) else {
            close(spool)
            return RawMessage(bytes: first + (try rest()), origin: MessageOrigin())
        }
        var size = first.count
        while true {
            let piece = try FileSystem.readUpTo(0, 1 << 20, path: "standard input")
            if piece.isEmpty { break }
            guard TemporaryFile.append(piece, to: spool) else {
                // The spool filled up: what it holds and the rest, in memory after all.
                var held = try RawMessage(file: MessageFile(.descriptor(spool), size: size), origin: MessageOrigin()).whole().bytes
                close(spool)
                held += piece
                held += try rest()
                return RawMessage(bytes: held, origin: MessageOrigin())
            }
            size += piece.count
        }
        // The descriptor stays open for the rest of the run: the message is read from it.
        return RawMessage(file: MessageFile(.descriptor(spool), size: size), origin: MessageOrigin())
    }
}

/// An unlinked temporary file in `$TMPDIR` (or /tmp): gone when its descriptor is closed or
/// the process ends, however it ends.
public enum TemporaryFile {
    public static var directory: String {
        if let dir = getenv("TMPDIR"), dir.pointee != 0 { return String(cString: dir) }
        return "/tmp"
    }

    /// Writes every byte at the file's offset (looping on partial writes and EINTR); false
    /// when not all of them could be written (errno says why).
    public static func append(_ bytes: [UInt8], to fd: Int32) -> Bool {
        FileSystem.writeAll(fd, bytes) == bytes.count
    }

    /// A descriptor open for reading and writing, or nil (errno says why).
    public static func create() -> Int32? {
        var template = Array((directory + "/reservoir.XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { return nil }
        _ = template.withUnsafeBufferPointer { unlink($0.baseAddress!) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        return fd
    }
}

/// Standard output, written whole.
public enum StandardOutput {
    /// Writes every byte, looping on partial writes and EINTR; stops silently when the reader
    /// went away (EPIPE) or another error occurs.
    public static func write(_ bytes: [UInt8]) {
        FileSystem.writeAll(1, bytes)
    }
}
