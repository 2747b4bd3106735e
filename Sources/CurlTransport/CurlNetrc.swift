import Glibc
import ReservoirBase

/// Why the netrc file cannot be handed to libcurl. Equal by code; `detail` is for people.
package struct CurlNetrcError: CodedError, Sendable {
    package enum Code: String, Sendable {
        /// The path holds a NUL byte.
        case invalidPath = "netrc-invalid-path"
        /// The file cannot be opened or is not a regular file.
        case unreadable = "netrc-unreadable"
        /// The file may be read or written by its group or others.
        case tooOpen = "netrc-too-open"
    }

    package var code: Code
    package var detail: String

    package init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }
}

/// The netrc file credentials come from (`machine HOST login USER password PASS`, `default`;
/// the format of ftp(1) and curl(1)), checked before libcurl reads it: for CalDAV's and IMAP's
/// logins alike.
package enum CurlNetrc {
    /// The file to hand to libcurl: `path` when given (it must exist), otherwise `$HOME/.netrc`
    /// when it exists, otherwise none. Refused when it cannot be opened, is not a regular file,
    /// or may be read or written by its group or others: it holds passwords in the clear, and
    /// ftp(1) refuses such a file too.
    package static func resolve(_ path: String?) throws(CurlNetrcError) -> String? {
        let chosen: String
        if let path {
            chosen = path
        } else {
            guard let home = getenv("HOME"), home.pointee != 0 else { return nil }
            chosen = String(cString: home) + "/.netrc"
            var info = stat()
            if stat(chosen, &info) != 0 && errno == ENOENT { return nil }
        }
        try check(chosen)
        return chosen
    }

    /// The login and password of the entry for `host` (compared without case, as host names)
    /// whose login is `login` (compared exactly: a login is the server's to compare); nil when
    /// the file cannot be read or has no such entry with a password.
    package static func credentials(in path: String, host: String, login: String) -> (login: String, password: String)? {
        // Read through the descriptor the owner-only check opened (no second open to race).
        guard case .success(let file) = OwnerOnlyFile.open(path) else { return nil }
        defer { close(file.fd) }
        guard let bytes = try? FileBytes.readAll(file.fd, sizeHint: file.size, limit: 1 << 20) else { return nil }
        let entry = NetrcText.entries(String(decoding: bytes, as: UTF8.self)).first { entry in
            entry.names(host) && entry.login == login && entry.password != nil
        }
        guard let entry, let password = entry.password else { return nil }
        return (login, password)
    }

    private static func check(_ path: String) throws(CurlNetrcError) {
        guard !path.utf8.contains(0) else { throw CurlNetrcError(.invalidPath, "the netrc path contains a NUL byte") }
        switch OwnerOnlyFile.open(path) {
        case .success(let file):
            close(file.fd)
        case .failure(.unreadable(let reason)):
            throw CurlNetrcError(.unreadable, "cannot read the netrc file \(path): \(reason)")
        case .failure(.notRegularFile):
            throw CurlNetrcError(.unreadable, "the netrc file \(path) is not a regular file")
        case .failure(.tooOpen(let permissions)):
            throw CurlNetrcError(
                .tooOpen,
                "the netrc file \(path) has mode \(octal(mode_t(permissions))); it holds passwords and must be 0600 or stricter (chmod 600 \(path))"
            )
        }
    }

    /// The mode as ls and chmod write it: four octal digits.
    static func octal(_ mode: mode_t) -> String {
        let digits = String(mode, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
