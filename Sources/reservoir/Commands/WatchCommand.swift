import ArgumentParser
import CommandCore
import EventStore
import Glibc
import IMAP
import Mailbox
import Output
import Pipeline

struct WatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Read new mail from IMAP mailboxes (read-only) into the store and the calendars.",
        discussion: """
            Each mailbox is imaps://USER@HOST[:PORT]/MAILBOX; the password comes from the netrc \
            file (machine HOST login USER password PASSWORD; mode 0600 or stricter). The mailbox \
            is opened with EXAMINE and messages read with UID FETCH BODY.PEEK[]: nothing is \
            marked read, moved or deleted. Every message goes through the same checks as one \
            given to ingest or scan (DKIM on the bytes the server keeps). The store remembers \
            each mailbox's UIDVALIDITY and the highest UID read, so the next run reads only \
            newer mail; a changed UIDVALIDITY reads everything again, which changes nothing \
            already recorded. With --once it reads what is new and exits (cron, systemd \
            timers); otherwise it reads again every --interval seconds, waiting longer after \
            a failure.

            Exit status (with --once; a mailbox that fails does not stop the others, the first \
            failure's status is the run's): 0 done, 64 a malformed mailbox URL, 66 no such \
            mailbox (EXAMINE refused), 69 the server's certificate is not trusted (or libcurl \
            is missing), 73 the netrc or CA file cannot be used, 75 the server could not be \
            reached or did not answer in time, or the store failed, 76 the server answered \
            something that is not IMAP, 77 the login was refused (wrong password).

            Examples:
              reservoir watch --once imaps://jane@imap.fastmail.com/INBOX
              reservoir watch imaps://jane@imap.example.org/INBOX --interval 120
            """)

    @Argument(
        help: ArgumentHelp("Mailboxes: imaps://USER@HOST[:PORT]/MAILBOX (default: watch = [...] in the configuration file).", valueName: "url"))
    var mailboxes: [String] = []

    /// The mailboxes named on the command line, else those of the configuration file's `watch`.
    var chosen: [String] { mailboxes.isEmpty ? ConfigurationLoad.process.file?.watch ?? [] : mailboxes }

    @Flag(name: .customLong("once"), help: "Read what is new once and exit.")
    var once = false

    @Option(
        name: .customLong("ca-file"),
        help: ArgumentHelp("Verify the IMAP server against the CA certificates in this PEM file instead of the system's.", valueName: "file"))
    var caFile: String?

    @Option(name: .customLong("interval"), help: ArgumentHelp("Seconds between reads without --once (default 60).", valueName: "seconds"))
    var interval: Int = WatchLimits.defaultIntervalSeconds

    @Option(
        name: .customLong("max-messages"),
        help: ArgumentHelp("Messages read per mailbox and run (default 500); the rest are read by the next run.", valueName: "n"))
    var maxMessages: Int = WatchLimits.defaultMessagesPerRun

    @Option(
        name: .customLong("imap-timeout"),
        help: ArgumentHelp("Seconds to wait for the server: connecting, logging in, each answer (default 60).", valueName: "seconds"))
    var imapTimeout: Int = IMAPLimits.defaultTimeoutMilliseconds / 1000

    @OptionGroup var keys: KeyOptions
    @OptionGroup var policy: PolicyOptions
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var creation: StoreCreationOptions
    @OptionGroup var clock: ClockOptions
    @OptionGroup var past: PastOptions
    @OptionGroup var calendarOptions: CalendarOptions
    @OptionGroup var noCalendar: NoCalendarOption

    @Flag(name: .customLong("json"), help: "Print one JSON object per message (JSON Lines).")
    var json = false

    @Flag(name: .customLong("explain"), help: "Show every note on each message.")
    var explain = false

    func validate() throws {
        guard !chosen.isEmpty else {
            throw ValidationError("name at least one mailbox: imaps://USER@HOST[:PORT]/MAILBOX, or watch = [...] in the configuration file")
        }
        for mailbox in chosen {
            do { _ = try IMAPMailboxURL(mailbox) } catch { throw ValidationError("\(error)") }
        }
        guard maxMessages >= 1 else { throw ValidationError("--max-messages must be at least 1") }
        guard (1...86_400).contains(interval) else { throw ValidationError("--interval must be from 1 to 86400 seconds") }
        guard (1...3_600).contains(imapTimeout) else { throw ValidationError("--imap-timeout must be from 1 to 3600 seconds") }
    }

    func run() throws {
        var urls: [IMAPMailboxURL] = []
        for text in chosen {
            do { urls.append(try IMAPMailboxURL(text)) } catch { throw ValidationError("\(error)") }
        }
        // Every setting is checked before anything is read: the account, the calendars, the store.
        let account = try storeOptions.account()
        let calendarSettings = calendarOptions.settings(noCalendar, for: account)
        let calendars = try CalendarPusher.open(calendarSettings)
        let runner = try CommandRunner(
            keys: keys, policy: policy, store: storeOptions.choice(creating: creation.create), clock: clock,
            includePast: past.includePast, account: account)
        guard let store = runner.pipeline.store, let state = store as? any IMAPStateStore else {
            throw CommandFailure.configuration("reservoir watch needs a store that keeps IMAP state (SQLite or PostgreSQL)")
        }
        let settings = IMAPSettings(
            caFile: caFile, netrcFile: calendarSettings.netrcFile, timeoutMilliseconds: imapTimeout * 1000)
        let renderer = BannerRenderer(style: BannerStyle.forStandardOutput(), explain: explain)
        var failures = 0
        while true {
            var summary = ScanSummary()
            var firstFailure: Int32?
            for url in urls {
                if let error = read(url, settings: settings, runner: runner, state: state, renderer: renderer, summary: &summary) {
                    Output.error("watch: \(url): \(error)")
                    firstFailure = firstFailure ?? Self.exitStatus(error.code)
                }
            }
            if summary.storeFailure == nil, let calendars {
                let pusher = try CalendarPusher(calendars, store: store, clock: { runner.pipeline.now })
                summary.calendar = .pushed(ScanCommand.push(pusher))
            } else if calendarSettings.skipped {
                summary.calendar = .skipped
            }
            if json { Output.line(BannerRenderer.json(summary)) } else { Output.write(renderer.render(summary)) }
            if let failure = summary.storeFailure { throw CommandFailure.store(failure) }
            if once {
                if let firstFailure { throw ExitStatus(firstFailure) }
                return
            }
            // After a failure the next try waits longer, doubling up to WatchLimits.maximumBackoffSeconds.
            failures = firstFailure == nil ? 0 : failures + 1
            let wait = failures == 0 ? interval : min(WatchLimits.maximumBackoffSeconds, interval << min(failures, 10))
            sleep(UInt32(wait))
        }
    }

    /// Reads what is new in one mailbox, recording the state after each message; the failure
    /// that stopped it, if one did.
    private func read(
        _ url: IMAPMailboxURL, settings: IMAPSettings, runner: CommandRunner, state: any IMAPStateStore, renderer: BannerRenderer,
        summary: inout ScanSummary
    ) -> IMAPError? {
        do {
            try readMailbox(url, settings: settings, runner: runner, state: state, renderer: renderer, summary: &summary)
            return nil
        } catch {
            return error
        }
    }

    private func readMailbox(
        _ url: IMAPMailboxURL, settings: IMAPSettings, runner: CommandRunner, state: any IMAPStateStore, renderer: BannerRenderer,
        summary: inout ScanSummary
    ) throws(IMAPError) {
        let key = url.description
        let connection = try IMAPConnection(url: url, settings: settings)
        let (validity, exists) = try connection.examine()
        let known: IMAPMailboxState?
        do { known = try state.imapMailboxState(key) } catch { throw IMAPError(.unreachable, "the event store failed: \(error)") }
        var last: Int64 = 0
        if let known {
            if known.uidValidity == validity {
                last = known.lastUID
            } else {
                // RFC 9051 §2.3.1.1: a new UIDVALIDITY means the old UIDs name nothing; every
                // message is read again, which the store's revision rules make change nothing.
                Output.error("watch: \(url): UIDVALIDITY changed (\(known.uidValidity) to \(validity)); reading every message again")
            }
        }
        let listed = exists == 0 ? [] : try connection.messages(after: last)
        var output = ""
        defer { Output.write(output) }
        for (uid, size) in listed.prefix(maxMessages) {
            let origin = "\(url);UIDVALIDITY=\(validity)/;UID=\(uid)"
            if size > Int64(WatchLimits.messageBytes) {
                Output.error("watch: \(origin): \(size) bytes, over the limit of \(WatchLimits.messageBytes); not read")
            } else if let bytes = try connection.message(uid: uid, limit: WatchLimits.messageBytes) {
                var report = runner.pipeline.analyze(RawMessage(bytes: bytes, origin: MessageOrigin(path: origin)))
                runner.pipeline.record(&report)
                summary.add(report)
                output += (json ? BannerRenderer.json(report) : renderer.render(report)) + "\n"
                // A message whose key lookup failed for now, or whose reservations the store
                // could not keep, is read again by the next run: the UID stays below it.
                if let transient = TransientFailure.reason(report) {
                    Output.error("watch: \(origin): \(transient); read again next run")
                    break
                }
            }
            last = uid
            do { try state.recordIMAPMailboxState(key, IMAPMailboxState(uidValidity: validity, lastUID: last)) } catch {
                throw IMAPError(.unreachable, "the event store failed: \(error)")
            }
        }
        if known?.uidValidity != validity && listed.isEmpty {
            do { try state.recordIMAPMailboxState(key, IMAPMailboxState(uidValidity: validity, lastUID: 0)) } catch {
                throw IMAPError(.unreachable, "the event store failed: \(error)")
            }
        }
    }

    /// sysexits.h: EX_NOINPUT 66, EX_UNAVAILABLE 69, EX_CANTCREAT 73, EX_TEMPFAIL 75,
    /// EX_PROTOCOL 76, EX_NOPERM 77 (the table in docs/USAGE.md).
    static func exitStatus(_ code: IMAPError.Code) -> Int32 {
        switch code {
        case .invalidURL: 64
        case .mailboxRefused: 66
        case .certificateRefused, .libcurlUnavailable: 69
        case .netrcUnusable, .caFileUnreadable: 73
        case .unreachable, .timeout: 75
        case .protocolViolation: 76
        case .loginRefused: 77
        }
    }
}

/// The bounds of `reservoir watch` (docs/RELIABILITY.md).
enum WatchLimits {
    /// The largest message read, the filter's: larger ones are left unread with a line on
    /// standard error (and not asked for again).
    static let messageBytes = FilterHook.maxAnalyzedBytes
    /// Messages read per mailbox and run unless --max-messages says otherwise: a first run over
    /// a large mailbox reads it in steps, recording its place after each message.
    static let defaultMessagesPerRun = 500
    /// Seconds between reads without --once.
    static let defaultIntervalSeconds = 60
    /// The longest wait after failures (15 minutes).
    static let maximumBackoffSeconds = 900
}
