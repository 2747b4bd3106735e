import Glibc
package import Prometheus
package import ServiceLog

/// `--metrics ADDRESS`: `GET /metrics` in the Prometheus text exposition format 0.0.4 and
/// `GET /healthz`, over a minimal blocking HTTP/1.1 (RFC 9112) responder on threads of its own,
/// so it needs no event loop: the milter's threads are libmilter's, and a scrape never waits
/// for mail. Each connection answers one request and closes (`Connection: close`).
///
/// Limits (``Limits``): a request head of at most 8 KiB (else 431), at most 8 connections
/// answered at once (more get 503 at once), 5 s to read a request and to write its answer.
package final class MetricsServer: @unchecked Sendable {
    package enum Limits {
        /// The request line and fields; a longer head is answered 431 (RFC 6585 §5).
        package static let requestHeadBytes = 8192
        /// Connections answered at once; further ones get 503 and are closed.
        package static let connections = 8
        /// SO_RCVTIMEO and SO_SNDTIMEO of each connection.
        package static let timeoutSeconds = 5
    }

    /// Nil while the program is healthy, else why not (the body of the 503).
    package typealias Health = @Sendable () -> String?

    let registry: PrometheusCollectorRegistry
    let health: Health
    /// Run before each exposition: the gauges read at scrape time (spool depth, copies waiting).
    let refresh: @Sendable () -> Void
    private let listener: Int32
    private let active = ActiveCount()
    package let address: MetricsAddress

    /// Binds and listens at once, so a port in use stops the program's start.
    package init(
        address: MetricsAddress, registry: PrometheusCollectorRegistry, health: @escaping Health,
        refresh: @escaping @Sendable () -> Void = {}
    ) throws(MetricsServerError) {
        self.address = address
        self.registry = registry
        self.health = health
        self.refresh = refresh
        var hints = addrinfo()
        hints.ai_flags = AI_NUMERICHOST | AI_PASSIVE
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(address.host, String(address.port), &hints, &found) == 0, let info = found else {
            throw MetricsServerError("--metrics \(address): not an IP address")
        }
        defer { freeaddrinfo(found) }
        let fd = socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw MetricsServerError("--metrics \(address): \(String(cString: strerror(errno)))") }
        var on: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        guard bind(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0, listen(fd, 16) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw MetricsServerError("cannot listen on --metrics \(address): \(reason)")
        }
        listener = fd
    }

    /// Starts accepting on a thread of its own; false when no thread could be made.
    @discardableResult
    package func start() -> Bool {
        Thread.spawn { [self] in acceptLoop() }
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else {
                if errno == EINTR || errno == ECONNABORTED || errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM {
                    if errno != EINTR && errno != ECONNABORTED { usleep(100_000) }
                    continue
                }
                return
            }
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            var timeout = timeval(tv_sec: Limits.timeoutSeconds, tv_usec: 0)
            _ = setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            _ = setsockopt(client, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            guard active.enter(limit: Limits.connections) else {
                Self.send(client, Self.answer(status: 503, body: "too many connections\n"))
                close(client)
                continue
            }
            let started = Thread.spawn { [self] in
                serve(client)
                Self.linger(client)
                close(client)
                active.leave()
            }
            if !started {
                active.leave()
                close(client)
            }
        }
    }

    private func serve(_ client: Int32) {
        var head: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 2048)
        let end: [UInt8] = [13, 10, 13, 10]
        while !head.ends(containing: end) {
            guard head.count < Limits.requestHeadBytes else {
                Self.send(client, Self.answer(status: 431, body: "request head over \(Limits.requestHeadBytes) bytes\n"))
                return
            }
            let n = chunk.withUnsafeMutableBytes { recv(client, $0.baseAddress, min($0.count, Limits.requestHeadBytes - head.count + 4), 0) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return }
            head += chunk[..<n]
        }
        Self.send(client, respond(to: head))
    }

    /// The answer to a request head (its bytes up to the empty line).
    package func respond(to head: [UInt8]) -> [UInt8] {
        let firstLine = head.split(separator: 13, maxSplits: 1).first.map { String(decoding: $0, as: UTF8.self) } ?? ""
        let parts = firstLine.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[2].hasPrefix("HTTP/1.") else { return Self.answer(status: 400, body: "bad request\n") }
        let method = parts[0]
        guard method == "GET" || method == "HEAD" else {
            return Self.answer(status: 405, body: "only GET and HEAD\n", extra: "Allow: GET, HEAD\r\n")
        }
        let path = parts[1].split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let answer: [UInt8]
        switch path {
        case "/metrics":
            refresh()
            var body: [UInt8] = []
            registry.emit(into: &body)
            // Text exposition format 0.0.4 (Prometheus's "Exposition formats").
            answer = Self.answer(status: 200, bytes: body, type: "text/plain; version=0.0.4; charset=utf-8")
        case "/healthz":
            if let problem = health() {
                answer = Self.answer(status: 503, body: ServiceLog.oneLine(problem, limit: 1024) + "\n")
            } else {
                answer = Self.answer(status: 200, body: "ok\n")
            }
        default:
            answer = Self.answer(status: 404, body: "not found: only /metrics and /healthz\n")
        }
        guard method == "HEAD", let split = answer.range(of: [13, 10, 13, 10]) else { return answer }
        return Array(answer[..<split.upperBound])
    }

    static func answer(status: Int, body: String, extra: String = "") -> [UInt8] {
        answer(status: status, bytes: Array(body.utf8), type: "text/plain; charset=utf-8", extra: extra)
    }

    static func answer(status: Int, bytes: [UInt8], type: String, extra: String = "") -> [UInt8] {
        let reason =
            switch status {
            case 200: "OK"
            case 400: "Bad Request"
            case 404: "Not Found"
            case 405: "Method Not Allowed"
            case 431: "Request Header Fields Too Large"
            default: "Service Unavailable"
            }
        let head = "HTTP/1.1 \(status) \(reason)\r\nContent-Type: \(type)\r\nContent-Length: \(bytes.count)\r\n\(extra)Connection: close\r\n\r\n"
        return Array(head.utf8) + bytes
    }

    /// Ends the answer and reads what the client still sends, up to 64 KiB, before closing: a
    /// close with unread bytes resets the connection, which can discard the answer before the
    /// client reads it (RFC 9112 §9.6).
    static func linger(_ fd: Int32) {
        shutdown(fd, Int32(SHUT_WR))
        var chunk = [UInt8](repeating: 0, count: 4096)
        var drained = 0
        while drained < 65536 {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { return }
            drained += n
        }
    }

    static func send(_ fd: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            if n > 0 { offset += n } else if n < 0, errno == EINTR { continue } else { return }
        }
    }
}

package struct MetricsServerError: Error, CustomStringConvertible {
    package var description: String
    init(_ description: String) { self.description = description }
}

/// Connections being answered.
private final class ActiveCount: @unchecked Sendable {
    private var count = 0
    private var lock = pthread_mutex_t()

    init() { pthread_mutex_init(&lock, nil) }

    func enter(limit: Int) -> Bool {
        pthread_mutex_lock(&lock)
        defer { pthread_mutex_unlock(&lock) }
        guard count < limit else { return false }
        count += 1
        return true
    }

    func leave() {
        pthread_mutex_lock(&lock)
        count -= 1
        pthread_mutex_unlock(&lock)
    }
}

/// A detached POSIX thread running a closure.
enum Thread {
    static func spawn(_ body: @escaping @Sendable () -> Void) -> Bool {
        final class Box {
            let body: @Sendable () -> Void
            init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        }
        var thread = pthread_t()
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        let made = pthread_create(
            &thread, nil,
            { raw in
                guard let raw else { return nil }
                Unmanaged<Box>.fromOpaque(raw).takeRetainedValue().body()
                return nil
            }, box)
        guard made == 0 else {
            Unmanaged<Box>.fromOpaque(box).release()
            return false
        }
        pthread_detach(thread)
        return true
    }
}

extension Array where Element == UInt8 {
    fileprivate func ends(containing pattern: [UInt8]) -> Bool { range(of: pattern) != nil }

    fileprivate func range(of pattern: [UInt8]) -> Range<Int>? {
        guard count >= pattern.count else { return nil }
        for start in 0...(count - pattern.count) where self[start..<(start + pattern.count)].elementsEqual(pattern) {
            return start..<(start + pattern.count)
        }
        return nil
    }
}
