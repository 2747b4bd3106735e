import Glibc
import ReservoirBase

/// The SASL mechanism that carries an OAuth 2 bearer token: `XOAUTH2` (Google's, which Gmail
/// and Fastmail accept) or `OAUTHBEARER` (RFC 7628).
public enum OAuthMechanism: String, Sendable, CaseIterable {
    case xoauth2 = "XOAUTH2"
    case oauthbearer = "OAUTHBEARER"
}

/// An OAuth 2 bearer token kept in a file by another tool that refreshes it: the file's first
/// line, read again for every connection.
public enum OAuthTokenFile {
    /// Reads the token: the file must be a regular file only its owner may read (as the netrc
    /// file), the token RFC 6750 §2.1's `b64token` — letters, digits and `-._~+/`, then `=`s.
    /// Anything else is refused: a CR, LF or ^A would end the command or the SASL message
    /// (RFC 7628 §3.1 separates its fields with ^A) and let the file's bytes say more.
    public static func read(_ path: String) throws(IMAPError) -> String {
        func refuse(_ why: String) -> IMAPError { IMAPError(.oauthTokenUnusable, "the OAuth token file \(path): \(why)") }
        guard !path.utf8.contains(0) else { throw refuse("a NUL byte in the path") }
        let fd: Int32
        switch OwnerOnlyFile.open(path) {
        case .success(let file): fd = file.fd
        case .failure(.unreadable(let reason)): throw refuse(reason)
        case .failure(.notRegularFile): throw refuse("not a regular file")
        case .failure(.tooOpen(let mode)): throw refuse("mode \(String(mode, radix: 8)): others may read it; chmod 600")
        }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: IMAPLimits.oauthTokenBytes + 2)
        var count = 0
        while count < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress.map { $0 + count }, $0.count - count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw refuse(String(cString: strerror(errno))) }
            if n == 0 { break }
            count += n
        }
        var line = bytes[..<count].prefix(while: { $0 != 0x0A })
        if line.last == 0x0D { line = line.dropLast() }
        guard line.count <= IMAPLimits.oauthTokenBytes else { throw refuse("a first line longer than \(IMAPLimits.oauthTokenBytes) bytes") }
        guard !line.isEmpty else { throw refuse("no token on its first line") }
        let body = line.prefix(while: { $0 != UInt8(ascii: "=") })
        let allowed: (UInt8) -> Bool = { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || "-._~+/".utf8.contains(byte)
        }
        guard !body.isEmpty, body.allSatisfy(allowed), line.dropFirst(body.count).allSatisfy({ $0 == UInt8(ascii: "=") }) else {
            throw refuse("the first line is not a bearer token (RFC 6750 §2.1: letters, digits, -._~+/ and trailing =)")
        }
        return String(decoding: line, as: UTF8.self)
    }
}
