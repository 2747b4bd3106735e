import Foundation
import Glibc
import ServiceLog
import Telemetry
import Testing

@Suite("--metrics: the exposition and its HTTP responder", .serialized)
struct MetricsServerTests {
    @Test("counters, gauges and the histogram in the text exposition format 0.0.4, with HELP and TYPE lines")
    func exposition() {
        let metrics = ServiceMetrics()
        metrics.count("messages", "Messages ended, by outcome.", label: ("outcome", "stored"), by: 2)
        metrics.count("messages", "Messages ended, by outcome.", label: ("outcome", "untrusted"))
        metrics.set("retry_spool_messages", "Messages waiting.", to: 3)
        metrics.observe("store", "Recording time.", seconds: 0.003)
        let text = metrics.exposition()
        #expect(text.contains("# HELP reservoir_messages_total Messages ended, by outcome.\n"))
        #expect(text.contains("# TYPE reservoir_messages_total counter\n"))
        #expect(text.contains("reservoir_messages_total{outcome=\"stored\"} 2\n"))
        #expect(text.contains("reservoir_messages_total{outcome=\"untrusted\"} 1\n"))
        #expect(text.contains("# TYPE reservoir_retry_spool_messages gauge\n"))
        #expect(text.contains("reservoir_retry_spool_messages 3"))
        #expect(text.contains("# TYPE reservoir_store_seconds histogram\n"))
        #expect(text.contains("reservoir_store_seconds_bucket{le=\"0.005\"} 1\n"), "\(text)")
        #expect(text.contains("reservoir_store_seconds_bucket{le=\"0.002\"} 0\n"))
        #expect(text.contains("reservoir_store_seconds_count 1\n"))
    }

    /// A free loopback port: bound to 0, read back, released.
    static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Sends `request` to the port and reads the answer until the server closes.
    static func exchange(_ port: Int, _ request: String) -> String {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard connected else { return "" }
        let bytes = Array(request.utf8)
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var answer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { break }
            answer += chunk[..<n]
        }
        return String(decoding: answer, as: UTF8.self)
    }

    final class Flag: @unchecked Sendable {
        var problem: String?
    }

    @Test("GET /metrics and /healthz are answered, 503 with the reason while the health check fails; anything else 404, 405 or 431")
    func responder() throws {
        let metrics = ServiceMetrics()
        metrics.count("messages", "Messages.", label: ("outcome", "stored"))
        let flag = Flag()
        let port = Self.freePort()
        let server = try MetricsServer(
            address: try #require(MetricsAddress(String(port))), registry: metrics.registry, health: { flag.problem },
            refresh: { metrics.set("retry_spool_messages", "Waiting.", to: 7) })
        #expect(server.start())
        let scrape = Self.exchange(port, "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        #expect(scrape.hasPrefix("HTTP/1.1 200 OK\r\n"), "\(scrape)")
        #expect(scrape.contains("Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n"))
        #expect(scrape.contains("reservoir_messages_total{outcome=\"stored\"} 1\n"))
        #expect(scrape.contains("reservoir_retry_spool_messages 7"))
        #expect(Self.exchange(port, "GET /healthz HTTP/1.1\r\n\r\n").hasSuffix("\r\n\r\nok\n"))
        flag.problem = "store: connection refused"
        let unhealthy = Self.exchange(port, "GET /healthz HTTP/1.1\r\n\r\n")
        #expect(unhealthy.hasPrefix("HTTP/1.1 503 "))
        #expect(unhealthy.hasSuffix("\r\n\r\nstore: connection refused\n"))
        #expect(Self.exchange(port, "GET /other HTTP/1.1\r\n\r\n").hasPrefix("HTTP/1.1 404 "))
        #expect(Self.exchange(port, "POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n").hasPrefix("HTTP/1.1 405 "))
        #expect(Self.exchange(port, "nonsense\r\n\r\n").hasPrefix("HTTP/1.1 400 "))
        let huge = "GET /metrics HTTP/1.1\r\nX: " + String(repeating: "a", count: MetricsServer.Limits.requestHeadBytes) + "\r\n\r\n"
        #expect(Self.exchange(port, huge).hasPrefix("HTTP/1.1 431 "))
        let head = Self.exchange(port, "HEAD /healthz HTTP/1.1\r\n\r\n")
        #expect(head.hasPrefix("HTTP/1.1 503 ") && head.hasSuffix("\r\n\r\n"))
        // A port in use stops the start.
        #expect(throws: MetricsServerError.self) {
            _ = try MetricsServer(address: try #require(MetricsAddress(String(port))), registry: metrics.registry, health: { nil })
        }
    }
}
