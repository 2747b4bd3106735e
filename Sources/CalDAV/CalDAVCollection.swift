import ReservoirBase

/// The URL of a calendar collection (RFC 4791 §4.2): an absolute `http` or `https` URL whose
/// path ends in "/", so a resource name appended to it names a member of the collection
/// (RFC 4918 §5.2: a collection's URL ends in "/").
///
/// Accepted: `scheme://authority/path` with the scheme `http` or `https` (any case), a
/// non-empty authority, with at most a login as its user information (`jane@`, percent-encoded
/// as RFC 3986 §3.2.1 writes it: `jane%40example.org@`), which names the netrc entry to log in
/// with as curl reads it, a path of printable ASCII (already percent-encoded), no query and no
/// fragment. Refused: other schemes, `user:password@` (credentials come from a netrc file only,
/// never from a command line), spaces, controls and non-ASCII bytes. Errors never show a
/// password of the text they refuse (``URLText``).
public struct CalDAVCollection: Sendable, Hashable {
    /// The URL, lowercased scheme, path ending in "/".
    public let url: String
    /// The authority: host and optional port, as written.
    public let authority: String
    /// Whether the scheme is `https`.
    public let usesTLS: Bool
    /// The login the URL's user information names (percent-decoded); nil without one.
    public let login: String?

    public init(url text: String) throws(CalDAVError) {
        let bytes = Array(text.utf8)
        // RFC 3986 §2: a URL is printable ASCII; anything else must already be percent-encoded.
        guard !bytes.isEmpty, bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw CalDAVError(.invalidURL, "a collection URL is printable ASCII without spaces: \(URLText.withoutCredentials(text).debugDescription)")
        }
        guard let separator = Self.firstIndex(of: Array("://".utf8), in: bytes) else {
            throw CalDAVError(.invalidURL, "not an absolute URL: \(URLText.withoutCredentials(text))")
        }
        let scheme = String(decoding: bytes[..<separator].map(ASCII.lowercased), as: UTF8.self)
        guard scheme == "http" || scheme == "https" else {
            throw CalDAVError(.unsupportedScheme, "the scheme \(scheme.debugDescription) is neither http nor https")
        }
        let rest = bytes[(separator + 3)...]
        // RFC 3986 §3.2: the authority ends at the first "/", "?" or "#".
        let authorityEnd = rest.firstIndex(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        // RFC 3986 §3.2.1: userinfo ends in "@"; RFC 3986 §7.5 warns against passwords in URLs.
        // A login alone is no secret: it picks the netrc entry, as in curl.
        var login: String?
        if let at = authority.lastIndex(of: UInt8(ascii: "@")) {
            let userinfo = authority[..<at]
            guard !userinfo.contains(UInt8(ascii: ":")) else {
                throw CalDAVError(.credentialsInURL, "credentials belong in a netrc file, not in the URL")
            }
            guard !userinfo.isEmpty, !userinfo.contains(UInt8(ascii: "@")), let decoded = PercentEncoding.decoded(Array(userinfo)),
                let name = String(validating: decoded, as: UTF8.self), !name.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F })
            else {
                throw CalDAVError(.invalidURL, "the login before \"@\" is not a percent-encoded user name: \(URLText.withoutCredentials(text))")
            }
            login = name
            authority = authority[(at + 1)...]
        }
        guard !authority.isEmpty else { throw CalDAVError(.invalidURL, "no host in \(URLText.withoutCredentials(text))") }
        var path = Array(rest[authorityEnd...])
        guard !path.contains(UInt8(ascii: "?")), !path.contains(UInt8(ascii: "#")) else {
            throw CalDAVError(.invalidURL, "a collection URL has no query or fragment: \(URLText.withoutCredentials(text))")
        }
        if path.last != UInt8(ascii: "/") { path.append(UInt8(ascii: "/")) }
        self.authority = String(decoding: authority, as: UTF8.self)
        self.login = login
        // The login stays in the URL: it is part of the destination's name, and libcurl reads it.
        let userinfo = rest[..<authority.startIndex]
        self.url = scheme + "://" + String(decoding: userinfo, as: UTF8.self) + self.authority + String(decoding: path, as: UTF8.self)
        self.usesTLS = scheme == "https"
    }

    /// The host of ``authority`` without its port (a bracketed IPv6 literal without its
    /// brackets): the name a netrc `machine` entry names, as curl matches it.
    public var host: String {
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            return String(authority[authority.index(after: authority.startIndex)..<close])
        }
        return String(authority.prefix { $0 != ":" })
    }

    /// The URL of the member `name` of this collection.
    public func url(of name: CalDAVResourceName) -> String { url + name.pathSegment }

    private static func firstIndex(of needle: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= needle.count else { return nil }
        for start in 0...(bytes.count - needle.count) where bytes[start..<start + needle.count].elementsEqual(needle) {
            return start
        }
        return nil
    }
}
