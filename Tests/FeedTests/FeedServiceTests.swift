import EventStore
import ICalendar
import ReservoirBase
import Testing

@testable import Feed

@Suite("The feed service: routes, access, conditional requests, errors")
struct FeedServiceTests {
    static let now: Int64 = 1_795_000_000
    /// The Host of a request to the default listen address.
    static let host = "127.0.0.1:8645"
    static let token: AccessToken = {
        guard case .success(let token) = AccessToken.read(fileText: Array("s3cret-token-0123456789".utf8)) else { fatalError() }
        return token
    }()

    static func service(_ store: MemoryStore, access: FeedAccess = FeedAccess()) -> FeedService {
        nonisolated(unsafe) let store = store
        return FeedService(
            access: access, openStore: { _ in store }, clock: .pinned(at: now), hosts: ServedHosts(listen: .standard, serverNames: ["h"]))
    }

    static let events = [
        storedEvent(title: "Dinner", start: now + 3600, updatedAt: 1_794_000_000),
        storedEvent(container: "K7Q2PX", title: "Flight", start: now + 7200, owner: nil, updatedAt: 1_794_500_000),
    ]

    @Test("GET /calendar.ics: the calendar with a strong ETag of its bytes and the latest change as Last-Modified")
    func feed() throws {
        let service = Self.service(MemoryStore(Self.events))
        let response = service.respond(to: FeedRequest(method: "GET", target: "/calendar.ics", host: Self.host))
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "text/calendar; charset=utf-8")
        #expect(response.header("ETag") == EntityTag(strongFor: response.body).headerValue)
        #expect(response.header("Last-Modified") == HTTPDate.format(1_794_500_000))
        #expect(response.header("Content-Length") == String(response.body.count))
        let text = String(decoding: response.body, as: UTF8.self)
        #expect(text.hasPrefix("BEGIN:VCALENDAR\r\n") && text.contains("SUMMARY:Flight\r\n"))
        // An unchanged store: the same bytes, so the same tag.
        let again = service.respond(to: FeedRequest(method: "GET", target: "/calendar.ics?refresh=1", host: Self.host))
        #expect(again.body == response.body && again.header("ETag") == response.header("ETag"))
    }

    @Test("the page of the server's one account names it when it is a site's account, and no one for the implicit account")
    func serverAccountNamed() throws {
        nonisolated(unsafe) let store = MemoryStore(Self.events)
        let request = FeedRequest(method: "GET", target: "/", host: Self.host)
        let jane = FeedService(
            access: FeedAccess(), openStore: { _ in store }, clock: .pinned(at: Self.now),
            serverAccount: Account(normalizedAddress: "jane@example.org"))
        #expect(String(decoding: jane.respond(to: request).body, as: UTF8.self).contains("<p class=\"owner\">jane@example.org</p>"))
        #expect(!String(decoding: Self.service(store).respond(to: request).body, as: UTF8.self).contains("class=\"owner\""))
    }

    @Test("the feed names itself and its refresh interval (RFC 7986), with the configured colour")
    func feedName() throws {
        nonisolated(unsafe) let store = MemoryStore(Self.events)
        let plain = Self.service(store).respond(to: FeedRequest(method: "GET", target: "/calendar.ics", host: Self.host))
        let text = String(decoding: plain.body, as: UTF8.self)
        #expect(
            text.contains("\r\nNAME:Reservations\r\nX-WR-CALNAME:Reservations\r\nREFRESH-INTERVAL;VALUE=DURATION:PT1H\r\nX-PUBLISHED-TTL:PT1H\r\n"))
        #expect(!text.contains("COLOR"))
        let colored = FeedService(
            access: FeedAccess(), openStore: { _ in store }, clock: .pinned(at: Self.now), writer: ICalendarWriter(color: "teal")
        )
        .respond(to: FeedRequest(method: "GET", target: "/calendar.ics", host: Self.host))
        #expect(String(decoding: colored.body, as: UTF8.self).contains("\r\nCOLOR:teal\r\n"))
    }

    @Test("If-None-Match and If-Modified-Since answer 304 without a body; a changed store answers 200")
    func conditional() throws {
        let store = MemoryStore(Self.events)
        let service = Self.service(store)
        let tag = try #require(service.respond(to: FeedRequest(method: "GET", target: "/calendar.ics", host: Self.host)).header("ETag"))
        for (match, since) in [(tag, nil), ("\"other\", \(tag)", nil), ("*", nil), (nil, HTTPDate.format(1_794_500_000))] as [(String?, String?)] {
            let response = service.respond(
                to: FeedRequest(method: "GET", target: "/calendar.ics", host: Self.host, ifNoneMatch: match, ifModifiedSince: since))
            #expect(response.status == 304 && response.body.isEmpty && response.header("ETag") == tag)
            #expect(response.header("Content-Type") == nil)
        }
        store.stored[0].event.title = "Dinner, moved"
        store.stored[0].updatedAt = 1_794_600_000
        let changed = service.respond(to: FeedRequest(method: "GET", target: "/calendar.ics", host: Self.host, ifNoneMatch: tag))
        #expect(changed.status == 200 && changed.header("ETag") != tag)
        let since = service.respond(
            to: FeedRequest(method: "GET", target: "/calendar.ics", host: Self.host, ifModifiedSince: HTTPDate.format(1_794_500_000)))
        #expect(since.status == 200)
    }

    @Test("HEAD has the headers of GET and no body")
    func head() {
        let service = Self.service(MemoryStore(Self.events))
        let get = service.respond(to: FeedRequest(method: "GET", target: "/calendar.ics", host: Self.host))
        let head = service.respond(to: FeedRequest(method: "HEAD", target: "/calendar.ics", host: Self.host))
        #expect(head.status == 200 && head.body.isEmpty)
        #expect(head.header("ETag") == get.header("ETag") && head.header("Content-Length") == String(get.body.count))
        let page = service.respond(to: FeedRequest(method: "HEAD", target: "/", host: Self.host))
        #expect(page.status == 200 && page.body.isEmpty)
    }

    @Test("GET /: the page, with its content security policy and nosniff")
    func page() {
        let response = Self.service(MemoryStore(Self.events)).respond(to: FeedRequest(method: "GET", target: "/", host: "h:1"))
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "text/html; charset=utf-8")
        #expect(
            response.header("Content-Security-Policy")
                == "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
        #expect(response.header("X-Content-Type-Options") == "nosniff")
        let html = String(decoding: response.body, as: UTF8.self)
        #expect(html.contains("Dinner") && html.contains("Flight") && html.contains("webcal://h:1/calendar.ics"))
    }

    @Test("other paths are 404, other methods 405, a failing store 503 with a log line")
    func errors() {
        let service = Self.service(MemoryStore(Self.events))
        for target in ["/calendar", "/calendar.ics/", "/x/calendar.ics", "//", "/index.html"] {
            #expect(service.respond(to: FeedRequest(method: "GET", target: target, host: Self.host)).status == 404, "\(target)")
        }
        let post = service.respond(to: FeedRequest(method: "POST", target: "/calendar.ics", host: Self.host))
        #expect(post.status == 405 && post.header("Allow") == "GET, HEAD")
        let failing = Self.service(MemoryStore([], failure: EventStoreError(.busy, "database is locked")))
        for target in ["/", "/calendar.ics"] {
            let response = failing.respond(to: FeedRequest(method: "GET", target: target, host: Self.host))
            #expect(response.status == 503)
            #expect(response.logLine == "store: database is locked")
            #expect(!String(decoding: response.body, as: UTF8.self).contains("locked"))
        }
    }

    @Test("with a token, only /TOKEN/ and /TOKEN/calendar.ics answer; a wrong token is 404")
    func tokenAccess() {
        let service = Self.service(MemoryStore(Self.events), access: FeedAccess(token: Self.token))
        #expect(service.respond(to: FeedRequest(method: "GET", target: "/s3cret-token-0123456789/calendar.ics", host: Self.host)).status == 200)
        let page = service.respond(to: FeedRequest(method: "GET", target: "/s3cret-token-0123456789/", host: "h"))
        #expect(page.status == 200)
        #expect(String(decoding: page.body, as: UTF8.self).contains("webcal://h/s3cret-token-0123456789/calendar.ics"))
        for target in [
            "/calendar.ics", "/", "/s3cret-token-0123456788/calendar.ics", "/s3cret-token-012345678/calendar.ics",
            "/s3cret-token-0123456789", "/s3cret-token-0123456789x/", "/S3CRET-TOKEN-0123456789/",
        ] {
            #expect(service.respond(to: FeedRequest(method: "GET", target: target, host: Self.host)).status == 404, "\(target)")
        }
    }

    @Test("with credentials, a missing or wrong Authorization is 401 with the Basic challenge")
    func basicAccess() {
        let credentials = BasicCredentials(user: "me".utf8, password: "pw".utf8)
        let service = Self.service(MemoryStore(Self.events), access: FeedAccess(credentials: credentials))
        let good = "Basic bWU6cHc="  // me:pw
        #expect(service.respond(to: FeedRequest(method: "GET", target: "/calendar.ics", host: Self.host, authorization: good)).status == 200)
        for authorization in [nil, "Basic bWU6cHg=", "Basic bWU6", "Bearer bWU6cHc=", "Basic !!!!"] as [String?] {
            let response = service.respond(to: FeedRequest(method: "GET", target: "/calendar.ics", host: Self.host, authorization: authorization))
            #expect(response.status == 401)
            #expect(response.header("WWW-Authenticate") == "Basic realm=\"reservoir\"")
        }
        // Both: the token first (404), then the credentials (401).
        let both = Self.service(MemoryStore(Self.events), access: FeedAccess(token: Self.token, credentials: credentials))
        #expect(both.respond(to: FeedRequest(method: "GET", target: "/wrong/calendar.ics", host: Self.host, authorization: good)).status == 404)
        #expect(both.respond(to: FeedRequest(method: "GET", target: "/s3cret-token-0123456789/calendar.ics", host: Self.host)).status == 401)
        #expect(both.respond(to: FeedRequest(method: "GET", target: "/s3cret-token-0123456789/", host: Self.host, authorization: good)).status == 200)
    }
}
