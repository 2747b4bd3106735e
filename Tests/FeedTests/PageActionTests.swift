import EventStore
import ReservoirBase
import Synchronization
import Testing

@testable import Feed

/// The forms of `--actions` as the service sees them: what reaches the runner, and what never does.
@Suite("page actions: forgery checks, the account from the access, only https pages")
struct PageActionTests {
    static func token(_ text: String) -> AccessToken {
        guard case .success(let token) = AccessToken.read(fileText: Array(text.utf8)) else { fatalError() }
        return token
    }

    /// What the runner was asked, in order.
    final class Calls: Sendable {
        let list = Mutex<[String]>([])
        func append(_ call: String) { list.withLock { $0.append(call) } }
        var all: [String] { list.withLock { $0 } }
    }

    static let jane = Account(normalizedAddress: "jane@example.org")
    static let joe = Account(normalizedAddress: "joe@example.org")

    /// A service with one token per account, whose runner records what it is asked.
    static func service(_ calls: Calls) -> (FeedService, PageActions) {
        nonisolated(unsafe) let store = MemoryStore([])
        let access = FeedAccess(accountTokens: [
            AccountToken(token: token("jane-token-0123456789"), account: jane), AccountToken(token: token("joe-token-01234567890"), account: joe),
        ])
        let actions = PageActions(secret: Array(repeating: 7, count: 32)) { action, account in
            calls.append("\(action) for \(account?.address ?? "-")")
            return PageActionResult(succeeded: true, summary: "Added <b>EPIC Steak</b>")
        }
        return (FeedService(access: access, openStore: { _ in store }, clock: .pinned(at: 1_795_000_000), actions: actions), actions)
    }

    static func post(_ path: String, _ body: String, origin: String? = "http://127.0.0.1:8645") -> FeedRequest {
        FeedRequest(
            method: "POST", target: path, host: "127.0.0.1:8645", origin: origin, contentType: "application/x-www-form-urlencoded; charset=utf-8",
            body: Array(body.utf8))
    }

    @Test("a page's form adds its https address for the token's account; the answer escapes what the command said")
    func add() {
        let calls = Calls()
        let (service, actions) = Self.service(calls)
        let form = "token=\(actions.token(for: Self.jane))&url=https%3A%2F%2Fconfirm.epicsteak.example%2Fb%2F1"
        let response = service.respond(to: Self.post("/jane-token-0123456789/add", form))
        #expect(response.status == 200)
        #expect(calls.all == ["add(url: \"https://confirm.epicsteak.example/b/1\") for jane@example.org"])
        let html = String(decoding: response.body, as: UTF8.self)
        #expect(html.contains("Added &lt;b&gt;EPIC Steak&lt;/b&gt;") && html.contains("href=\"/jane-token-0123456789/\""))
    }

    @Test("Jane's token in Joe's form, a form of another origin, GET, http, a malformed body: nothing runs")
    func refusals() {
        let calls = Calls()
        let (service, actions) = Self.service(calls)
        let url = "url=https%3A%2F%2Fconfirm.epicsteak.example%2F"
        let cases: [(FeedRequest, Int)] = [
            (Self.post("/joe-token-01234567890/add", "token=\(actions.token(for: Self.jane))&" + url), 403),
            (Self.post("/jane-token-0123456789/add", "token=\(actions.token(for: Self.jane))&" + url, origin: "https://evil.example"), 403),
            (Self.post("/jane-token-0123456789/add", "token=\(actions.token(for: Self.jane))&" + url, origin: "null"), 403),
            (FeedRequest(method: "GET", target: "/jane-token-0123456789/add", host: "127.0.0.1:8645"), 405),
            (Self.post("/jane-token-0123456789/add", "token=\(actions.token(for: Self.jane))&url=http%3A%2F%2Fa.example%2F"), 400),
            (Self.post("/jane-token-0123456789/add", "token=\(actions.token(for: Self.jane))&url=https%3A%2F%2Fa.example%2F%0Ax"), 400),
            (Self.post("/jane-token-0123456789/add", "token=\(actions.token(for: Self.jane))&url=%zz"), 400),
            (Self.post("/wrong-token-0123456789/add", "token=x&" + url), 404),
        ]
        for (request, status) in cases {
            #expect(service.respond(to: request).status == status, "\(request.target) \(String(decoding: request.body, as: UTF8.self))")
        }
        #expect(calls.all.isEmpty)
    }

    @Test("without --actions, the form paths do not exist and the page has no form")
    func readOnly() {
        nonisolated(unsafe) let store = MemoryStore([])
        let service = FeedService(access: FeedAccess(), openStore: { _ in store }, clock: .pinned(at: 1_795_000_000))
        #expect(service.respond(to: Self.post("/add", "url=https%3A%2F%2Fa.example%2F")).status == 404)
        let page = service.respond(to: FeedRequest(method: "GET", target: "/", host: "127.0.0.1:8645"))
        #expect(!String(decoding: page.body, as: UTF8.self).contains("<form"))
        #expect(page.header("Referrer-Policy") == "no-referrer")
    }
}
