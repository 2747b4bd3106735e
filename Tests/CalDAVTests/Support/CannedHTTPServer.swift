import Foundation

/// A server on 127.0.0.1 that answers every connection with the same bytes (an HTTP response,
/// or garbage) and keeps the requests it read, so tests see what the client sent.
final class CannedHTTPServer: @unchecked Sendable {  // `lock` guards `received`; the rest is immutable
    let port: Int
    private let descriptor: Int32
    private let response: [UInt8]
    private let lock = NSLock()
    private var received: [String] = []
    private var accepted = 0
    private let keepAlive: Bool
    private let stopped = DispatchSemaphore(value: 0)

    /// `keepAlive`: answer every request read on a connection until the client closes it
    /// (the response must then carry its length); otherwise one request per connection.
    init(response: [UInt8], keepAlive: Bool = false) throws {
        (descriptor, port) = try LoopbackSocket.listen()
        self.response = response
        self.keepAlive = keepAlive
        Thread { [self] in
            serve()
            stopped.signal()
        }.start()
    }

    convenience init(response text: String, keepAlive: Bool = false) throws {
        try self.init(response: Array(text.utf8), keepAlive: keepAlive)
    }

    /// How many connections the server accepted.
    var connections: Int { lock.withLock { accepted } }

    /// The requests read so far (request line, header and body), in order.
    var requests: [String] { lock.withLock { received } }

    /// Stops accepting (shutdown wakes the blocked accept) and closes the socket.
    func stop() {
        shutdown(descriptor, Int32(SHUT_RDWR))
        stopped.wait()
        close(descriptor)
    }

    private func serve() {
        while true {
            let client = accept(descriptor, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            var timeout = timeval(tv_sec: 5, tv_usec: 0)
            setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            lock.withLock { accepted += 1 }
            repeat {
                let request = Self.readRequest(client)
                if request.isEmpty { break }
                lock.withLock { received.append(request) }
                var sent = 0
                while sent < response.count {
                    let count = response[sent...].withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    if count <= 0 { break }
                    sent += count
                }
            } while keepAlive
            shutdown(client, Int32(SHUT_WR))
            close(client)
        }
    }

    /// The header up to the empty line, then as many body bytes as Content-Length says.
    private static func readRequest(_ client: Int32) -> String {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        var expected: Int?
        while expected.map({ bytes.count < $0 }) ?? true {
            let count = recv(client, &buffer, buffer.count, 0)
            if count <= 0 { break }
            bytes += buffer[..<count]
            if expected == nil, let end = headerEnd(bytes) {
                let header = String(decoding: bytes[..<end], as: UTF8.self).lowercased()
                let length =
                    header.components(separatedBy: "\r\n").first { $0.hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                expected = end + 4 + length
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func headerEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4) where bytes[index..<index + 4].elementsEqual([13, 10, 13, 10]) { return index }
        return nil
    }
}
