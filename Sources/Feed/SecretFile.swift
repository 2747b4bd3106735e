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
        switch OwnerOnlyFile.open(path) {
        case .failure(.unreadable(let reason)): return .unreadable(reason)
        case .failure(.tooOpen(let mode)): return .tooOpen(mode: mode & 0o777)
        case .failure(.notRegularFile): return .notASecretFile
        case .success(let file):
            defer { close(file.fd) }
            guard file.size <= maximumBytes else { return .notASecretFile }
            do {
                return .read(try FileBytes.readUpTo(file.fd, maximumBytes + 1))
            } catch {
                return .unreadable(error.description)
            }
        }
    }
}
