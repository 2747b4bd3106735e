import ArgumentParser
import CommandCore
import Delivery
import Pipeline

struct FilterCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "filter",
        abstract: "Filter hook: the message on stdin, the same message on stdout with results added.",
        discussion: """
            Adds an RFC 8601 Authentication-Results field and one X-Reservation field per \
            reservation at the top, removes such fields a sender forged (on every path), records \
            trusted reservations in the store, and changes nothing else. Fail-open: on an error the \
            message goes out with nothing added, when the time budget runs out with a \
            dkim=temperror result, exit status 0; only a failure to read stdin or write stdout \
            exits 75 (EX_TEMPFAIL) so the MTA retries.

            procmail:   :0 fw
                        | reservoir filter --allowed-domains $HOME/.config/reservoir/allowed-domains
            See docs/HOOKS.md for Sieve and Postfix.
            """)

    @OptionGroup var keys: KeyOptions
    @OptionGroup var policy: PolicyOptions
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var clock: ClockOptions

    @Option(name: .long(.authservID), help: ArgumentHelp(.authservID))
    var authservID: String?

    @Option(name: .long(.timeout), help: ArgumentHelp(.timeout))
    var timeout: Int?

    @Flag(name: .long(.noStore), help: ArgumentHelp(.noStore))
    var noStore = false

    @OptionGroup var past: PastOptions
    @OptionGroup var calendarOptions: CalendarOptions

    func run() throws {
        var given = keys.given.merging(policy.given) { $1 }.merging(storeOptions.given) { $1 }.merging(calendarOptions.given) { $1 }
        if let now = clock.now { given[.now] = .text(now) }
        if let authservID { given[.authservID] = .text(authservID) }
        if let timeout { given[.timeout] = .number(timeout) }
        if noStore { given[.noStore] = .flag(true) }
        if past.includePastFlag { given[.includePast] = .flag(true) }
        // An invalid configuration file does not stop the hook: it passes mail through and says so.
        let configuration = ConfigurationLoad.process
        try FilterHook(
            settings: EffectiveSettings(file: configuration.file, commandLine: given), configurationProblem: configuration.problem
        ).run()
    }
}

struct IngestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ingest",
        abstract: "Record a message's trusted reservations; print nothing (pipe/execute hooks).",
        discussion: """
            Like filter without the output. Exit status per sysexits.h: 0 done (also for mail \
            without reservations or malformed mail), 66 unreadable input, 75 the store failed \
            (the MTA should retry).
            """)

    @Argument(help: ArgumentHelp("A message file, or - for standard input.", valueName: "file"))
    var file: String = "-"

    @OptionGroup var keys: KeyOptions
    @OptionGroup var policy: PolicyOptions
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var clock: ClockOptions
    @OptionGroup var past: PastOptions
    @OptionGroup var calendarOptions: CalendarOptions

    func run() throws {
        let runner = try CommandRunner(keys: keys, policy: policy, store: storeOptions.choice, clock: clock, includePast: past.includePast)
        let report = runner.pipeline.process(try runner.read(file))
        try runner.check(report)
        // Recorded first; the push is bounded, and what it leaves waits for `reservoir sync`.
        if let store = runner.pipeline.store, let pusher = try CalendarPusher(calendarOptions.settings, store: store, clock: { runner.pipeline.now })
        {
            pusher.push(
                CalendarPusher.changedKeys(report), deadline: .after(milliseconds: CalendarPusher.hookPushMilliseconds), command: "ingest")
        }
    }
}
