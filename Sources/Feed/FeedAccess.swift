/// Who may read the feed and the page.
public struct FeedAccess: Sendable {
    /// The secret first path segment, when `--token-file` is given.
    public var token: AccessToken?
    /// The one user and password allowed, when `--netrc` is given.
    public var credentials: BasicCredentials?

    public init(token: AccessToken? = nil, credentials: BasicCredentials? = nil) {
        self.token = token
        self.credentials = credentials
    }

    /// The protection space named in challenges (RFC 7235 §2.2).
    public static let realm = "reservoir"
    /// RFC 7617 §2: the challenge of a 401.
    public static let challenge = "Basic realm=\"\(realm)\""

    /// Whether the server asks for anything at all.
    public var isOpen: Bool { token == nil && credentials == nil }

    /// The decision for a request to `path` (without its query) with an Authorization field:
    /// the token first — a wrong or missing one is 404, so the feed's existence is not
    /// revealed — then Basic credentials, whose absence or mismatch is 401 with a challenge.
    public func decide(path: String, authorization: String?) -> AccessDecision {
        var resource = path
        if let token {
            let bytes = Array(path.utf8)
            guard bytes.first == UInt8(ascii: "/") else { return .notFound }
            let segmentEnd = bytes[1...].firstIndex(of: UInt8(ascii: "/")) ?? bytes.count
            guard token.matches(bytes[1..<segmentEnd]) else { return .notFound }
            resource = String(decoding: bytes[segmentEnd...], as: UTF8.self)
            if resource.isEmpty { return .notFound }
        }
        if let credentials {
            guard let offered = authorization.flatMap(BasicCredentials.init(authorization:)), offered.matches(credentials) else {
                return .unauthorized
            }
        }
        return .granted(resource: resource)
    }
}

/// What ``FeedAccess/decide(path:authorization:)`` found.
public enum AccessDecision: Sendable, Equatable {
    /// Go on, with the path below the token (`/`, `/calendar.ics`).
    case granted(resource: String)
    case notFound
    /// 401 with ``FeedAccess/challenge``.
    case unauthorized
}
