import ArgumentParser
import CommandCore
import Delivery
import EventStore
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

            In ~/.procmailrc, the options in ~/.config/reservoir/config.toml:
              :0 fw
              | reservoir-filter

            See docs/HOOKS.md for Sieve (Dovecot), Postfix and Exim.
            """)

    @OptionGroup var keys: KeyOptions
    @OptionGroup var policy: PolicyOptions
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var clock: ClockOptions

    @OptionGroup var hook: MessageHookOptions

    @OptionGroup var past: PastOptions
    @OptionGroup var calendarOptions: CalendarOptions
    @OptionGroup var noCalendar: NoCalendarOption
    @OptionGroup var retry: RetryOptions
    @OptionGroup var pending: PendingDaysOption

    func run() throws {
        let given = givenOptions(keys, policy, storeOptions, calendarOptions, noCalendar, retry, pending, clock, hook, past)
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
            Like filter without the output. Every setting is checked before anything is \
            recorded. Exit status per sysexits.h: 0 done (also for mail without reservations or \
            malformed mail, and for a message kept for reservoir retry after a DNS temporary \
            failure, a store failure or a store directory that does not exist yet), 64 a \
            malformed setting (a --calendar that is no calendar), 66 unreadable input, 73 a \
            calendar's netrc or CA file that cannot be used, 75 the store failed and the message \
            could not be kept for retry (the MTA should retry), 78 a store URL of no known kind.
            """)

    @Argument(help: ArgumentHelp("A message file, or - for standard input.", valueName: "file"))
    var file: String = "-"

    @OptionGroup var recording: RecordingOptions
    @OptionGroup var calendarOptions: CalendarOptions
    @OptionGroup var noCalendar: NoCalendarOption

    @OptionGroup var retry: RetryOptions
    @OptionGroup var pending: PendingDaysOption

    func run() throws {
        // Every setting is checked before anything is recorded; the calendars without being
        // opened (no libcurl for mail that changes nothing).
        let account = try recording.storeOptions.selectedAccount()
        let calendars = calendarOptions.settings(noCalendar, for: account)
        try CalendarPusher.check(calendars)
        let runner = try CommandRunner(
            keys: recording.keys, policy: recording.policy, store: .none, clock: recording.clock, includePast: recording.past.includesPast,
            account: account, pending: pending,
            storeOptions: recording.storeOptions)
        let raw = try runner.read(file)
        var report = runner.pipeline.analyze(raw)
        // The store is opened for a trusted reservation only; a store that cannot be used then
        // (locked, unreachable, read-only, a full disk, its directory not made yet) is kept for
        // `reservoir retry`. A store URL of no known kind stays a configuration error.
        var opened: (any EventStore)?
        var storeProblem: String?
        if report.hasReservationsToKeep {
            do {
                let store = try CommandRunner.openStore(
                    at: recording.storeOptions.location, use: .record(createDirectories: recording.creation.create), account: account)
                runner.pipeline.record(&report, into: store)
                opened = store
            } catch let failure as CommandFailure where failure.keepsForRetry {
                storeProblem = failure.description
            }
        }
        if let transient = TransientFailure.reason(report, storeProblem: storeProblem) {
            // Kept: exit 0, the record is the retry. Not kept: 75, the MTA keeps the message.
            guard let spool = retry.spool?.forAccount(account) else {
                Output.error("ingest: \(transient); not kept for retry (no retry spool without a home directory; set retry-spool)")
                throw ExitStatus(75)
            }
            switch spool.keep(raw) {
            case .kept(let record):
                Output.error("ingest: \(transient) (kept for reservoir retry as \(record))")
                return
            case .refused(let why):
                Output.error("ingest: \(transient); not kept for retry: \(why)")
                throw ExitStatus(75)
            }
        }
        // Recorded first; the push is bounded, and what it leaves waits for `reservoir sync`.
        if let store = opened, let pusher = try CalendarPusher(calendars, store: store, clock: runner.pipeline.clock) {
            pusher.push(
                CalendarPusher.changedKeys(report), deadline: .after(milliseconds: CalendarPusher.hookPushMilliseconds), command: "ingest")
        }
    }
}
