import Glibc

/// Standard input, read whole.
public enum StandardInput {
    /// Every byte until end of file; retries on EINTR. Throws when read(2) fails.
    public static func readAll() throws -> [UInt8] {
        try FileSystem.readAll(0, sizeHint: 0, path: "standard input")
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
