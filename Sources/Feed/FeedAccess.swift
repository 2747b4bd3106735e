public import EventStore

/// Who may read the feed and the page, and whose they are.
public struct FeedAccess: Sendable {
    /// The secret first path segment, when `--token-file` holds one bare token.
    public var token: AccessToken?
    /// One token per account, when `--token-file` holds `TOKEN ACCOUNT` lines.
    public var accountTokens: [AccountToken]
    /// The one user and password allowed, when `--netrc` has one entry for the server.
    public var credentials: BasicCredentials?
    /// One login per account, when `--netrc` has several entries for the server: the login is
    /// the account.
    public var accountCredentials: [AccountCredentials]

    public init(
        token: AccessToken? = nil, accountTokens: [AccountToken] = [], credentials: BasicCredentials? = nil,
        accountCredentials: [AccountCredentials] = []
    ) {
        self.token = token
        self.accountTokens = accountTokens
        self.credentials = credentials
        self.accountCredentials = accountCredentials
    }

    /// The access a token file gives, with `credentials`.
    public init(tokens: TokenFile?, credentials: BasicCredentials? = nil, accountCredentials: [AccountCredentials] = []) {
        switch tokens {
        case .single(let token): self.init(token: token, credentials: credentials, accountCredentials: accountCredentials)
        case .accounts(let entries): self.init(accountTokens: entries, credentials: credentials, accountCredentials: accountCredentials)
        case nil: self.init(credentials: credentials, accountCredentials: accountCredentials)
        }
    }

    /// The protection space named in challenges (RFC 7235 §2.2).
    public static let realm = "reservoir"
    /// RFC 7617 §2: the challenge of a 401.
    public static let challenge = "Basic realm=\"\(realm)\""

    /// Whether the server asks for anything at all.
    public var isOpen: Bool { token == nil && accountTokens.isEmpty && credentials == nil && accountCredentials.isEmpty }

    /// The decision for a request to `path` (without its query) with an Authorization field:
    /// the token first — a wrong or missing one is 404, so the feed's existence is not
    /// revealed — then Basic credentials, whose absence or mismatch is 401 with a challenge.
    ///
    /// With one token per account the token decides the account, and nothing in the request
    /// can name another: every token is compared (in constant time each), so the time taken
    /// does not tell which one matched or how many there are before it.
    public func decide(path: String, authorization: String?) -> AccessDecision {
        var resource = path
        var account: Account?
        if token != nil || !accountTokens.isEmpty {
            let bytes = Array(path.utf8)
            guard bytes.first == UInt8(ascii: "/") else { return .notFound }
            let segmentEnd = bytes[1...].firstIndex(of: UInt8(ascii: "/")) ?? bytes.count
            let segment = bytes[1..<segmentEnd]
            if let token {
                guard token.matches(segment) else { return .notFound }
            } else {
                for entry in accountTokens where entry.token.matches(segment) { account = entry.account }
                guard account != nil else { return .notFound }
            }
            resource = String(decoding: bytes[segmentEnd...], as: UTF8.self)
            if resource.isEmpty { return .notFound }
        }
        if let credentials {
            guard let offered = authorization.flatMap(BasicCredentials.init(authorization:)), offered.matches(credentials) else {
                return .unauthorized
            }
        }
        if !accountCredentials.isEmpty {
            // Every entry is compared, as every token is; a login that is right for another
            // account than the token's is refused like a wrong one.
            guard let offered = authorization.flatMap(BasicCredentials.init(authorization:)) else { return .unauthorized }
            var matched: Account?
            for entry in accountCredentials where offered.matches(entry.credentials) { matched = entry.account }
            guard let matched, account == nil || account == matched else { return .unauthorized }
            account = matched
        }
        return .granted(resource: resource, account: account)
    }
}

/// What ``FeedAccess/decide(path:authorization:)`` found.
public enum AccessDecision: Sendable, Equatable {
    /// Go on, with the path below the token (`/`, `/calendar.ics`), for the account the token
    /// names (nil: the server's one account).
    case granted(resource: String, account: Account?)
    case notFound
    /// 401 with ``FeedAccess/challenge``.
    case unauthorized
}

/// One netrc entry of a site's server: its login is the account whose feed and page it opens.
public struct AccountCredentials: Sendable, Equatable {
    public let credentials: BasicCredentials
    public let account: Account

    public init(credentials: BasicCredentials, account: Account) {
        self.credentials = credentials
        self.account = account
    }
}
