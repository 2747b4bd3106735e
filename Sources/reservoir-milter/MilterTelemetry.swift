import CMilter
import CommandCore
import Glibc
import ServiceLog
import Telemetry

/// What the milter tells: its log (``ServiceLog``: a line per message at info, errors at
/// error) and, with `--metrics`, its counters (docs/SITE.md, "Operating").
enum MilterTelemetry {
    /// Set once in `main` before libmilter's threads start, read only afterwards.
    nonisolated(unsafe) static var log = ServiceLog(program: "reservoir milter", destination: ServiceLog.destination(syslog: false))
    nonisolated(unsafe) static var metrics: ServiceMetrics?

    static func setUp(_ options: ServiceOptions) {
        log = ServiceLog(program: "reservoir milter", level: options.level, destination: ServiceLog.destination(syslog: options.syslog))
        // The session's error lines ("milter: …") are the log's.
        Output.errorSink = { text in
            MilterTelemetry.log.error(text.hasPrefix("milter: ") ? String(text.dropFirst("milter: ".count)) : text)
        }
    }

    /// Listens on `--metrics` before the milter reports ready; nil without the option.
    static func startMetrics(_ options: ServiceOptions, hook: FilterHook) throws(MetricsServerError) {
        guard let address = options.metrics else { return }
        let metrics = ServiceMetrics()
        for kind in MilterOutcome.Kind.allCases { metrics.count("messages", messagesHelp, label: ("outcome", kind.rawValue), by: 0) }
        for verdict in ["trusted", "pending", "untrusted"] { metrics.count("reservations", reservationsHelp, label: ("verdict", verdict), by: 0) }
        let store = hook.noStore ? nil : hook.store
        let noStore = hook.noStore
        let spool = hook.retrySpool
        let server = try MetricsServer(
            address: address, registry: metrics.registry,
            health: { noStore ? nil : StoreProbe.problem(store) },
            refresh: {
                metrics.set(
                    "retry_spool_messages", "Messages waiting in the retry spool, over every account.",
                    to: Double(RetrySpool.locate(spool)?.totalUsage().count ?? 0))
                if !noStore, let waiting = StoreProbe.copiesWaiting(store) {
                    metrics.set("calendar_copies_waiting", "Calendar copies not yet pushed, over every account of the store.", to: Double(waiting))
                }
            })
        self.metrics = metrics
        server.start()
        log.info("metrics on http://\(address)/metrics")
    }

    static let messagesHelp = "Messages ended, by outcome."
    static let reservationsHelp = "Reservations found, by the site's verdict."

    /// The name of the MTA's queue id macro, `{i}`, for `smfi_getsymval`.
    nonisolated(unsafe) static let queueMacro = strdup("i")

    /// What is done at a message's end, with the queue id the MTA gave it: Postfix sends `{i}`
    /// at the end of the message (`milter_end_of_data_macros`). Not a closure of `main`'s
    /// callbacks, which Swift would check for the main actor on libmilter's threads.
    static func finisher(_ context: OpaquePointer?) -> @Sendable (MilterOutcome) -> Void {
        let queueID = smfi_getsymval(context, queueMacro).map { String(cString: $0) }
        return { outcome in
            var outcome = outcome
            outcome.queueID = queueID
            finished(outcome)
        }
    }

    /// A message's end: its line, and its counts.
    static func finished(_ outcome: MilterOutcome) {
        log.info(outcome.line)
        guard let metrics else { return }
        metrics.count("messages", messagesHelp, label: ("outcome", outcome.kind.rawValue))
        let untrusted = outcome.found - outcome.trusted - outcome.pending
        for (verdict, count) in [("trusted", outcome.trusted), ("pending", outcome.pending), ("untrusted", untrusted)] where count > 0 {
            metrics.count("reservations", reservationsHelp, label: ("verdict", verdict), by: count)
        }
        for code in outcome.refusals { metrics.count("refusals", "Messages refused, by the stable refusal code.", label: ("code", code)) }
        for seconds in outcome.storeSeconds {
            metrics.observe("store", "Time one account's recording took: opening its store and writing.", seconds: seconds)
        }
    }
}
