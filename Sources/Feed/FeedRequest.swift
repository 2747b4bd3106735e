/// A request as the feed reads it: the method, the target, and the fields it looks at.
public struct FeedRequest: Sendable, Equatable {
    public var method: String
    /// The request target's path and query (`/calendar.ics?x=1`).
    public var target: String
    /// `Host` (RFC 9110 §7.2), the `:authority` of HTTP/2.
    public var host: String?
    /// Whether the request carried a second `Host` field (RFC 9112 §3.2: refused with 400).
    public var repeatedHost: Bool
    public var authorization: String?
    public var ifNoneMatch: String?
    public var ifModifiedSince: String?
    /// `X-Forwarded-Proto` from a TLS proxy in front: `https` makes the page's links https.
    public var forwardedProto: String?
    /// For the page's forms (POST): the `Origin` field (RFC 6454 §7), `Sec-Fetch-Site`
    /// (Fetch Metadata), the media type and the body.
    public var origin: String?
    public var fetchSite: String?
    public var contentType: String?
    public var body: [UInt8]

    public init(
        method: String, target: String, host: String? = nil, authorization: String? = nil,
        ifNoneMatch: String? = nil, ifModifiedSince: String? = nil, forwardedProto: String? = nil,
        origin: String? = nil, fetchSite: String? = nil, contentType: String? = nil, body: [UInt8] = [], repeatedHost: Bool = false
    ) {
        self.repeatedHost = repeatedHost
        self.origin = origin
        self.fetchSite = fetchSite
        self.contentType = contentType
        self.body = body
        self.method = method
        self.target = target
        self.host = host
        self.authorization = authorization
        self.ifNoneMatch = ifNoneMatch
        self.ifModifiedSince = ifModifiedSince
        self.forwardedProto = forwardedProto
    }

    /// The target without its query.
    public var path: String { String(target.prefix { $0 != "?" }) }
}
