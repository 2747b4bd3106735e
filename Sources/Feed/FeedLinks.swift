/// Where the feed is, for the page's subscription links.
public struct FeedLinks: Sendable, Equatable {
    /// `Host` as the client sent it (the name it reached this server by).
    public var host: String
    /// The feed's path, `/calendar.ics` or `/TOKEN/calendar.ics`.
    public var path: String
    /// `https` behind a TLS proxy, else `http`.
    public var scheme: String

    public init(host: String, path: String, scheme: String) {
        self.host = host
        self.path = path
        self.scheme = scheme
    }

    /// The subscription link calendar apps open (`webcal://`, the scheme Apple Calendar, Outlook
    /// and Google Calendar register for iCalendar subscriptions).
    public var webcal: String { "webcal://" + host + path }
    public var plain: String { scheme + "://" + host + path }
}
