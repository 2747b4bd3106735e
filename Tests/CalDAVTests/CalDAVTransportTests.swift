import Foundation
import Testing

@testable import CalDAV

/// Servers that are down, silent, not HTTP, or too talkative; and what the client sends.
@Suite("Transport failures and the request on the wire")
struct CalDAVTransportTests {
    static let name = CalDAVResourceName(uid: "a%b@c")
    static let body = calendarObject(uid: "a%b@c", summary: "Flight")

    static func client(port: Int, timeoutMilliseconds: Int = 5_000) throws -> CalDAVClient {
        try CalDAVClient(
            collection: CalDAVCollection(url: "http://127.0.0.1:\(port)/cal"),
            settings: CalDAVSettings(timeoutMilliseconds: timeoutMilliseconds))
    }

    static func seconds(_ work: () -> Void) -> Double {
        var start = timespec()
        var end = timespec()
        clock_gettime(CLOCK_MONOTONIC, &start)
        work()
        clock_gettime(CLOCK_MONOTONIC, &end)
        return Double(end.tv_sec - start.tv_sec) + Double(end.tv_nsec - start.tv_nsec) / 1e9
    }

    @Test("a server that is down: could not connect, worth retrying")
    func down() throws {
        let port = try LoopbackSocket.freePort()
        let response = try Self.client(port: port).put(resource: Self.name, body: Self.body, condition: .create)
        #expect(response == .failed(.couldNotConnect), "\(response)")
        #expect(response.outcome.isTransient)
    }

    @Test("a server that takes the connection and never answers: a time-out within the bound, worth retrying")
    func silent() throws {
        // The kernel completes the handshake for a listening socket; nobody ever reads or writes.
        let (descriptor, port) = try LoopbackSocket.listen()
        defer { close(descriptor) }
        let client = try Self.client(port: port, timeoutMilliseconds: 700)
        var response: CalDAVResponse?
        let elapsed = Self.seconds { response = client.put(resource: Self.name, body: Self.body, condition: .create) }
        #expect(response == .failed(.timeout), "\(String(describing: response))")
        #expect(response?.outcome.isTransient == true)
        #expect(elapsed >= 0.6 && elapsed < 5, "took \(elapsed) s for a 0.7 s bound")
    }

    @Test(
        "a server that answers bytes that are not HTTP: a malformed response, not a crash",
        arguments: ["SSH-2.0-OpenSSH_9.2p1\r\n", "\u{0}\u{1}\u{2}garbage\u{FF}\r\n\r\n", "HTTP/1.1 abc\r\n\r\n", ""])
    func garbage(reply: String) throws {
        let server = try CannedHTTPServer(response: reply)
        defer { server.stop() }
        let response = try Self.client(port: server.port).get(resource: Self.name)
        #expect(response == .failed(.malformedResponse("")), "\(response)")
        #expect(server.requests.count >= 1)
    }

    @Test("a response body over the limit is refused, not kept")
    func tooLarge() throws {
        let size = CalDAVLimits.responseBodyBytes + 1
        let server = try CannedHTTPServer(
            response: Array("HTTP/1.1 200 OK\r\nContent-Length: \(size)\r\nConnection: close\r\n\r\n".utf8) + [UInt8](repeating: 0x41, count: size))
        defer { server.stop() }
        let response = try Self.client(port: server.port).get(resource: Self.name)
        #expect(response == .failed(.responseTooLarge), "\(response)")
        #expect(!response.outcome.isTransient)
    }

    @Test("a response body at the limit is kept whole")
    func atLimit() throws {
        let size = CalDAVLimits.responseBodyBytes
        let server = try CannedHTTPServer(
            response: Array("HTTP/1.1 200 OK\r\nContent-Length: \(size)\r\nConnection: close\r\n\r\n".utf8) + [UInt8](repeating: 0x41, count: size))
        defer { server.stop() }
        let response = try Self.client(port: server.port).get(resource: Self.name)
        #expect(response.answer?.body.count == size)
    }

    @Test("a create sends PUT to the encoded name with If-None-Match: *, the content type and the body; a weak ETag comes back verbatim")
    func createOnTheWire() throws {
        let server = try CannedHTTPServer(response: "HTTP/1.1 201 Created\r\nETag: W/\"v1\"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        defer { server.stop() }
        let response = try Self.client(port: server.port).put(resource: Self.name, body: Self.body, condition: .create)
        #expect(response.outcome == .succeeded(etag: "W/\"v1\""))
        #expect(response.answer?.etag == "W/\"v1\"")
        let request = try #require(server.requests.first)
        let lines = request.components(separatedBy: "\r\n")
        #expect(lines.first == "PUT /cal/a%25b%40c.ics HTTP/1.1")
        #expect(lines.contains("If-None-Match: *"))
        #expect(lines.contains("Content-Type: text/calendar; charset=utf-8"))
        #expect(lines.contains("User-Agent: reservoir"))
        #expect(!lines.contains { $0.lowercased().hasPrefix("expect:") })
        #expect(!lines.contains { $0.lowercased().hasPrefix("authorization:") })
        #expect(request.hasSuffix("\r\n\r\n" + Self.body))
    }

    @Test("a replacement and a delete send If-Match with the tag as it came")
    func ifMatchOnTheWire() throws {
        let server = try CannedHTTPServer(response: "HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n")
        defer { server.stop() }
        let client = try Self.client(port: server.port)
        #expect(client.put(resource: Self.name, body: Self.body, condition: .replace(etag: "\"3-abc\"")).outcome == .succeeded(etag: nil))
        #expect(client.delete(resource: Self.name, etag: "\"3-abc\"").outcome == .succeeded(etag: nil))
        #expect(client.put(resource: Self.name, body: Self.body, condition: .unconditional).outcome == .succeeded(etag: nil))
        let requests = server.requests.map { $0.components(separatedBy: "\r\n") }
        #expect(requests.count == 3)
        #expect(requests.first?.first == "PUT /cal/a%25b%40c.ics HTTP/1.1")
        #expect(requests.first?.contains("If-Match: \"3-abc\"") == true)
        #expect(requests.dropFirst().first?.first == "DELETE /cal/a%25b%40c.ics HTTP/1.1")
        #expect(requests.dropFirst().first?.contains("If-Match: \"3-abc\"") == true)
        #expect(requests.last?.contains { $0.hasPrefix("If-") } == false)
    }

    @Test("an entity tag with a line break is never sent")
    func headerInjection() throws {
        let server = try CannedHTTPServer(response: "HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n")
        defer { server.stop() }
        let response = try Self.client(port: server.port).put(
            resource: Self.name, body: Self.body, condition: .replace(etag: "\"x\"\r\nX-Injected: 1"))
        #expect(response == .failed(.invalidRequest("")))
        #expect(server.requests.isEmpty)
    }

    @Test("5xx answers are server errors worth retrying; redirects are not followed")
    func serverError() throws {
        let unavailable = try CannedHTTPServer(response: "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        defer { unavailable.stop() }
        let response = try Self.client(port: unavailable.port).get(resource: Self.name)
        #expect(response.outcome == .serverError(status: 503))
        #expect(response.outcome.isTransient)

        let moved = try CannedHTTPServer(
            response: "HTTP/1.1 301 Moved Permanently\r\nLocation: http://example.invalid/\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        defer { moved.stop() }
        let redirected = try Self.client(port: moved.port).get(resource: Self.name)
        #expect(redirected.outcome == .refused(status: 301))
        #expect(moved.requests.count == 1)
    }
}

@Suite("One connection for a client's requests")
struct CalDAVKeepAliveTests {
    @Test("three requests of one client share one kept-alive connection")
    func keepAlive() throws {
        let server = try CannedHTTPServer(
            response: "HTTP/1.1 200 OK\r\nETag: \"1\"\r\nContent-Length: 2\r\n\r\nok", keepAlive: true)
        defer { server.stop() }
        let client = try CalDAVTransportTests.client(port: server.port)
        for _ in 0..<3 {
            #expect(client.get(resource: CalDAVTransportTests.name).outcome == .succeeded(etag: "\"1\""))
        }
        #expect(server.requests.count == 3)
        #expect(server.connections == 1)
    }
}
