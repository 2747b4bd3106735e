import EventStore
import ReservoirBase
import Synchronization
import Testing

@testable import Feed

/// DNS rebinding: which `Host` values name the server, and that every route refuses the others
/// before anything else.
@Suite("served hosts: the Host of every request names this server")
struct ServedHostsTests {
    static let loopback = ServedHosts(listen: ListenAddress(host: "127.0.0.1", port: 8645))
    static let ipv6 = ServedHosts(listen: ListenAddress(host: "::1", port: 8645))
    static let wildcard = ServedHosts(listen: ListenAddress(host: "0.0.0.0", port: 8645))
    static let named = ServedHosts(listen: ListenAddress(host: "192.168.1.20", port: 8645), serverNames: ["Calendar.Example.org", "[fd00::20]"])

    @Test(
        "Host values against each kind of listen address",
        arguments: [
            (loopback, "127.0.0.1:8645", ServedHosts.Verdict.served), (loopback, "127.0.0.1", .served), (loopback, "LOCALHOST:8645", .served),
            (loopback, "localhost", .served), (loopback, "127.0.0.1:9999", .served),
            (loopback, "attacker.example:8645", .foreign), (loopback, "attacker.example", .foreign), (loopback, "127.0.0.1.nip.io:8645", .foreign),
            (loopback, "localhost.attacker.example", .foreign), (loopback, "127.0.0.2:8645", .foreign), (loopback, "[::1]:8645", .foreign),
            (loopback, "", .malformed), (loopback, "127.0.0.1:86a5", .malformed), (loopback, "127.0.0.1:123456", .malformed),
            (loopback, "a b", .malformed), (loopback, "[::1", .malformed), (loopback, "127.0.0.1:8645:1", .malformed),
            (loopback, "user@127.0.0.1", .malformed), (loopback, "[::1]x", .malformed),
            (ipv6, "[::1]:8645", .served), (ipv6, "[0:0:0:0:0:0:0:1]:8645", .served), (ipv6, "localhost:8645", .served),
            (ipv6, "127.0.0.1:8645", .foreign), (ipv6, "::1", .malformed),
            (wildcard, "192.168.1.20:8645", .served), (wildcard, "[fe80::1]:8645", .served), (wildcard, "localhost:8645", .served),
            (wildcard, "attacker.example:8645", .foreign), (wildcard, "1.2.3.4.attacker.example", .foreign),
            (named, "calendar.example.org", .served), (named, "CALENDAR.EXAMPLE.ORG:443", .served), (named, "192.168.1.20:8645", .served),
            (named, "[fd00:0::20]", .served), (named, "localhost:8645", .foreign), (named, "127.0.0.1:8645", .foreign),
            (named, "example.org", .foreign), (named, "calendar.example.org.attacker.example", .foreign),
        ])
    func verdict(hosts: ServedHosts, field: String, expected: ServedHosts.Verdict) {
        #expect(hosts.check(field) == expected, "\(field)")
    }

    @Test("no Host is malformed")
    func missing() {
        #expect(Self.loopback.check(nil) == .malformed)
    }

    /// What the runner was asked.
    final class Calls: Sendable {
        let list = Mutex<[String]>([])
        var all: [String] { list.withLock { $0 } }
    }

    @Test("every route answers 421 to another name before its access, the page's own name passes; two Host fields are 400")
    func everyRoute() {
        let calls = Calls()
        nonisolated(unsafe) let store = MemoryStore([storedEvent(start: 1_795_003_600)])
        let actions = PageActions(secret: Array(repeating: 7, count: 32)) { action, _ in
            calls.list.withLock { $0.append("\(action)") }
            return PageActionResult(succeeded: true, summary: "done")
        }
        let token = PageActionTests.token("jane-token-0123456789")
        let service = FeedService(
            access: FeedAccess(token: token), openStore: { _ in store }, clock: .pinned(at: 1_795_000_000), actions: actions, hosts: Self.loopback)
        let form = "token=\(actions.token(for: nil))&url=https%3A%2F%2Fconfirm.example%2F"
        func request(_ method: String, _ target: String, host: String?, repeated: Bool = false) -> FeedRequest {
            let origin = host.map { "http://" + $0 }
            return FeedRequest(
                method: method, target: target, host: host, origin: method == "POST" ? origin : nil,
                contentType: method == "POST" ? "application/x-www-form-urlencoded" : nil, body: method == "POST" ? Array(form.utf8) : [],
                repeatedHost: repeated)
        }
        let routes = [
            ("GET", "/jane-token-0123456789/"), ("GET", "/jane-token-0123456789/calendar.ics"), ("HEAD", "/jane-token-0123456789/"),
            ("GET", "/"), ("GET", "/nothing"), ("GET", "/wrong-token-0123456789/calendar.ics"), ("POST", "/jane-token-0123456789/add"),
        ]
        for (method, target) in routes {
            let foreign = service.respond(to: request(method, target, host: "attacker.example:8645"))
            #expect(foreign.status == 421, "\(method) \(target)")
            #expect(foreign.body.isEmpty == (method == "HEAD"))
            #expect(service.respond(to: request(method, target, host: "127.0.0.1:8645", repeated: true)).status == 400, "\(method) \(target)")
            #expect(service.respond(to: request(method, target, host: nil)).status == 400, "\(method) \(target)")
        }
        #expect(calls.all.isEmpty, "no form ran")
        // The controls: the same requests under the page's own name get their usual answers.
        let expected = [200, 200, 200, 404, 404, 404, 200]
        for ((method, target), status) in zip(routes, expected) {
            #expect(service.respond(to: request(method, target, host: "127.0.0.1:8645")).status == status, "\(method) \(target)")
        }
        #expect(calls.all == ["add(url: \"https://confirm.example/\")"])
    }
}
