import ReservoirBase

/// The URL of a calendar collection (RFC 4791 §4.2): an absolute `http` or `https` URL whose
/// path ends in "/", so a resource name appended to it names a member of the collection
/// (RFC 4918 §5.2: a collection's URL ends in "/").
///
/// Accepted: `scheme://authority/path` with the scheme `http` or `https` (any case), a
/// non-empty authority without user information, a path of printable ASCII (already
/// percent-encoded), no query and no fragment. Refused: other schemes, `user:password@` or
/// any user information (credentials come from a netrc file only, never from a command
/// line), spaces, controls and non-ASCII bytes. Errors never show a password of the text they
/// refuse (``URLText``).
public struct CalDAVCollection: Sendable, Hashable {
    /// The URL, lowercased scheme, path ending in "/".
    public let url: String
    /// The authority: host and optional port, as written.
    public let authority: String
    /// Whether the scheme is `https`.
    public let usesTLS: Bool

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
        let authority = rest[..<authorityEnd]
        guard !authority.isEmpty else { throw CalDAVError(.invalidURL, "no host in \(URLText.withoutCredentials(text))") }
        // RFC 3986 §3.2.1: userinfo ends in "@"; RFC 3986 §7.5 warns against passwords in URLs.
        guard !authority.contains(UInt8(ascii: "@")) else {
            throw CalDAVError(.credentialsInURL, "credentials belong in a netrc file, not in the URL")
        }
        var path = Array(rest[authorityEnd...])
        guard !path.contains(UInt8(ascii: "?")), !path.contains(UInt8(ascii: "#")) else {
            throw CalDAVError(.invalidURL, "a collection URL has no query or fragment: \(URLText.withoutCredentials(text))")
        }
        if path.last != UInt8(ascii: "/") { path.append(UInt8(ascii: "/")) }
        self.authority = String(decoding: authority, as: UTF8.self)
        self.url = scheme + "://" + self.authority + String(decoding: path, as: UTF8.self)
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
