import ReservoirBase

/// A mailbox to watch: `imaps://USER@HOST[:PORT]/MAILBOX` (RFC 5092 §3, without its
/// parameters): TLS from the first byte (RFC 8314 §3.2); or `imap://…`, where the connection
/// must become TLS with STARTTLS (RFC 9051 §6.2.1) before anything else is sent — a server
/// that does not offer it is refused, never given a plain-text login.
/// The user name and the mailbox are percent-decoded (RFC 3986 §2.1); the password never is in
/// the URL (RFC 5092 §3.2 advises against it): it comes from the netrc file.
public struct IMAPMailboxURL: Sendable, Equatable, CustomStringConvertible {
    /// True for `imaps://`, false for `imap://` (STARTTLS required).
    public let implicitTLS: Bool
    public let user: String
    public let host: String
    public let port: Int
    public let mailbox: String

    /// The default port of `imaps` (RFC 8314 §7.3).
    public static let defaultPort = 993
    /// The default port of `imap` (RFC 9051 §1: IANA's port for IMAP), where STARTTLS is required.
    public static let defaultStartTLSPort = 143

    public init(_ text: String) throws(IMAPError) {
        func refuse(_ why: String) -> IMAPError { IMAPError(.invalidURL, "\(text.debugDescription): \(why)") }
        guard text.utf8.count <= 2048 else { throw refuse("longer than 2048 bytes") }
        let lowered = text.lowercased()
        let implicitTLS = lowered.hasPrefix("imaps://")
        guard implicitTLS || lowered.hasPrefix("imap://") else {
            throw refuse("not an imaps:// URL (TLS from the first byte) or imap:// (STARTTLS required)")
        }
        let rest = text.dropFirst(implicitTLS ? "imaps://".count : "imap://".count)
        guard let slash = rest.firstIndex(of: "/") else { throw refuse("no mailbox (imaps://USER@HOST/MAILBOX)") }
        let authority = rest[..<slash]
        let path = rest[rest.index(after: slash)...]
        guard let at = authority.lastIndex(of: "@") else { throw refuse("no user name (imaps://USER@HOST/MAILBOX)") }
        let userPart = authority[..<at]
        guard !userPart.contains(":") else { throw refuse("a password in the URL; put it in the netrc file") }
        guard !userPart.contains(";") else { throw refuse("login parameters (;AUTH=) are not supported") }
        guard let user = Self.percentDecoded(userPart), !user.isEmpty else { throw refuse("an empty or malformed user name") }
        var hostPart = authority[authority.index(after: at)...]
        var port = implicitTLS ? Self.defaultPort : Self.defaultStartTLSPort
        if let colon = hostPart.lastIndex(of: ":"), !hostPart.hasSuffix("]") {
            let digits = hostPart[hostPart.index(after: colon)...]
            guard !digits.isEmpty, digits.count <= 5, digits.allSatisfy(\.isASCII), let number = Int(digits), (1...65535).contains(number) else {
                throw refuse("a port that is not a number from 1 to 65535")
            }
            port = number
            hostPart = hostPart[..<colon]
        }
        // A registered name or an IP literal (RFC 3986 §3.2.2): letters, digits, - . and [ : ] only.
        guard !hostPart.isEmpty,
            hostPart.unicodeScalars.allSatisfy({
                ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) || "-.[]:".unicodeScalars.contains($0)
            })
        else { throw refuse("a host that is not a name or address") }
        guard !path.isEmpty, !path.contains("?"), !path.contains("#"), !path.contains(";") else {
            throw refuse("the mailbox must be a name only (no ;UIDVALIDITY=, ;UID=, ?search or #fragment)")
        }
        let trimmed = path.hasSuffix("/") ? path.dropLast() : path
        guard let mailbox = Self.percentDecoded(trimmed), !mailbox.isEmpty else { throw refuse("an empty or malformed mailbox name") }
        // Quoted strings carry 7-bit text without CR, LF or NUL (RFC 9051 §4.3); other names
        // need modified UTF-7 (RFC 3501 §5.1.3), which this client does not write.
        guard mailbox.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value < 0x7F }) else {
            throw refuse("a mailbox name outside printable ASCII")
        }
        self.implicitTLS = implicitTLS
        self.user = user
        self.host = hostPart.lowercased()
        self.port = port
        self.mailbox = mailbox
    }

    /// The form the store keys the mailbox's state by: scheme and host in lower case, the port
    /// always written, the user and the mailbox percent-encoded again.
    public var description: String {
        "\(scheme)://\(Self.percentEncoded(user))@\(host):\(port)/\(Self.percentEncoded(mailbox))"
    }

    /// `imaps` or `imap`.
    public var scheme: String { implicitTLS ? "imaps" : "imap" }

    /// The server's address for libcurl, with the user (whose password libcurl looks up in the
    /// netrc file by host and login) and without the mailbox.
    var serverURL: String { "\(scheme)://\(Self.percentEncoded(user))@\(host):\(port)/" }

    /// The mailbox as an IMAP quoted string (RFC 9051 §4.3).
    var quotedMailbox: String {
        "\"" + mailbox.replacingBackslashAndQuote() + "\""
    }

    static func percentDecoded(_ text: Substring) -> String? {
        guard let bytes = PercentEncoding.decoded(text.utf8), !bytes.contains(0) else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }

    /// RFC 3986 §2.3's unreserved characters stay; everything else is percent-encoded.
    static func percentEncoded(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            let scalar = Unicode.Scalar(byte)
            if scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "-._~".unicodeScalars.contains(scalar)) {
                out.unicodeScalars.append(scalar)
            } else {
                let digits = Array("0123456789ABCDEF".unicodeScalars)
                out += "%"
                out.unicodeScalars.append(digits[Int(byte >> 4)])
                out.unicodeScalars.append(digits[Int(byte & 0xF)])
            }
        }
        return out
    }
}

extension String {
    fileprivate func replacingBackslashAndQuote() -> String {
        var out = ""
        for character in self {
            if character == "\\" || character == "\"" { out.append("\\") }
            out.append(character)
        }
        return out
    }
}
