public import EventStore
public import ICalendar
public import ReservoirBase

/// The feed and the page: routing, access, the store read fresh for each request, conditional
/// requests. No network here: the program hands each request over and sends the answer.
public struct FeedService: Sendable {
    /// Opens the store for one request (read-only where the backend allows it), holding the
    /// bookings of the account the request's token names (nil: the server's one account).
    public typealias StoreOpener = @Sendable (Account?) throws(EventStoreError) -> any EventStore

    public let access: FeedAccess
    public let openStore: StoreOpener
    /// The clock of "upcoming" (`--now` pins it).
    public let clock: WallClock
    /// Writes the feed (its reminders).
    public let writer: ICalendarWriter
    /// The page's forms (`--actions`); nil: the server only reads.
    public let actions: PageActions?
    /// Days a pending sender's reservations are offered (`pending-days`).
    public let pendingDays: Int
    /// The names a request's `Host` may carry (DNS rebinding: ``ServedHosts``).
    public let hosts: ServedHosts
    /// The server's one account (the configuration's `account`), named on the page a request
    /// without an account of its own sees; the implicit account names no one.
    public let serverAccount: Account

    public init(
        access: FeedAccess, openStore: @escaping StoreOpener, clock: WallClock, writer: ICalendarWriter = ICalendarWriter(),
        actions: PageActions? = nil, pendingDays: Int = 30, hosts: ServedHosts = ServedHosts(listen: .standard),
        serverAccount: Account = .implicit
    ) {
        self.serverAccount = serverAccount
        self.hosts = hosts
        self.writer = writer
        self.actions = actions
        self.pendingDays = pendingDays
        self.access = access
        self.openStore = openStore
        self.clock = clock
    }

    public static let feedPath = "/calendar.ics"
    public static let pagePath = "/"
    /// RFC 5545 §8.1: the media type of iCalendar.
    public static let calendarType = "text/calendar; charset=utf-8"
    /// The page loads nothing and runs nothing: only its inline style is allowed (CSP Level 3
    /// §6.1.3); no `<base>` can redirect its relative links, no form posts anywhere, and no
    /// other site may frame it to trick a tap onto its buttons (§6.3.2, §6.4.2).
    public static let pagePolicy = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    /// With `--actions`, the page's own forms may post to the page's origin, nowhere else.
    public static let actionPagePolicy =
        "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

    public func respond(to request: FeedRequest) -> FeedResponse {
        // Before access, on every route: a page under another name is another site's, even
        // when that name leads here (DNS rebinding, ``ServedHosts``).
        switch hosts.check(request.repeatedHost ? nil : request.host) {
        case .served: break
        case .malformed: return Self.text(400, "Bad request: give one Host field.\n", method: request.method)
        case .foreign:
            var response = Self.text(
                421, "Misdirected request: this server does not answer under that name (reservoir serve --server-name names it).\n",
                method: request.method)
            response.logLine = "a request for another name refused (421): Host \(request.host ?? "")"
            return response
        }
        let path = request.path
        let resource: String
        let account: Account?
        switch access.decide(path: path, authorization: request.authorization) {
        case .notFound: return Self.text(404, "Not found.\n", method: request.method)
        case .unauthorized:
            var response = Self.text(401, "Authentication required.\n", method: request.method)
            response.headers.append(("WWW-Authenticate", FeedAccess.challenge))
            return response
        case .granted(let granted, let owner): (resource, account) = (granted, owner)
        }
        if let actions, let name = PageAction.paths[resource] {
            return act(name, actions: actions, request: request, account: account, pagePath: String(path.dropLast(resource.count)) + "/")
        }
        guard resource == Self.feedPath || resource == Self.pagePath else {
            return Self.text(404, "Not found.\n", method: request.method)
        }
        // RFC 7231 §4.3.2: HEAD is GET without the body.
        guard request.method == "GET" || request.method == "HEAD" else {
            var response = Self.text(405, "Only GET and HEAD.\n", method: request.method)
            response.headers.append(("Allow", "GET, HEAD"))
            return response
        }
        let prefix = String(path.dropLast(resource.count))
        do throws(EventStoreError) {
            let store = try openStore(account)
            if resource == Self.feedPath {
                return feed(try store.events(), request: request)
            }
            return try page(store, request: request, feedPath: prefix + Self.feedPath, account: account)
        } catch {
            var response = Self.text(503, "The event store cannot be read right now.\n", method: request.method)
            response.headers.append(("Retry-After", "30"))
            response.logLine = "store: \(error.message)"
            return response
        }
    }

    /// The calendar, with a strong ETag of its exact bytes and Last-Modified from the latest
    /// change, answering If-None-Match and If-Modified-Since (``ConditionalRequest``).
    func feed(_ events: [StoredEvent], request: FeedRequest) -> FeedResponse {
        let body = Array(writer.write(events).utf8)
        let tag = EntityTag(strongFor: body)
        let lastModified = events.map(\.updatedAt).max()
        var headers: [(name: String, value: String)] = [
            ("ETag", tag.headerValue),
            // Clients revalidate each time: the store changes whenever mail arrives.
            ("Cache-Control", "no-cache"),
        ]
        if let lastModified { headers.append(("Last-Modified", HTTPDate.format(lastModified))) }
        // RFC 7230 §3.3.2: a 304 and a HEAD may carry the length the 200 would have had, no other.
        headers.append(("Content-Length", String(body.count)))
        let condition = ConditionalRequest(ifNoneMatch: request.ifNoneMatch, ifModifiedSince: request.ifModifiedSince)
        if condition.evaluate(tag: tag, lastModified: lastModified) == .notModified {
            // RFC 7232 §4.1: a 304 carries the ETag and Cache-Control a 200 would have, no body.
            return FeedResponse(status: 304, headers: headers, body: [])
        }
        headers.insert(("Content-Type", Self.calendarType), at: 0)
        return FeedResponse(status: 200, headers: headers, body: request.method == "HEAD" ? [] : body)
    }

    func page(_ store: any EventStore, request: FeedRequest, feedPath: String, account: Account?) throws(EventStoreError) -> FeedResponse {
        let now = clock.now()
        let upcoming = try store.events().filter { UpcomingPage.isUpcoming($0, now: now) }
        var histories: [String: [HistoryEntry]] = [:]
        var entries: [PageEntry] = []
        for stored in upcoming {
            let container = stored.event.key.container
            if histories[container] == nil { histories[container] = try store.history(container) }
            let own = (histories[container] ?? []).filter { $0.key == stored.event.key }
            entries.append(PageEntry(stored: stored, history: own))
        }
        let scheme = request.forwardedProto?.lowercased() == "https" ? "https" : "http"
        let links = FeedLinks(host: request.host ?? "localhost", path: feedPath, scheme: scheme)
        var forms: PageForms?
        if let actions {
            var pending: [PendingSender] = []
            if let senders = store.senders {
                pending = PendingSender.grouped(try senders.pendingReservations(receivedSince: now - Int64(pendingDays) * 86_400))
            }
            forms = PageForms(token: actions.token(for: account), pending: pending)
        }
        let body = Array(UpcomingPage(now: now, links: links, forms: forms, account: account ?? serverAccount).render(entries).utf8)
        let headers: [(name: String, value: String)] = [
            ("Content-Type", "text/html; charset=utf-8"),
            ("Content-Length", String(body.count)),
            ("Content-Security-Policy", actions == nil ? Self.pagePolicy : Self.actionPagePolicy),
            ("X-Content-Type-Options", "nosniff"),
            // The token is in the page's address: never send it on. With forms, `same-origin`:
            // under `no-referrer` a browser writes `Origin: null` on the page's own posts (Fetch
            // §3.2.5), which the forgery check could not tell from another site's.
            ("Referrer-Policy", UpcomingPage.referrerPolicy(forms: actions != nil)),
            ("Cache-Control", "no-store"),
        ]
        return FeedResponse(status: 200, headers: headers, body: request.method == "HEAD" ? [] : body)
    }

    static func text(_ status: Int, _ text: String, method: String) -> FeedResponse {
        let body = Array(text.utf8)
        return FeedResponse(
            status: status,
            headers: [
                ("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", String(body.count)),
                ("X-Content-Type-Options", "nosniff"),
            ],
            body: method == "HEAD" ? [] : body)
    }
}
