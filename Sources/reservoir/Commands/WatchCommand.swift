import ArgumentParser
import CommandCore
import EventStore
import Glibc
import IMAP
import Mailbox
import Output
import Pipeline
import ReservoirBase
import ServiceLog
import Synchronization
import Telemetry

struct WatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Read new mail from IMAP mailboxes (read-only) into the store and the calendars.",
        discussion: """
            Each mailbox is imaps://USER@HOST[:PORT]/MAILBOX (TLS from the first byte), or \
            imap://USER@HOST[:PORT]/MAILBOX where STARTTLS is required: a server that does not \
            offer it is refused before any login. With --oauth-token-file the login is SASL \
            XOAUTH2 or OAUTHBEARER with the token on that file's first line; otherwise the \
            password comes from the netrc \
            file (machine HOST login USER password PASSWORD; mode 0600 or stricter). Without a \
            mailbox on the command line it reads the configuration file's watch list, and \
            without --account also each [accounts."ADDRESS"] table's into that account. The mailbox \
            is opened with EXAMINE and messages read with UID FETCH BODY.PEEK[]: nothing is \
            marked read, moved or deleted. Every message goes through the same checks as one \
            given to ingest or scan (DKIM on the bytes the server keeps). The store remembers \
            each mailbox's UIDVALIDITY and the highest UID read, so the next run reads only \
            newer mail; a changed UIDVALIDITY reads everything again, which changes nothing \
            already recorded. With --once it reads what is new and exits (cron, systemd \
            timers); otherwise it runs until SIGTERM (exit 0), waiting for new mail in IDLE \
            (RFC 2177, one connection per mailbox) where the server offers it and reading \
            again every --interval seconds where not, reconnecting after a failure (1 second, \
            doubling up to 15 minutes). An IDLE is ended and issued again every --idle seconds \
            (29 minutes; lower it where a firewall or NAT drops a quiet connection sooner).

            Exit status (with --once; a mailbox that fails does not stop the others, the first \
            failure's status is the run's): 0 done, 64 a malformed mailbox URL, 66 no such \
            mailbox (EXAMINE refused), 69 the server's certificate is not trusted, an imap:// \
            server offers no STARTTLS (or libcurl is missing), 73 the netrc, OAuth token or CA file cannot be used, 75 the server could not be \
            reached or did not answer in time, or the store failed, 76 the server answered \
            something that is not IMAP, 77 the login was refused (wrong password).

            Examples:
              reservoir watch --once imaps://jane@imap.fastmail.com/INBOX
              reservoir watch imaps://jane@imap.example.org/INBOX --interval 120
            """)

    @Argument(
        help: ArgumentHelp(
            "Mailboxes: imaps:// or imap:// (STARTTLS) USER@HOST[:PORT]/MAILBOX (default: watch = [...] in the configuration file).", valueName: "url"
        ))
    var mailboxes: [String] = []

    /// Which mailboxes are read into which account: those named on the command line into the
    /// run's account (`--account`, else the default); without any, the configuration file's
    /// — the account's own `watch` (`[accounts."ADDRESS"]`) for a named account, else the
    /// site's `watch`; with no account named, the site's `watch` into the default account and
    /// every account table's `watch` into its account.
    func plan() throws -> [(account: Account, mailboxes: [String])] {
        let account = try recording.storeOptions.selectedAccount()
        guard mailboxes.isEmpty else { return [(account, mailboxes)] }
        let file = ConfigurationLoad.process.file
        let site = file?.watch ?? []
        let tables = file?.accounts ?? [:]
        if !account.isImplicit {
            let own = tables[account.address]?.watch ?? []
            return [(account, own.isEmpty ? site : own)]
        }
        var plan: [(account: Account, mailboxes: [String])] = site.isEmpty ? [] : [(account, site)]
        for (address, settings) in tables.sorted(by: { $0.key < $1.key }) where !settings.watch.isEmpty {
            plan.append((Account(normalizedAddress: address), settings.watch))
        }
        return plan
    }

    @Flag(name: .customLong("once"), help: "Read what is new once and exit.")
    var once = false

    @Option(
        name: .customLong("ca-file"),
        help: ArgumentHelp("Verify the IMAP server against the CA certificates in this PEM file instead of the system's.", valueName: "file"))
    var caFile: String?

    @Option(
        name: .customLong("oauth-token-file"),
        help: ArgumentHelp(
            "Log in with the OAuth 2 bearer token on this file's first line (mode 0600; read again for each connection) instead of the netrc password.",
            valueName: "file"))
    var oauthTokenFile: String?

    @Option(
        name: .customLong("oauth-mechanism"),
        help: ArgumentHelp("The SASL mechanism for --oauth-token-file: XOAUTH2 (default) or OAUTHBEARER (RFC 7628).", valueName: "name"))
    var oauthMechanism: String = OAuthMechanism.xoauth2.rawValue

    @Option(
        name: .customLong("interval"),
        help: ArgumentHelp("Seconds between reads without --once, where the server does not offer IDLE (default 60).", valueName: "seconds"))
    var interval: Int = WatchLimits.defaultIntervalSeconds

    @Option(
        name: .customLong("idle"),
        help: ArgumentHelp(
            "Seconds one IDLE lasts before it is ended and issued again (default 1740, the 29 minutes of RFC 2177; 5 to 1740).",
            valueName: "seconds"))
    var idle: Int = WatchLimits.idleReissueSeconds

    @Option(name: .customLong("log-level"), help: ArgumentHelp("Without --once: error, warning, info or debug (default info).", valueName: "level"))
    var logLevel = LogLevel.info.name

    @Flag(name: .customLong("syslog"), help: "Without --once: log to syslog(3), facility mail, instead of standard error.")
    var syslog = false

    @Option(
        name: .customLong("metrics"),
        help: ArgumentHelp(
            "Without --once: answer GET /metrics (Prometheus) and GET /healthz on PORT (127.0.0.1), HOST:PORT or [IPV6]:PORT.", valueName: "address"))
    var metrics: String?

    @Option(
        name: .customLong("max-messages"),
        help: ArgumentHelp("Messages read per mailbox and run (default 500); the rest are read by the next run.", valueName: "n"))
    var maxMessages: Int = WatchLimits.defaultMessagesPerRun

    @Option(
        name: .customLong("imap-timeout"),
        help: ArgumentHelp("Seconds to wait for the server: connecting, logging in, each answer (default 60).", valueName: "seconds"))
    var imapTimeout: Int = IMAPLimits.defaultTimeoutMilliseconds / 1000

    @OptionGroup var recording: RecordingOptions
    @OptionGroup var calendarOptions: CalendarOptions
    @OptionGroup var noCalendar: NoCalendarOption

    @Flag(name: .customLong("json"), help: "Print one JSON object per message (JSON Lines).")
    var json = false

    @Flag(name: .customLong("explain"), help: "Show every note on each message.")
    var explain = false

    /// The clock and the wait of a continuous watch (``WatchClock``, which tests inject into
    /// ``MailboxSchedule``).
    static let schedulingClock = WatchClock.system

    static let noMailbox =
        "name at least one mailbox: imaps://USER@HOST[:PORT]/MAILBOX, or watch = [...] in the configuration file (or an account's table)"

    func validate() throws {
        let plan = try plan()
        guard plan.contains(where: { !$0.mailboxes.isEmpty }) else {
            throw ValidationError(Self.noMailbox)
        }
        for mailbox in plan.flatMap(\.mailboxes) {
            do { _ = try IMAPMailboxURL(mailbox) } catch { throw ValidationError("\(error)") }
        }
        guard OAuthMechanism(rawValue: oauthMechanism.uppercased()) != nil else {
            throw ValidationError("--oauth-mechanism must be XOAUTH2 or OAUTHBEARER")
        }
        guard maxMessages >= 1 else { throw ValidationError("--max-messages must be at least 1") }
        guard (1...86_400).contains(interval) else { throw ValidationError("--interval must be from 1 to 86400 seconds") }
        guard LogLevel(name: logLevel) != nil else { throw ValidationError("--log-level takes error, warning, info or debug; got \(logLevel)") }
        if let metrics, MetricsAddress(metrics) == nil {
            throw ValidationError("--metrics takes PORT, HOST:PORT or [IPV6]:PORT (an IP address); got \(metrics)")
        }
        guard (5...WatchLimits.idleReissueSeconds).contains(idle) else {
            throw ValidationError("--idle must be from 5 to \(WatchLimits.idleReissueSeconds) seconds (RFC 2177 §3: at most 29 minutes)")
        }
        guard (1...3_600).contains(imapTimeout) else { throw ValidationError("--imap-timeout must be from 1 to 3600 seconds") }
    }

    func run() throws {
        let groups = try makeGroups()
        if once {
            var firstFailure: Int32?
            for (context, urls) in groups {
                var summary = ScanSummary()
                var read = 0
                // A site's watch names whose mailbox failed.
                let whose = context.runner.account.isImplicit ? "" : context.runner.account.address + ": "
                for url in urls {
                    do {
                        let connection = try IMAPConnection(url: url, settings: context.settings)
                        let validity = try opened(connection, context)
                        _ = try readNew(connection, validity: validity, context, summary: &summary)
                        read += 1
                    } catch {
                        Self.report("watch: \(whose)\(url.description): \(error.description)")
                        firstFailure = firstFailure ?? Self.exitStatus(error.code)
                    }
                }
                // A round in which no mailbox could be read says so above, not "Scanned: 0".
                if read > 0 { try finishRound(&summary, context) }
            }
            if let firstFailure { throw ExitStatus(firstFailure) }
            return
        }
        WatchStop.install()
        WatchReload.install()
        let options = ServiceOptions(level: LogLevel(name: logLevel) ?? .info, syslog: syslog, metrics: metrics.flatMap(MetricsAddress.init))
        do {
            try WatchTelemetry.setUp(options, store: recording.storeOptions.location)
        } catch {
            // sysexits.h EX_UNAVAILABLE: the metrics port is taken or not this host's.
            Output.error("watch: \(error.description)")
            throw ExitStatus(69)
        }
        // Everything it needs has been checked (makeGroups): a `Type=notify` unit is started.
        ServiceNotification.send("READY=1")
        try watchContinuously(
            groups.indices.flatMap { index in
                groups[index].urls.map { WatchedMailbox($0, group: index, account: groups[index].context.runner.account) }
            }, groups: groups.map(\.context))
    }

    /// Every setting of every account, checked before anything is read — the calendars, the
    /// store (opened: a PostgreSQL server reached, the login accepted, the schema current), the
    /// keys and allowed domains, the mailbox URLs — at start and at a reload alike.
    func makeGroups() throws -> [(context: Context, urls: [IMAPMailboxURL])] {
        if let problem = ConfigurationLoad.process.problem { throw CommandFailure.configuration(problem.description) }
        let renderer = BannerRenderer(style: BannerStyle.forStandardOutput(), explain: explain)
        var groups: [(context: Context, urls: [IMAPMailboxURL])] = []
        for (account, texts) in try plan() where !texts.isEmpty {
            var urls: [IMAPMailboxURL] = []
            for text in texts {
                do { urls.append(try IMAPMailboxURL(text)) } catch { throw ValidationError("\(error)") }
            }
            let calendarSettings = calendarOptions.settings(noCalendar, for: account)
            let calendars = try CalendarPusher.open(calendarSettings)
            let runner = try CommandRunner(
                keys: recording.keys, policy: recording.policy, store: recording.storeOptions.choice(creating: recording.creation.create),
                clock: recording.clock,
                includePast: recording.past.includesPast, account: account, storeOptions: recording.storeOptions)
            guard let store = runner.pipeline.store, let state = store.imapState else {
                throw CommandFailure.configuration("reservoir watch needs a store that keeps IMAP state (SQLite or PostgreSQL)")
            }
            if !account.isImplicit, let role = try store.roleBypassingRowSecurity() {
                throw CommandFailure.configuration(RowSecurity.refusal(role))
            }
            let settings = IMAPSettings(
                caFile: caFile, netrcFile: calendarSettings.netrcFile, oauthTokenFile: oauthTokenFile,
                oauthMechanism: OAuthMechanism(rawValue: oauthMechanism.uppercased()) ?? .xoauth2, timeoutMilliseconds: imapTimeout * 1000)
            let context = Context(
                settings: settings, runner: runner, state: state, renderer: renderer, calendars: calendars, calendarSettings: calendarSettings)
            groups.append((context, urls))
        }
        guard !groups.isEmpty else {
            throw ValidationError(Self.noMailbox)
        }
        return groups
    }

    /// A reload (SIGHUP) of a continuous watch: the configuration file read again and every
    /// setting checked as at start (``makeGroups()``). A mailbox still watched into the same
    /// account keeps its connection, its IDLE and its back-off; a new one is read at once; one
    /// no longer named is closed. When a check fails, the settings in use stay, and the line
    /// says why. Nil then.
    private func reloaded(_ mailboxes: [WatchedMailbox], groups: [Context]) -> (mailboxes: [WatchedMailbox], groups: [Context])? {
        ServiceNotification.reloading { reloadChecked(mailboxes, groups: groups) }
    }

    private func reloadChecked(_ mailboxes: [WatchedMailbox], groups: [Context]) -> (mailboxes: [WatchedMailbox], groups: [Context])? {
        let previous = ConfigurationLoad.reloadProcess()
        let fresh: [(context: Context, urls: [IMAPMailboxURL])]
        do {
            fresh = try makeGroups()
        } catch {
            ConfigurationLoad.restoreProcess(previous)
            Self.report("watch: reload refused, the settings in use are kept: \(String(describing: error))")
            return nil
        }
        var next: [WatchedMailbox] = []
        var kept = 0
        for (index, group) in fresh.enumerated() {
            for url in group.urls {
                if let old = mailboxes.first(where: { candidate in
                    candidate.url.description == url.description && groups[candidate.group].runner.account == group.context.runner.account
                        && !next.contains { $0 === candidate }
                }) {
                    old.group = index
                    next.append(old)
                    kept += 1
                } else {
                    next.append(WatchedMailbox(url, group: index, account: group.context.runner.account))
                }
            }
        }
        Self.report(
            "watch: reloaded: \(next.count) mailbox\(next.count == 1 ? "" : "es") (\(kept) kept, \(next.count - kept) new, \(mailboxes.count - kept) closed)"
        )
        return (next, fresh.map(\.context))
    }

    /// What every read needs.
    struct Context {
        var settings: IMAPSettings
        var runner: CommandRunner
        var state: any IMAPStateStore
        var renderer: BannerRenderer
        var calendars: CalendarPusher.Calendars?
        var calendarSettings: CalendarSettings
    }

    /// One mailbox of a `watch` without `--once`: its connection while it idles, when it is
    /// read next, and how many tries in a row failed.
    final class WatchedMailbox {
        let url: IMAPMailboxURL
        /// The account it is read into: an index of the run's groups.
        var group: Int
        /// Open and in `IDLE` between reads when the server offers it (RFC 2177).
        var connection: IMAPConnection?
        var validity: Int64 = 0
        /// When it is read next, and its failures in a row (on ``WatchCommand/schedulingClock``).
        var schedule = MailboxSchedule()
        /// What its log last said of it, and the name it says it by (`ACCOUNT URL`).
        var state = WatchTelemetry.State.reconnecting
        let name: String

        init(_ url: IMAPMailboxURL, group: Int, account: Account) {
            self.url = url
            self.group = group
            name = (account.isImplicit ? "" : account.address + " ") + TerminalText(escaping: url.description).text
        }

        /// A change of state, said once.
        func now(_ new: WatchTelemetry.State, detail: String? = nil) {
            guard new != state || detail != nil else { return }
            state = new
            WatchTelemetry.said(name, new, detail: detail)
        }
    }

    /// Reads every mailbox, then waits: in `IDLE` on each connection whose server offers it
    /// (one connection per mailbox, all waited on together with poll(2)), the interval for
    /// the others, a back-off after a failure. Ends only by a signal (WatchStop).
    private func watchContinuously(_ watched: [WatchedMailbox], groups contexts: [Context]) throws {
        var mailboxes = watched
        var groups = contexts
        while true {
            if WatchReload.asked(), let next = reloaded(mailboxes, groups: groups) {
                mailboxes = next.mailboxes
                groups = next.groups
            }
            // What the idling connections said, before waiting: a response that arrived with an
            // earlier one already sits in the reader (or in TLS's buffer), where poll(2) cannot
            // see it.
            drainIdle(mailboxes)
            let now = Self.schedulingClock.now()
            let wake = MailboxSchedule.wake(mailboxes.map(\.schedule), at: now, interval: interval)
            if wake > now {
                MailboxSchedule.wait(until: wake, on: mailboxes.compactMap { $0.connection?.descriptor }, clock: Self.schedulingClock)
                drainIdle(mailboxes)
            }
            var summaries: [Int: ScanSummary] = [:]
            for mailbox in mailboxes where mailbox.schedule.isDue(at: Self.schedulingClock.now()) {
                var summary = summaries[mailbox.group] ?? ScanSummary()
                defer { summaries[mailbox.group] = summary }
                do { try read(mailbox, groups[mailbox.group], summary: &summary) } catch { failed(mailbox, error) }
            }
            for (group, var summary) in summaries.sorted(by: { $0.key < $1.key }) { try finishRound(&summary, groups[group]) }
            WatchTelemetry.count(mailboxes.map(\.state))
        }
    }

    /// Reads what each idling connection has received, without waiting: a change makes the
    /// mailbox due now, a failure drops the connection.
    private func drainIdle(_ mailboxes: [WatchedMailbox]) {
        for mailbox in mailboxes {
            guard let connection = mailbox.connection else { continue }
            do {
                if try connection.idleChanged() { mailbox.schedule.changed(at: Self.schedulingClock.now()) }
            } catch {
                failed(mailbox, error)
            }
        }
    }

    /// A failed read: the connection is dropped and the next try waits 1 s, doubling with each
    /// failure in a row up to WatchLimits.maximumBackoffSeconds, never retrying at once.
    private func failed(_ mailbox: WatchedMailbox, _ error: IMAPError) {
        mailbox.connection = nil
        let wait = mailbox.schedule.failed(at: Self.schedulingClock.now())
        mailbox.now(
            error.code == .loginRefused ? .authenticationFailed : .reconnecting,
            detail: "\(TerminalText(escaping: error.description).text); next try in \(wait) s")
    }

    /// Reads what is new in a mailbox of a continuous watch, connecting first when it has no
    /// connection, and leaves it in `IDLE` when the server offers it (closed otherwise).
    private func read(_ mailbox: WatchedMailbox, _ context: Context, summary: inout ScanSummary) throws(IMAPError) {
        let connection: IMAPConnection
        let idled = mailbox.connection != nil
        if let open = mailbox.connection {
            connection = open
            try connection.endIdle()
        } else {
            connection = try IMAPConnection(url: mailbox.url, settings: context.settings)
            mailbox.schedule.connected(at: Self.schedulingClock.now())
            mailbox.validity = try opened(connection, context)
            mailbox.connection = connection
            mailbox.now(.connected)
        }
        let outcome = try readNew(connection, validity: mailbox.validity, context, summary: &summary)
        let now = Self.schedulingClock.now()
        mailbox.schedule.read(outcome, idled: idled, idles: connection.idles, at: now, interval: interval, idle: idle)
        // More than --max-messages were new: the rest right away, without IDLE.
        if outcome == .more { return }
        guard connection.idles else {
            mailbox.connection = nil
            mailbox.schedule.disconnected()
            mailbox.now(.polling)
            return
        }
        // A change reported while reading, or before the server's `+`: read again at once.
        if try connection.startIdle() || connection.mailboxChanged { mailbox.schedule.changed(at: now) }
        mailbox.now(.idle)
    }

    /// After a round of reads: the calendars pushed, the summary printed; a store failure ends
    /// the command.
    private func finishRound(_ summary: inout ScanSummary, _ context: Context) throws {
        WatchStop.busy()
        defer { WatchStop.idle() }
        let store = context.runner.pipeline.store
        if summary.storeFailure == nil, let calendars = context.calendars, let store {
            let pusher = try CalendarPusher(calendars, store: store, clock: context.runner.pipeline.clock)
            summary.calendar = .pushed(ScanCommand.push(pusher))
        } else if context.calendarSettings.skipped {
            summary.calendar = .skipped
        }
        if json { Output.line(BannerRenderer.json(summary)) } else { Output.write(context.renderer.render(summary)) }
        if let failure = summary.storeFailure { throw CommandFailure.store(failure) }
    }

    /// After connecting: the mailbox opened read-only, and its UIDVALIDITY compared with the
    /// store's; returns the UIDVALIDITY.
    private func opened(_ connection: IMAPConnection, _ context: Context) throws(IMAPError) -> Int64 {
        if !once { connection.idles = try connection.capabilities().contains("IDLE") }
        let (validity, _) = try connection.examine()
        return validity
    }

    /// Reads the messages above the highest UID the store has for this mailbox (all of them
    /// when its UIDVALIDITY changed), recording the state after each message.
    private func readNew(
        _ connection: IMAPConnection, validity: Int64, _ context: Context, summary: inout ScanSummary
    ) throws(IMAPError) -> WatchReadOutcome {
        let url = connection.url
        let key = url.description
        let known: IMAPMailboxState?
        do { known = try context.state.imapMailboxState(key) } catch { throw IMAPError(.unreachable, "the event store failed: \(error)") }
        var last: Int64 = 0
        if let known {
            if known.uidValidity == validity {
                last = known.lastUID
            } else {
                // RFC 9051 §2.3.1.1: a new UIDVALIDITY means the old UIDs name nothing; every
                // message is read again, which the store's revision rules make change nothing.
                Self.report("watch: \(url.description): UIDVALIDITY changed (\(known.uidValidity) to \(validity)); reading every message again")
            }
        }
        connection.mailboxChanged = false
        let listed = try connection.messages(after: last)
        var outcome = WatchReadOutcome.done
        for (uid, size) in listed.prefix(maxMessages) {
            let origin = "\(url);UIDVALIDITY=\(validity)/;UID=\(uid)"
            if size > Int64(WatchLimits.messageBytes) {
                Self.report("watch: \(origin): \(size) bytes, over the limit of \(WatchLimits.messageBytes); not read")
            } else if let bytes = try connection.message(uid: uid, limit: WatchLimits.messageBytes) {
                // A stop asked for while a message is recorded waits for its state to be kept.
                WatchStop.busy()
                defer { WatchStop.idle() }
                // The clock is read for each message: a watch runs for days (x= expiry, what
                // ended, the arrival time).
                let pipeline = context.runner.pipeline.current()
                var report = pipeline.analyze(RawMessage(bytes: bytes, origin: MessageOrigin(path: origin)))
                pipeline.record(&report)
                summary.add(report)
                Output.write((json ? BannerRenderer.json(report) : context.renderer.render(report)) + "\n")
                // A message whose key lookup failed for now, or whose reservations the store
                // could not keep, is read again by the next run: the UID stays below it.
                if let transient = TransientFailure.reason(report) {
                    Self.report("watch: \(origin): \(transient); read again next run")
                    outcome = .retryLater
                    break
                }
                last = uid
                do { try context.state.recordIMAPMailboxState(key, IMAPMailboxState(uidValidity: validity, lastUID: last)) } catch {
                    throw IMAPError(.unreachable, "the event store failed: \(error)")
                }
                continue
            }
            last = uid
            do { try context.state.recordIMAPMailboxState(key, IMAPMailboxState(uidValidity: validity, lastUID: last)) } catch {
                throw IMAPError(.unreachable, "the event store failed: \(error)")
            }
        }
        if known?.uidValidity != validity && listed.isEmpty {
            do { try context.state.recordIMAPMailboxState(key, IMAPMailboxState(uidValidity: validity, lastUID: 0)) } catch {
                throw IMAPError(.unreachable, "the event store failed: \(error)")
            }
        }
        if outcome == .done && listed.count > maxMessages { outcome = .more }
        return outcome
    }

    /// A line on standard error. What the server said reaches it inside an ``IMAPError``'s
    /// detail (a NO or BAD's text, a BYE's, an unexpected line, libcurl's message), and the
    /// mailbox URL comes from a configuration file: interpolated as `String`s, they are escaped
    /// as a message's text is in a banner (``TerminalText``), so no ESC, C1 control, CR or
    /// backspace a server writes reaches the terminal raw (each is an ECMA-48 control function).
    static func report(_ line: TerminalText) {
        Output.error(line.text)
    }

    /// sysexits.h: EX_NOINPUT 66, EX_UNAVAILABLE 69, EX_CANTCREAT 73, EX_TEMPFAIL 75,
    /// EX_PROTOCOL 76, EX_NOPERM 77 (the table in docs/USAGE.md).
    static func exitStatus(_ code: IMAPError.Code) -> Int32 {
        switch code {
        case .invalidURL: 64
        case .mailboxRefused: 66
        case .certificateRefused, .startTLSRefused, .libcurlUnavailable: 69
        case .netrcUnusable, .oauthTokenUnusable, .caFileUnreadable: 73
        case .unreachable, .timeout: 75
        case .protocolViolation: 76
        case .loginRefused: 77
        }
    }
}
