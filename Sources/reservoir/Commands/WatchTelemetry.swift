import CommandCore
import ServiceLog
import Telemetry

/// What a continuous `reservoir watch` tells: each mailbox's connection state in its log (a
/// line when it connects, enters IDLE, breaks and waits to reconnect, or is refused its login)
/// and, with `--metrics`, the connections by state (docs/SITE.md, "Operating").
enum WatchTelemetry {
    /// A mailbox's connection, the `state` label of `reservoir_imap_connections`.
    enum State: String, CaseIterable {
        /// Connected and reading.
        case connected
        /// Connected and waiting in IDLE (RFC 2177).
        case idle
        /// Without a connection between reads: the server offers no IDLE (`--interval`).
        case polling
        /// The connection broke or could not be made; waiting out the back-off.
        case reconnecting
        /// The server refused the login; retried with the back-off, as a password may be fixed.
        case authenticationFailed = "authentication-failed"
    }

    /// Set once in `run` before the first connection; read only afterwards (one thread).
    nonisolated(unsafe) static var log = ServiceLog(program: "reservoir watch", destination: ServiceLog.destination(syslog: false))
    nonisolated(unsafe) static var metrics: ServiceMetrics?

    static func setUp(_ options: ServiceOptions, store: String?) throws(MetricsServerError) {
        log = ServiceLog(program: "reservoir watch", level: options.level, destination: ServiceLog.destination(syslog: options.syslog))
        guard let address = options.metrics else { return }
        let metrics = ServiceMetrics()
        for state in State.allCases { metrics.set("imap_connections", help, label: ("state", state.rawValue), to: 0) }
        let server = try MetricsServer(address: address, registry: metrics.registry, health: { StoreProbe.problem(store) })
        self.metrics = metrics
        server.start()
        log.info("metrics on http://\(address)/metrics")
    }

    static let help = "Watched mailboxes, by the state of their connection."

    /// The line of a change of state: `jane@example.org imaps://jane@mail.example/INBOX: idle`.
    static func line(_ mailbox: String, _ state: State, detail: String? = nil) -> String {
        let said: String
        switch state {
        case .connected: said = "connected"
        case .idle: said = "idle (IDLE, RFC 2177)"
        case .polling: said = "read; no IDLE offered, next read after --interval"
        case .reconnecting: said = "reconnecting"
        case .authenticationFailed: said = "authentication failed"
        }
        return "\(mailbox): \(said)" + (detail.map { ": " + $0 } ?? "")
    }

    static func said(_ mailbox: String, _ state: State, detail: String? = nil) {
        let priority: LogLevel =
            switch state {
            case .authenticationFailed: .error
            case .reconnecting: .warning
            default: .info
            }
        log.log(priority, line(mailbox, state, detail: detail))
    }

    /// The gauges of the mailboxes' states, after a round.
    static func count(_ states: [State]) {
        guard let metrics else { return }
        for state in State.allCases {
            metrics.set("imap_connections", help, label: ("state", state.rawValue), to: Double(states.filter { $0 == state }.count))
        }
    }
}
