import ArgumentParser
import CMalloc
import CommandCore
import Delivery
import EventStore
import Glibc
import JSON
import Mailbox
import Output
import Pipeline

struct ScanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "Scan Maildirs, mboxes or message files; print a banner per message.",
        discussion: """
            Maildirs are read from cur/ and new/ (and .Folder subfolders), mboxes message by \
            message; a directory in which no file looks like mail is refused (exit 66) unless \
            its files are named. Trusted reservations are recorded in the store. A later scan \
            reads only new or changed files, and those whose outcome a changed trust setting \
            could change (--rescan reads all).

            On a site (docs/SITE.md), --all-accounts takes no path: it reads each account's \
            Maildirs (`maildir` in its [accounts."ADDRESS"] table, else the site's `maildir` \
            template filled in for it) into that account, for every account the configuration \
            lists or the store holds, and prints one summary line per account (with --json, \
            one object per account). It is the recovery after the milter was down: what the \
            milter recorded already stays one event.

            Exit status with --all-accounts: 0 when every account's Maildirs were read, 75 \
            (EX_TEMPFAIL) when one could not be read or an account's store failed (said on its \
            line; the other accounts are read).

            Examples:
              reservoir scan ~/Maildir --allowed-domains ~/.config/reservoir/domains
              reservoir scan ~/Maildir/.Travel ~/old-mail.mbox --explain
              reservoir scan --all-accounts
            """)

    @Argument(help: ArgumentHelp("Maildirs, mbox files or message files (none with --all-accounts).", valueName: "path"))
    var paths: [String] = []

    @Flag(
        name: .customLong("all-accounts"),
        help: "Read every account's configured Maildirs (maildir in the configuration file) into that account.")
    var allAccounts = false

    @OptionGroup var keys: KeyOptions
    @OptionGroup var policy: PolicyOptions
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var creation: StoreCreationOptions
    @OptionGroup var clock: ClockOptions
    @OptionGroup var calendarOptions: CalendarOptions
    @OptionGroup var noCalendar: NoCalendarOption
    @OptionGroup var retry: RetryOptions
    @OptionGroup var pending: PendingDaysOption

    @Flag(name: .customLong("json"), help: "Print one JSON object per message (JSON Lines).")
    var json = false

    @Flag(
        name: .customLong("explain"),
        help: "Show every note on each message: why a reservation was not trusted or was dropped, and what was repaired.")
    var explain = false

    @Flag(name: .long(.includePast), help: ArgumentHelp(.includePast))
    var includePast = false

    @Option(name: .customLong("jobs"), help: ArgumentHelp("Threads analyzing messages (default: one per core).", valueName: "n"))
    var jobs: Int?

    /// Files recorded as read per store transaction.
    static let stateBatch = 512

    @Flag(name: .customLong("rescan"), help: "Read every message again, even those an earlier scan already read.")
    var rescan = false

    func validate() throws {
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1") }
        if allAccounts {
            guard paths.isEmpty else { throw ValidationError("--all-accounts reads the configured Maildirs: give paths or --all-accounts, not both") }
            guard try storeOptions.selectedAccount().isImplicit else {
                throw ValidationError("--all-accounts and --account name different things: give one")
            }
        } else if paths.isEmpty {
            throw ValidationError("name at least one Maildir, mbox or message file (or --all-accounts for every account's configured Maildirs)")
        }
    }

    func run() throws {
        Self.keepFreedMemory()
        if allAccounts {
            try scanAllAccounts()
            return
        }
        // What to read is settled first: a path that holds no mail stops the scan before a
        // store is opened or made. Then every setting is checked before anything is recorded:
        // the calendars are opened (a vdir's directory made, libcurl loaded for CalDAV) before
        // the store is opened, so a typo costs nothing but the run.
        let sources = try paths.map { try CommandRunner.messages(at: $0) }
        let renderer = BannerRenderer(style: BannerStyle.forStandardOutput(), explain: explain)
        let (summary, seconds) = try scan(sources, into: try storeOptions.selectedAccount(), renderer: renderer)
        if json {
            Output.line(BannerRenderer.json(summary))
        } else {
            Output.write(renderer.render(summary, seconds: seconds))
        }
        if let failure = summary.storeFailure { throw CommandFailure.store(failure) }
    }

    /// `--all-accounts`: each account's configured Maildirs into that account
    /// (``AccountMaildirs``), one summary line per account after its banners. An account whose
    /// Maildir cannot be read, or whose store fails, is said on its line and the others are
    /// read; the exit status is then 75 (EX_TEMPFAIL), so a timer's next run reads it again.
    func scanAllAccounts() throws {
        let file = ConfigurationLoad.process.file
        // The accounts the store holds (the milter's `--account-domain` mailboxes among them),
        // besides the configuration's tables; a store not made yet holds none.
        var stored: [Account] = []
        if let store = try? CommandRunner.openStore(at: storeOptions.location, use: .read, quiet: true),
            let directory = store.directory
        {
            do { stored = try directory.accounts().map(\.account) } catch { throw CommandFailure.store(error.message) }
        }
        let plan = AccountMaildirs.plan(file: file, stored: stored)
        guard !plan.isEmpty else {
            Output.line("no account: the configuration file has no [accounts.\"ADDRESS\"] table and the store holds none")
            return
        }
        let renderer = BannerRenderer(style: BannerStyle.forStandardOutput(), explain: explain)
        var failed = false
        for entry in plan {
            let (account, maildirs) = (entry.account, entry.maildirs)
            var problems: [String] = []
            if maildirs.isEmpty { problems.append("no Maildir configured (maildir in its table or the site's template)") }
            var sources: [MessageSource] = []
            for maildir in maildirs {
                // An account only the store holds may have left the site with its mailbox: no
                // Maildir there is said, and no failure.
                if !entry.listed, access(maildir, F_OK) != 0 {
                    problems.append("\(maildir): no Maildir (the account is in the store, not in the configuration)")
                    continue
                }
                do { sources.append(try CommandRunner.messages(at: maildir)) } catch {
                    problems.append("\(error)")
                    failed = true
                }
            }
            var summary: ScanSummary?
            if !sources.isEmpty {
                do {
                    let (scanned, _) = try scan(sources, into: account, renderer: renderer)
                    summary = scanned
                    if let failure = scanned.storeFailure {
                        problems.append("the store: \(failure)")
                        failed = true
                    }
                } catch {
                    // One account's store or calendar failure leaves the others read.
                    problems.append("\(error)")
                    failed = true
                }
            }
            if json {
                var pairs: [(String, JSONValue)] = [
                    ("account", .string(account.address)), ("maildirs", .array(maildirs.map(JSONValue.string))),
                ]
                if let summary { pairs.append(("summary", BannerRenderer.jsonValue(summary))) }
                if !problems.isEmpty { pairs.append(("problems", .array(problems.map(JSONValue.string)))) }
                Output.line(JSONValue.object(JSONObject(pairs: pairs)).serialized())
            } else {
                var line = account.address + ": "
                line += summary.map { renderer.line($0) } ?? "nothing read"
                if !problems.isEmpty { line += " · " + problems.joined(separator: " · ") }
                Output.line(line)
            }
        }
        if failed { throw ExitStatus(75) }
    }

    /// Reads `sources` into `account`'s store, printing a banner per message, and pushes to
    /// the account's calendars: the summary and the seconds it took.
    func scan(_ sources: [MessageSource], into account: Account, renderer: BannerRenderer) throws -> (ScanSummary, Double) {
        let calendarSettings = calendarOptions.settings(noCalendar, for: account)
        let calendars = try CalendarPusher.open(calendarSettings)
        let runner = try CommandRunner(
            keys: keys, policy: policy, store: storeOptions.choice(creating: creation.create), clock: clock,
            includePast: EffectiveSettings.includePast(includePast), account: account, pending: pending,
            storeOptions: storeOptions)
        // What earlier deliveries kept for a retry goes first (`reservoir retry`), into the store
        // they were kept for: the configured one. A scan into another store (`--store` other
        // than the configuration's) leaves them, unless --retry-spool names the spool.
        let configured = EffectiveSettings.process(commandLine: [:]).store
        let ownsSpool = retry.retrySpool != nil || storeOptions.store == nil || storeOptions.location == configured
        let spool = runner.pipeline.store == nil || !ownsSpool ? nil : retry.spool?.forAccount(runner.account)
        if let spool, !spool.pending().isEmpty {
            let outcomes = RetryRun(spool: spool, pipeline: runner.pipeline).run()
            Output.error(RetryCommand.summary(outcomes, spool: spool))
        }
        var summary = ScanSummary()
        var progress = ScanProgress()
        let scanner = MessageScanner(
            workers: try runner.analyzers(jobs ?? MessageScanner.availableCores()),
            recorder: runner.pipeline)
        let state = runner.pipeline.store?.scanState
        var known: [String: ScannedFile] = [:]
        if !rescan, let state {
            do { known = try state.scannedFiles() } catch { throw CommandFailure.store(error.message) }
        }
        var decisions = RescanDecisions(settings: DecisionSettings(policy: runner.pipeline.policy, includePast: runner.pipeline.includePast))
        var output: [UInt8] = []
        var read: [ScannedFile] = []
        func flushRead() throws {
            guard let state, !read.isEmpty else { return }
            do { try state.markScanned(read) } catch { throw CommandFailure.store(error.message) }
            read.removeAll(keepingCapacity: true)
        }
        progress.total = sources.reduce(0) { $0 + $1.count }
        for source in sources {
            // The workers read the files: reading is a tenth of the work, and the bytes land in
            // the cache of the core that hashes and parses them.
            let messages = source.skipping(
                { key, stamp in
                    guard let seen = known[key], seen.size == stamp.size, seen.modified == stamp.modified else { return false }
                    // Unchanged: read again only when what its outcome depended on changed.
                    switch decisions.decide(seen) {
                    case .skip:
                        summary.skippedUnchanged += 1
                        progress.total -= 1
                        return true
                    case .settingsChanged:
                        summary.readAgainSettingsChanged += 1
                    case .notRecorded:
                        summary.readAgainNotRecorded += 1
                    }
                    return false
                }, deferringReads: true)
            try scanner.scan(
                messages,
                each: { report in
                    summary.add(report)
                    progress.add(bytes: report.size)
                    // A message whose reservations could not be stored is read again next time.
                    if let key = report.origin.stateKey, let stamp = report.origin.stamp,
                        !report.diagnostics.contains(where: { $0.stage == .store })
                    {
                        let outcome = ScanOutcome(report)
                        read.append(
                            ScannedFile(
                                key: key, size: stamp.size, modified: stamp.modified, outcome: outcome.text,
                                settings: decisions.fingerprint(for: outcome)))
                        if read.count >= Self.stateBatch {
                            do { try flushRead() } catch {
                                _ = Output.bytes(output)  // the group's banners so far, as before the failure
                                throw error
                            }
                        }
                    }
                    // A key lookup that failed for now: kept for `reservoir retry` by its path (a
                    // store failure needs no record: the message is read again next scan).
                    if let spool, !report.diagnostics.contains(where: { $0.stage == .store }), report.origin.path != nil,
                        report.origin.mboxIndex == nil,
                        let transient = TransientFailure.reason(report)
                    {
                        if case .refused(let why) = spool.keep(.path(RetrySpool.absolute(report.origin.path ?? ""))) {
                            Output.error("scan: \(report.origin.path ?? ""): \(transient); not kept for retry: \(why)")
                        }
                    }
                    // Written once per recorded group: one write(2) for up to 64 banners.
                    output += (json ? BannerRenderer.json(report) : renderer.render(report)).utf8
                    output.append(0x0A)
                },
                groupEnd: {
                    // The banners start on a clean line, not after the progress line.
                    if !output.isEmpty { progress.clear() }
                    _ = Output.bytes(output)
                    output.removeAll(keepingCapacity: true)
                })
        }
        try flushRead()
        progress.finish()
        let seconds = progress.elapsed
        // After recording: every event a calendar does not hold yet, this scan's and earlier ones'.
        if summary.storeFailure == nil, let store = runner.pipeline.store, let calendars {
            let pusher = try CalendarPusher(calendars, store: store, clock: runner.pipeline.clock)
            summary.calendar = .pushed(Self.push(pusher))
        } else if calendarSettings.skipped {
            summary.calendar = .skipped
        }
        return (summary, seconds)
    }

    /// Pushes what every calendar waits for, says on stderr what failed, and counts it for the
    /// summary.
    static func push(_ pusher: CalendarPusher) -> ScanSummary.PushCounts {
        let pushed = pusher.delivery.pushPending()
        let removed = pusher.delivery.removeForgotten()
        CalendarPusher.complain(pushed + removed, command: "scan")
        func done(_ attempt: DeliveryAttempt) -> Bool {
            switch attempt.outcome {
            case .created, .updated, .cancelled, .deleted: true
            case .alreadyThere, .keptNewerCopy, .claimedElsewhere, .failed: false
            }
        }
        // What still waits: what the store lists now, or, when it cannot say, what failed.
        let waiting =
            ((try? pusher.delivery.waiting().count).flatMap { count in (try? pusher.delivery.waitingRemovals().count).map { count + $0 } })
            ?? (pushed + removed).filter { if case .failed = $0.outcome { true } else { false } }.count
        return ScanSummary.PushCounts(
            calendars: pusher.destinations.count, pushed: pushed.filter(done).count, removed: removed.filter(done).count, waiting: waiting)
    }

    /// A scan reads one message file after another into buffers of up to 2 MB. glibc maps
    /// buffers over 128 KB fresh from the kernel and unmaps them when they are freed (on
    /// another thread, here), so large messages paid for page faults and zeroed pages: about a
    /// third of a two-core scan's system time. Kept in the heap and not trimmed, freed buffers are
    /// reused; the peak stays that of the messages in flight (docs/PERFORMANCE.md).
    static func keepFreedMemory() {
        _ = mallopt(M_MMAP_THRESHOLD, 8 << 20)
        _ = mallopt(M_TRIM_THRESHOLD, 64 << 20)
    }
}
