import CommandCore
import Feed
import Glibc
import ServiceLog
import Synchronization
import Telemetry

/// What `reservoir serve` tells: a line per request (method, path without its token, status,
/// bytes, milliseconds) and, with `--metrics`, its request counts (docs/SITE.md, "Operating").
enum ServeTelemetry {
    /// Set once in `main` before the server starts, read only afterwards.
    nonisolated(unsafe) static var log = ServiceLog(program: "reservoir serve", destination: ServiceLog.destination(syslog: false))
    nonisolated(unsafe) static var metrics: ServiceMetrics?
    /// Whether the first path segment is a token (`--token-file`), and is never logged; a
    /// reload (SIGHUP) may change it while requests are answered.
    static var tokenInPath: Bool {
        get { tokens.load(ordering: .relaxed) }
        set { tokens.store(newValue, ordering: .relaxed) }
    }
    private static let tokens = Atomic<Bool>(false)

    static func setUp(_ options: ServiceOptions) {
        log = ServiceLog(program: "reservoir serve", level: options.level, destination: ServiceLog.destination(syslog: options.syslog))
    }

    static func startMetrics(_ options: ServiceOptions, store: String?) throws(MetricsServerError) {
        guard let address = options.metrics else { return }
        let metrics = ServiceMetrics()
        let server = try MetricsServer(address: address, registry: metrics.registry, health: { StoreProbe.problem(store) })
        self.metrics = metrics
        server.start()
        log.info("metrics on http://\(address)/metrics")
    }

    /// The segments the server's own paths are made of (the feed, the page's forms); with
    /// tokens in use every other segment is logged as `…`, since any may be a token (a path
    /// such as `/TOKEN/../OTHER-TOKEN/calendar.ics` carries two).
    static let namedSegments: Set<Substring> = ["", ".", "..", "calendar.ics", "add", "allow", "deny"]

    /// The path as logged: without its query, and with tokens in use, each segment that is not
    /// one of ``namedSegments`` as `…`.
    static func shownPath(_ target: String, tokenInPath: Bool) -> String {
        let path = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? "/"
        guard tokenInPath else { return path }
        return path.split(separator: "/", omittingEmptySubsequences: false)
            .map { namedSegments.contains($0) ? String($0) : "\u{2026}" }
            .joined(separator: "/")
    }

    /// One request's line: `GET /…/calendar.ics status=200 bytes=5120 ms=3`.
    static func requestLine(method: String, target: String, status: Int, bytes: Int?, milliseconds: Int, tokenInPath: Bool) -> String {
        "\(method) \(shownPath(target, tokenInPath: tokenInPath)) status=\(status) bytes=\(bytes.map(String.init) ?? "-") ms=\(milliseconds)"
    }

    static func request(method: String, target: String, status: Int, bytes: Int?, since start: UInt64) {
        let milliseconds = Int((MilterOutcome.monotonicNanoseconds() - start) / 1_000_000)
        log.info(requestLine(method: method, target: target, status: status, bytes: bytes, milliseconds: milliseconds, tokenInPath: tokenInPath))
        metrics?.count("http_requests", "Requests answered, by status code.", label: ("status", String(status)))
    }
}
