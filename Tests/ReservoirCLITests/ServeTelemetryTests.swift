import Foundation
import Glibc
import TestRequirements
import Testing

extension ProcessSuites {
    /// `reservoir serve` tells each request without its token, and counts them on `--metrics`.
    @Suite("reservoir serve tells what happens", .serialized)
    struct ServeTelemetryTests {
        @Test(
            "each request is a line with method, path (the token as …), status, bytes and ms; /metrics counts them by status; /healthz follows the store",
            .enabled(if: Requirement.met(ServeCLITests.hasCurl), "curl is not installed (apt-get install curl)"))
        func requestLines() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let store = try ServeCLITests.store(tmp)
            let secret = "k3Jq9-ZpX2vLm8Rt4yWc"
            let tokenFile = tmp.path + "/token"
            try Data((secret + "\n").utf8).write(to: URL(fileURLWithPath: tokenFile))
            chmod(tokenFile, 0o600)
            let metrics = try LoopbackPort.free()
            let server = try ServeCLITests.Server(["--store", store, "--token-file", tokenFile, "--metrics", String(metrics)], tmp: tmp)
            defer { server.stop() }
            let feed = try ServeCLITests.curl(server.base + "/\(secret)/calendar.ics?x=\(secret)", tmp: tmp)
            #expect(feed.status == 200)
            #expect(try ServeCLITests.curl(server.base + "/wrong-token-0123456789/calendar.ics", tmp: tmp).status == 404)
            let scrape = try ServeCLITests.curl("http://127.0.0.1:\(metrics)/metrics", tmp: tmp)
            #expect(scrape.status == 200)
            #expect(scrape.text.contains("reservoir_http_requests_total{status=\"200\"} 1\n"), "\(scrape.text)")
            #expect(scrape.text.contains("reservoir_http_requests_total{status=\"404\"} 1\n"), "\(scrape.text)")
            #expect(try ServeCLITests.curl("http://127.0.0.1:\(metrics)/healthz", tmp: tmp).text == "ok\n")
            #expect(server.stop() == 0)
            let lines = server.log.split(separator: "\n")
            #expect(
                lines.contains { $0.hasPrefix("reservoir serve: GET /\u{2026}/calendar.ics status=200 bytes=\(feed.body.count) ms=") },
                "\(server.log)")
            #expect(lines.contains { $0.hasPrefix("reservoir serve: GET /\u{2026}/calendar.ics status=404 ") }, "\(server.log)")
            #expect(!server.log.contains(secret) && !server.log.contains("wrong-token"), "\(server.log)")
        }
    }
}
