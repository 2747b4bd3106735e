import Glibc
import ReservoirBase

/// What reading a file that holds a secret gave.
public enum SecretFileOutcome: Sendable, Equatable {
    case read([UInt8])
    /// The file could not be opened or read; errno's text.
    case unreadable(String)
    /// Group or others may access it: the permission bits found (e.g. 0o644).
    case tooOpen(mode: UInt32)
    /// Not a regular file, or larger than ``SecretFile/maximumBytes``.
    case notASecretFile
}

/// Files holding a token or passwords (`--token-file`, `--netrc`): read only when no one but
/// the owner may read or write them, as ssh does with its keys and curl documents for `.netrc`.
public enum SecretFile {
    /// Largest secret file read.
    public static let maximumBytes = 64 * 1024

    /// The file's bytes when it is a regular file of mode 0600 or stricter (no group or other
    /// bits). The mode is checked on the open descriptor, so the file read is the file checked.
    public static func read(_ path: String) -> SecretFileOutcome {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else { return .unreadable(String(cString: strerror(errno))) }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { return .unreadable(String(cString: strerror(errno))) }
        guard status.st_mode & S_IFMT == S_IFREG, Int(status.st_size) <= maximumBytes else { return .notASecretFile }
        let permissions = UInt32(status.st_mode) & 0o777
        guard permissions & 0o077 == 0 else { return .tooOpen(mode: permissions) }
        do {
            return .read(try FileBytes.readUpTo(fd, maximumBytes + 1))
        } catch {
            return .unreadable(error.description)
        }
    }
}
