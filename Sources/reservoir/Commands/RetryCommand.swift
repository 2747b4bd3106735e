import ArgumentParser
import CommandCore
import EventStore
import JSON

struct RetryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retry",
        abstract: "Record the messages kept after a passing failure (DNS, store, full disk), each once.",
        discussion: """
            The filter, ingest and scan keep a record of a message whose reservations could not \
            be recorded for a reason that passes: a DKIM key lookup that failed for now \
            (dkim=temperror), a store that could not be used, a full disk. retry reads each \
            pending record of the retry spool ($XDG_STATE_HOME/reservoir/retry, or retry-spool) \
            once: a record whose reservations the store applied is removed, one that fails again \
            for a passing reason stays, one that cannot succeed moves to failed/ with its reason. \
            Every scan does this first.

            Exit status: 0 when no record stayed, 75 (EX_TEMPFAIL) when some stayed for a later \
            run, 75 as well when the store cannot be opened (the records are left as they are), \
            78 when its directory does not exist (--create makes it).

            Example (cron, hourly):
              reservoir retry
            """)

    @OptionGroup var recording: RecordingOptions
    @OptionGroup var retry: RetryOptions

    @Flag(name: .customLong("json"), help: "Print one JSON object: the spool and each record's outcome.")
    var json = false

    func run() throws {
        guard let top = retry.spool else {
            throw CommandFailure.configuration("no retry spool without a home directory (HOME is unset, relative or /): give --retry-spool DIRECTORY")
        }
        // A site account's records are in its own spool and go into its own bookings: with
        // --account, that account's alone; without, the implicit account's and then each
        // account's that has records, each through a store opened for that account.
        let account = try recording.storeOptions.selectedAccount()
        var runs = [(account: account, spool: top.forAccount(account))]
        if account.isImplicit { runs += top.accountSpools().filter { !$0.spool.pending().isEmpty } }
        var outcomes: [RetryOutcome] = []
        for run in runs {
            let runner = try CommandRunner(
                keys: recording.keys, policy: recording.policy, store: recording.storeOptions.choice(creating: recording.creation.create),
                clock: recording.clock, includePast: recording.past.includesPast,
                account: run.account, storeOptions: recording.storeOptions)
            let recorded = RetryRun(spool: run.spool, pipeline: runner.pipeline).run()
            outcomes += recorded
            if json { continue }
            for outcome in recorded {
                let record = run.account.isImplicit ? outcome.record : "\(run.account.address): \(outcome.record)"
                switch outcome.kind {
                case .applied:
                    Output.line("\(record): applied (\(Self.events(outcome.changed)) changed)" + (outcome.reason.map { "; " + $0 } ?? ""))
                case .kept: Output.line("\(record): kept for a later run: \(outcome.reason ?? "")")
                case .failed: Output.line("\(record): failed, moved to failed/: \(outcome.reason ?? "")")
                }
            }
        }
        let spool = runs[0].spool
        if json {
            let records: [JSONValue] = outcomes.map { outcome in
                var object: [(String, JSONValue)] = [("record", .string(outcome.record)), ("outcome", .string(outcome.kind.rawValue))]
                if !outcome.account.isImplicit { object.append(("account", .string(outcome.account.address))) }
                object.append(("changed", .number(Double(outcome.changed))))
                if let reason = outcome.reason { object.append(("reason", .string(reason))) }
                return .object(JSONObject(pairs: object))
            }
            let pending = runs.map { $0.spool.pending().count }.reduce(0, +)
            let failed = runs.map { $0.spool.failed().count }.reduce(0, +)
            Output.line(
                JSONValue.object(
                    JSONObject(pairs: [
                        ("spool", .string(spool.directory)), ("records", .array(records)),
                        ("pending", .number(Double(pending))), ("failed", .number(Double(failed))),
                    ])
                ).serialized())
        } else {
            Output.line(Self.summary(outcomes, spool: spool))
        }
        if outcomes.contains(where: { $0.kind == .kept }) { throw ExitStatus(75) }
    }

    static func events(_ n: Int) -> String { n == 1 ? "1 event" : "\(n) events" }

    static func summary(_ outcomes: [RetryOutcome], spool: RetrySpool) -> String {
        let count = { (kind: RetryOutcome.Kind) in outcomes.filter { $0.kind == kind }.count }
        let records = { (n: Int) in n == 1 ? "1 record" : "\(n) records" }
        return "retry: \(records(outcomes.count)) in \(spool.directory): \(count(.applied)) applied, \(count(.kept)) kept, \(count(.failed)) failed"
    }
}
