import Delivery
package import EventStore
import Glibc
import MIME
import Mailbox
import Output
import Pipeline
import ReservoirBase
import Synchronization
package import Trust

/// `reservoir milter`'s settings: where it listens, which envelope recipients are accounts of
/// this site, and the filter's common settings (``FilterHook``), which it shares with
/// `reservoir filter` so that both read a message the same way.
package struct MilterSettings {
    /// `inet:PORT@HOST`, `inet6:PORT@HOST` or `unix:PATH` (libmilter's `smfi_setconn`).
    package var socket: String
    /// `--account`: addresses, normalized (``AccountAddress``).
    package var accounts: Set<String> = [] {
        didSet { folded = Self.fold(accounts) }
    }
    /// `accounts` by their address in ASCII lowercase.
    private var folded: [String: String] = [:]
    /// `--account-domain`: domains whose every mailbox is an account, lowercase A-labels.
    package var accountDomains: Set<String> = []
    /// The filter's settings: keys, policy, store, clock, authserv-id, time budget, retry spool.
    package var hook: FilterHook
    /// `--recipient-delimiter` (or the configuration file's `recipient-delimiter`): which
    /// recipients' details are dropped to reach their account.
    package var recipientDelimiter = RecipientDelimiter.standard

    /// What the arguments ask for.
    package enum Reading {
        case help
        case usage(String)
        case run(MilterSettings)
    }

    /// The options only the milter takes.
    package static let ownOptions = ["socket", "account", "account-domain", "accounts-file"]

    /// Reads the milter's arguments: its own options (`--socket`, `--account` and
    /// `--account-domain`, both repeatable, `--accounts-file`), then the filter's common options over the
    /// configuration file, as `reservoir filter` reads them (``FilterHook/init(arguments:configuration:)``).
    package static func read(_ arguments: [String], configuration: ConfigurationLoad) -> Reading {
        var socket: String?
        var accounts: Set<String> = []
        var domains: Set<String> = []
        var common: [String] = []
        var rest = ArraySlice(arguments)
        while let argument = rest.popFirst() {
            if argument == "--help" || argument == "-h" { return .help }
            let parts = argument.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = parts[0].hasPrefix("--") ? String(parts[0].dropFirst(2)) : ""
            guard ownOptions.contains(name) else {
                common.append(argument)
                continue
            }
            guard let value = parts.count == 2 ? String(parts[1]) : rest.popFirst(), !value.isEmpty else {
                return .usage("--\(name) needs a value")
            }
            switch name {
            case "socket":
                guard MilterSocket.isValid(value) else {
                    return .usage("--socket takes inet:PORT@HOST, inet6:PORT@HOST or unix:PATH; got \(value)")
                }
                socket = value
            case "account":
                do {
                    accounts.insert(try AccountAddress.parse(value).address)
                } catch {
                    return .usage(error.description)
                }
            case "accounts-file":
                guard let text = FileText.read(value) else { return .usage("--accounts-file: cannot read \(value)") }
                switch AccountsFile.read(text) {
                case .success(let listed):
                    accounts.formUnion(listed.accounts)
                    domains.formUnion(listed.domains)
                case .failure(let problem):
                    return .usage("\(value):\(problem.line): \(problem.reason)")
                }
            default:
                guard let domain = TrustPolicy.asciiHostName(value), !domain.contains("@") else {
                    return .usage("--account-domain takes a domain name (example.org); got \(value)")
                }
                domains.insert(domain)
            }
        }
        guard let socket else { return .usage("--socket is required (inet:PORT@HOST or unix:PATH)") }
        // The configuration's `[accounts."ADDRESS"]` tables name the site's accounts for the
        // milter as for every other command (docs/SITE.md): no second list to keep.
        accounts.formUnion(configuration.file.map { Array($0.accounts.keys) } ?? [])
        guard !accounts.isEmpty || !domains.isEmpty else {
            return .usage(
                "name the site's accounts: [accounts.\"ADDRESS\"] tables in the configuration file, --account ADDRESS or --account-domain DOMAIN (repeatable), or --accounts-file FILE"
            )
        }
        guard let hook = FilterHook(arguments: ArraySlice(common), configuration: configuration) else {
            return .usage("unknown option or malformed value among: \(common.joined(separator: " ")) (see reservoir filter --help)")
        }
        guard Self.fold(accounts).count == accounts.count else {
            return .usage("two accounts differ only in the case of their local part: \(accounts.sorted().joined(separator: ", "))")
        }
        var settings = MilterSettings(socket: socket, accountDomains: domains, hook: hook)
        settings.accounts = accounts
        settings.recipientDelimiter = RecipientDelimiter(setting: hook.settings.text(.recipientDelimiter))
        return .run(settings)
    }

    /// The account an envelope recipient names, or nil when it is none of this site's
    /// (``MilterRecipient``).
    ///
    /// Local parts are compared without regard to ASCII case, as MTAs look mailboxes up
    /// (Postfix's tables, Exim's `local_parts`, Dovecot's user names), so `Jane@` and `jane@`
    /// reach one account: a listed one under its listed spelling, one of an account domain in
    /// lowercase.
    ///
    /// A detail address (`joe+trips@example.org`, RFC 5233) that is not listed as written is
    /// its base's account when the base is one (listed, or a mailbox of an account domain), as
    /// Postfix delivers it to `joe@` with `recipient_delimiter = +`; otherwise it is taken as
    /// written (``RecipientDelimiter/base(of:)``).
    package func account(forRecipient envelope: String) -> Account? {
        guard let account = MilterRecipient.address(envelope) else { return nil }
        let lowered = Self.lowercased(account.address)
        if let listed = folded[lowered] { return Account(normalizedAddress: listed) }
        if let base = recipientDelimiter.base(of: lowered) {
            if let listed = folded[base] { return Account(normalizedAddress: listed) }
            if isInAccountDomain(base) { return Account(normalizedAddress: base) }
        }
        return isInAccountDomain(lowered) ? Account(normalizedAddress: lowered) : nil
    }

    /// Whether the lowercase `address` is a mailbox of an `--account-domain`.
    private func isInAccountDomain(_ address: String) -> Bool {
        guard let at = address.lastIndex(of: "@") else { return false }
        return accountDomains.contains(String(address[address.index(after: at)...]))
    }

    static func lowercased(_ text: String) -> String { AccountAddress.folded(text) }

    static func fold(_ accounts: Set<String>) -> [String: String] {
        Dictionary(accounts.map { (lowercased($0), $0) }, uniquingKeysWith: { first, _ in first })
    }
}

/// The site's accounts in a file (`--accounts-file`): one a line, `jane@example.org` for a
/// mailbox or `@example.org` for every mailbox of a domain; blank lines and lines starting with
/// `#` are skipped. The milter reads it at start.
package enum AccountsFile {
    package struct Listed: Equatable, Sendable {
        package var accounts: Set<String> = []
        package var domains: Set<String> = []

        package init(accounts: Set<String> = [], domains: Set<String> = []) {
            self.accounts = accounts
            self.domains = domains
        }
    }

    package struct Problem: Error, Equatable, Sendable {
        package var line: Int
        package var reason: String
    }

    package static func read(_ text: String) -> Result<Listed, Problem> {
        var listed = Listed()
        for (index, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }).enumerated() {
            let line = raw.trimmingASCII()
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("@") {
                guard let domain = TrustPolicy.asciiHostName(String(line.dropFirst())), !domain.contains("@") else {
                    return .failure(Problem(line: index + 1, reason: "not a domain: \(line)"))
                }
                listed.domains.insert(domain)
            } else {
                guard let account = try? AccountAddress.parse(String(line)) else {
                    return .failure(Problem(line: index + 1, reason: "not a mailbox address (jane@example.org) or domain (@example.org): \(line)"))
                }
                listed.accounts.insert(account.address)
            }
        }
        return .success(listed)
    }
}

/// libmilter's socket specifications.
package enum MilterSocket {
    /// `inet:PORT@HOST`, `inet6:PORT@HOST` (a port number and a host), `unix:PATH` or
    /// `local:PATH` (an absolute path).
    package static func isValid(_ text: String) -> Bool {
        if text.hasPrefix("unix:/") || text.hasPrefix("local:/") { return true }
        let body: Substring
        if text.hasPrefix("inet:") {
            body = text.dropFirst(5)
        } else if text.hasPrefix("inet6:") {
            body = text.dropFirst(6)
        } else {
            return false
        }
        let parts = body.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, let port = Int(parts[0]), (1...65535).contains(port), !parts[1].isEmpty else { return false }
        return true
    }
}

/// Reads an envelope recipient as the MTA hands it to the milter (`<jane@example.org>`, the
/// RCPT TO path of RFC 5321 §4.1.2) into an account address, strictly: only a plain
/// `Dot-string@Domain` is a mailbox of this site. A quoted local part, a source route
/// (RFC 5321 §4.1.1.3, obsolete), the null path, and local parts holding `%`, `!` or `/` (the
/// percent hack of RFC 1123 §5.2.16, UUCP bang paths: addresses that route elsewhere) are
/// none, so no sender can make one message file bookings under an address the site never
/// delivers to. The sender writes the envelope too, but the MTA delivers the message to
/// these recipients only: each account receives only what was addressed to it.
package enum MilterRecipient {
    /// RFC 5322 §3.2.3 atext, less `%`, `!` and `/`.
    static func isLocalByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: Array("#$&'*+-=?^_`{|}~".utf8).contains(byte)
        }
    }

    /// The account `envelope` names, normalized (``AccountAddress``); nil when it is not a
    /// plain mailbox.
    package static func address(_ envelope: String) -> Account? {
        var text = Substring(envelope)
        if text.hasPrefix("<") {
            guard text.hasSuffix(">"), text.count >= 2 else { return nil }
            text = text.dropFirst().dropLast()
        }
        guard let at = text.lastIndex(of: "@") else { return nil }
        let local = text[..<at].utf8
        // RFC 5321 §4.1.2 Dot-string: atoms joined by single dots.
        guard !local.isEmpty, local.first != UInt8(ascii: "."), local.last != UInt8(ascii: "."),
            !local.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false).contains(where: \.isEmpty),
            local.allSatisfy({ $0 == UInt8(ascii: ".") || isLocalByte($0) })
        else { return nil }
        return try? AccountAddress.parse(String(text))
    }
}

/// The limits of one milter message.
package enum MilterLimits {
    /// Accounts a message is filed under at most; further recipients are said on stderr and
    /// not filed. RFC 5321 §4.5.3.1.8 has servers accept at least 100 recipients.
    package static let maximumAccountsPerMessage = 1000
}

/// A field to delete: the `index`th (from 1) of the fields named `name`, as `smfi_chgheader`
/// counts them (names compared without regard to case).
package struct MilterFieldDeletion: Equatable, Sendable {
    package var name: String
    package var index: Int

    package init(name: String, index: Int) {
        self.name = name
        self.index = index
    }
}

/// A field to add at the top of the header.
package struct MilterFieldInsertion: Equatable, Sendable {
    package var name: String
    /// The value as it goes after the colon: a leading space, continuation lines after LF.
    package var value: String
}

/// What the milter does to the message: fields deleted, fields added; never the body.
package struct MilterChanges: Equatable, Sendable {
    /// In the order they are to be applied: later occurrences of a name first, so an index
    /// never shifts under a deletion.
    package var deletions: [MilterFieldDeletion] = []
    /// In the order they are to appear, top first.
    package var insertions: [MilterFieldInsertion] = []
}

/// One message as the milter receives it: the envelope's accounts, then header fields one at
/// a time, then the body in pieces. It is rebuilt as the bytes the filter reads (each field as
/// `Name:value` with CRLF, an empty line, the body), in memory up to
/// ``Limits/wholeMessageBytes`` and in an unlinked spool file beyond (``FilterSpool``), up to
/// ``FilterHook/maxAnalyzedBytes``. The forged fields are found while the header arrives,
/// by the filter's ``ForgedFieldScanner``. One connection's callbacks run one at a time, so an
/// instance is used by one thread at a time.
package final class MilterMessage {
    package private(set) var accounts: [Account] = []
    /// Account recipients past ``MilterLimits/maximumAccountsPerMessage``.
    package private(set) var accountsDropped = 0
    private var seen: Set<String> = []
    private var memory: [UInt8] = []
    private var spool: FilterSpool?
    private(set) var size = 0
    /// Why the message is not analysed (too large, the spool failed); nil when it is.
    package private(set) var unanalysed: String?
    /// ``unanalysed`` as a code for the log line: `too-large` or `spool-failed`.
    var unanalysedCode: String? {
        guard let unanalysed else { return nil }
        return unanalysed.hasPrefix("message larger") ? "too-large" : "spool-failed"
    }
    private var scanner: ForgedFieldScanner
    /// Each field's name and where it starts in the rebuilt message.
    private var fields: [(name: String, start: Int)] = []
    private var headerEnded = false
    private let authservID: String

    package init(authservID: String) {
        self.authservID = authservID
        scanner = ForgedFieldScanner(authservID: authservID)
    }

    deinit {
        if let spool { close(spool.fd) }
    }

    /// An envelope recipient that is an account (``MilterSettings/account(forRecipient:)``).
    package func addAccount(_ account: Account) {
        guard seen.insert(account.address).inserted else { return }
        guard accounts.count < MilterLimits.maximumAccountsPerMessage else {
            accountsDropped += 1
            return
        }
        accounts.append(account)
    }

    /// A header field: `value` as the MTA sends it with the leading space kept
    /// (`SMFIP_HDR_LEADSPC`); line breaks in it become CRLF.
    package func header(name: String, value: String) {
        header(name: name, value: Array(value.utf8))
    }

    /// A header field whose value is taken byte for byte (8-bit text in a field stays as sent,
    /// for DKIM's hashes).
    package func header(name: String, value: [UInt8]) {
        var bytes = Array(name.utf8) + [UInt8(ascii: ":")]
        var previous: UInt8 = 0
        for byte in value {
            if byte == 0x0A, previous != 0x0D { bytes.append(0x0D) }
            bytes.append(byte)
            previous = byte
        }
        bytes += [0x0D, 0x0A]
        fields.append((name, size))
        append(bytes)
    }

    /// The empty line that ends the header.
    package func endOfHeader() {
        append([0x0D, 0x0A])
        headerEnded = true
    }

    /// A piece of the body, as the MTA sends it (CRLF line ends).
    package func body(_ piece: UnsafeBufferPointer<UInt8>) {
        if !headerEnded { endOfHeader() }
        append(Array(piece))
    }

    private func append(_ bytes: [UInt8]) {
        if !headerEnded { bytes.withUnsafeBufferPointer { scanner.scan($0) } }
        guard unanalysed == nil else { return }
        guard size + bytes.count <= FilterHook.maxAnalyzedBytes else {
            unanalysed = "message larger than \(FilterHook.maxAnalyzedBytes >> 20) MB"
            dropContent()
            return
        }
        size += bytes.count
        if spool != nil {
            guard spool?.append(bytes) == true else {
                unanalysed = "cannot write the spool file (\(String(cString: strerror(spool?.lastError ?? 0))))"
                dropContent()
                return
            }
        } else {
            memory += bytes
            if memory.count > Limits.wholeMessageBytes {
                guard let made = FilterSpool(holding: memory) else {
                    unanalysed = "cannot write a spool file in \(TemporaryFile.directory) (\(String(cString: strerror(errno))))"
                    dropContent()
                    return
                }
                spool = made
                memory = []
            }
        }
    }

    private func dropContent() {
        memory = []
        if let spool { close(spool.fd) }
        spool = nil
    }

    /// The forged fields as deletions (``MilterFieldDeletion``): each field a removal of the
    /// scanner touches, later occurrences first.
    package func deletions() -> [MilterFieldDeletion] {
        var copy = scanner
        copy.finish()
        var deleted: [Int] = []
        for removal in copy.result.removals {
            for (index, field) in fields.enumerated() {
                let end = index + 1 < fields.count ? fields[index + 1].start : Int.max
                if field.start < removal.upperBound, removal.lowerBound < end, deleted.last != index { deleted.append(index) }
            }
        }
        var result: [MilterFieldDeletion] = []
        for index in Set(deleted).sorted(by: >) {
            let name = fields[index].name.lowercased()
            let occurrence = fields[...index].filter { $0.name.lowercased() == name }.count
            result.append(MilterFieldDeletion(name: fields[index].name, index: occurrence))
        }
        return result
    }

    /// The message as the pipeline reads it; nil when it is not analysed.
    var raw: RawMessage? {
        guard unanalysed == nil else { return nil }
        if let spool { return RawMessage(file: MessageFile(.descriptor(spool.fd), size: spool.size), origin: MessageOrigin(path: nil)) }
        return RawMessage(bytes: memory, origin: MessageOrigin(path: nil))
    }
}

extension FilterHook {
    /// ``milterChanges(_:)`` within the time budget (`--timeout` seconds; none with 0): the work
    /// runs on a thread of its own, and when the budget runs out first the answer is the
    /// forged fields' deletions with our `Authentication-Results` saying the budget ran out
    /// (`dkim=temperror`), as the filter's. The work still finishes in the background, so the
    /// bookings are recorded (or kept for retry) after the message has gone on.
    ///
    /// `finished` is called with the message's ``MilterOutcome`` once its recording ends, on
    /// the thread that ran it (after the reply when the budget ran out).
    package func milterChangesWithinBudget(_ message: MilterMessage, finished: (@Sendable (MilterOutcome) -> Void)? = nil) -> MilterChanges {
        let start = milterClock.nanoseconds()
        guard timeout > 0 else { return milterChanges(message, start: start, finished: finished) }
        let work = MilterWork(hook: self, message: message, start: start, finished: finished)
        MilterWork.running.add(1, ordering: .relaxed)
        var thread = pthread_t()
        let started = pthread_create(
            &thread, nil,
            { raw in
                guard let raw else { return nil }
                let work = Unmanaged<MilterWork>.fromOpaque(raw).takeRetainedValue()
                work.result = work.hook.milterChanges(
                    work.message, start: work.start, finished: work.finished,
                    pastBudget: { work.pastBudget.load(ordering: .relaxed) })
                sem_post(work.done)
                MilterWork.running.subtract(1, ordering: .relaxed)
                return nil
            }, Unmanaged.passRetained(work).toOpaque())
        guard started == 0 else {
            // No thread to be had: the work runs here, without a budget.
            Unmanaged.passUnretained(work).release()
            MilterWork.running.subtract(1, ordering: .relaxed)
            return milterChanges(message, start: start, finished: finished)
        }
        pthread_detach(thread)
        guard milterClock.wait(for: work.done, seconds: timeout) else {
            work.pastBudget.store(true, ordering: .relaxed)
            Output.error("milter: time budget of \(timeout) s exceeded; the message went on, the bookings are recorded when the analysis ends")
            var changes = MilterChanges(deletions: message.deletions())
            changes.insertions = Self.insertions(String(decoding: Self.timeoutFields(resolvedAuthservID, "\n"), as: UTF8.self))
            return changes
        }
        return work.result ?? MilterChanges(deletions: message.deletions())
    }

    /// Messages whose analysis is still running, on time or past the budget: a stopping
    /// milter waits for them (``MilterWork``).
    package static var milterWorkRunning: Int { MilterWork.running.load(ordering: .relaxed) }

    /// The end of a milter message: verifies, extracts and decides trust once; records the
    /// trusted reservations under each account of `message`, each in its own store handle,
    /// keeping a retry record for an account whose recording met a passing failure; returns
    /// the fields to delete and to add. Any failure adds nothing but still deletes the forged
    /// fields. Calendar pushes are not made here: the site's calendar settings are not an
    /// account's, and events wait in the store for `reservoir sync --account`.
    package func milterChanges(_ message: MilterMessage) -> MilterChanges {
        var outcome = MilterOutcome()
        return milterChanges(message, outcome: &outcome)
    }

    /// ``milterChanges(_:)`` that hands its ``MilterOutcome`` to `finished`, timed from `start`.
    func milterChanges(
        _ message: MilterMessage, start: UInt64, finished: (@Sendable (MilterOutcome) -> Void)?, pastBudget: () -> Bool = { false }
    ) -> MilterChanges {
        var outcome = MilterOutcome()
        let changes = milterChanges(message, outcome: &outcome)
        outcome.pastBudget = pastBudget()
        outcome.milliseconds = Int((milterClock.nanoseconds() - start) / 1_000_000)
        finished?(outcome)
        return changes
    }

    /// ``milterChanges(_:)`` that says in `outcome` what it did.
    package func milterChanges(_ message: MilterMessage, outcome: inout MilterOutcome) -> MilterChanges {
        outcome.accounts = message.accounts.map(\.address)
        var changes = MilterChanges(deletions: message.deletions())
        if message.accountsDropped > 0 {
            Output.error(
                "milter: \(message.accountsDropped) account recipients past the first \(MilterLimits.maximumAccountsPerMessage) not filed")
        }
        if let problem = milterSettingsProblem {
            Output.error("milter: configuration: \(problem) (message passed unanalysed, with \(FilterHeaders.errorFieldName))")
            outcome.unanalysed = "configuration"
            changes.insertions = Self.insertions(FilterHeaders.errorField("configuration: \(problem)", lineEnding: "\n"))
            return changes
        }
        guard let raw = message.raw else {
            outcome.unanalysed = message.unanalysedCode
            Output.error("milter: \(message.unanalysed ?? "message unavailable"): message passed without analysis")
            return changes
        }
        let budget = Deadline.after(milliseconds: timeout > 0 ? Int64(timeout) * 1000 : CalendarPusher.hookPushMilliseconds)
        do {
            let runner = try CommandRunner(
                keys: keys, policy: policy, store: .none, now: now, includePast: includePast,
                pendingDays: pendingDays, resolver: resolver?())
            // One analysis (one DNS lookup per key), decided for the site and for each account.
            let analysis = runner.pipeline.analysis(raw)
            let report = runner.pipeline.decide(analysis)
            outcome.read(report)
            var added = FilterHeaders.fields(report: report, authservID: resolvedAuthservID, lineEnding: "\n")
            if !noStore {
                // Each account judges with its own settings (docs/SITE.md): bound to its own
                // address and aliases, its domains and pass types added to the site's. The
                // message's fields, one copy for every recipient, say the site's judgement.
                for account in message.accounts {
                    let pipeline = runner.pipeline.deciding(
                        under: try CommandRunner.trustPolicy(
                            settings.scoped(to: account).policy, publicSuffixes: runner.pipeline.policy.publicSuffixes))
                    added += record(pipeline.decide(analysis), from: raw, for: account, pipeline: pipeline, budget: budget, outcome: &outcome)
                }
            }
            changes.insertions = Self.insertions(added)
        } catch {
            outcome.failure = "\(error)"
            Output.error("milter: \(error) (message passed without results)")
        }
        return changes
    }

    /// Records `report` under `account`, in a store handle of its own; on a passing failure a
    /// retry record in the account's spool, and the `X-Reservoir-Error` field when none can be
    /// kept.
    private func record(
        _ report: MessageReport, from raw: RawMessage, for account: Account, pipeline: ReservationPipeline, budget: Deadline,
        outcome: inout MilterOutcome
    ) -> String {
        var filed = report
        var storeProblem: String?
        var seconds: Double?
        defer { outcome.recorded(filed, seconds: seconds) }
        // A genuine sender not chosen yet waits as pending for the account (docs/USAGE.md,
        // "Pending senders"); one the account allowed in the store is read again from the bytes.
        if report.hasReservationsToKeep {
            let started = milterClock.nanoseconds()
            do {
                let store = try CommandRunner.openStore(at: store, busyTimeoutMilliseconds: storeWait(budget), quiet: true, account: account)
                pipeline.record(&filed, into: store)
                seconds = Double(milterClock.nanoseconds() - started) / 1e9
            } catch {
                storeProblem = "\(error)"
            }
        }
        guard let transient = TransientFailure.reason(filed, storeProblem: storeProblem) else { return "" }
        guard let spool = Self.retrySpool(retrySpool, for: account) else {
            outcome.lost.append(account.address)
            Output.error("milter: \(account): \(transient) (not kept for retry: no retry spool; set retry-spool)")
            return FilterHeaders.errorField("retry: not kept (no retry spool)", lineEnding: "\n")
        }
        switch spool.keep(raw) {
        case .kept(let path):
            outcome.retried.append(account.address)
            Output.error("milter: \(account): \(transient) (kept for reservoir retry --account \(account.address) as \(path))")
            return ""
        case .refused(let why):
            outcome.lost.append(account.address)
            Output.error("milter: \(account): \(transient) (not kept for retry: \(why))")
            return FilterHeaders.errorField("retry: not kept: \(why)", lineEnding: "\n")
        }
    }

    /// An account's retry spool: `accounts/ADDRESS/` inside the site's spool
    /// (``RetrySpool/forAccount(_:)``), which `reservoir retry --account ADDRESS` replays.
    package static func retrySpool(_ configured: String?, for account: Account) -> RetrySpool? {
        RetrySpool.locate(configured)?.forAccount(account)
    }

    /// Folded fields (LF line ends) as insertions: each name, and its value after the colon.
    static func insertions(_ text: String) -> [MilterFieldInsertion] {
        var result: [MilterFieldInsertion] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            if line.first == " " || line.first == "\t", !result.isEmpty {
                result[result.count - 1].value += "\n" + line
            } else if let colon = line.firstIndex(of: ":") {
                result.append(MilterFieldInsertion(name: String(line[..<colon]), value: String(line[line.index(after: colon)...])))
            }
        }
        return result
    }
}

/// One message's work on its own thread: `result` is written by that thread before it posts
/// `done`, and read only after waiting for `done`.
private final class MilterWork: @unchecked Sendable {
    /// Works started and not yet finished.
    static let running = Atomic<Int>(0)

    let hook: FilterHook
    let message: MilterMessage
    let start: UInt64
    let finished: (@Sendable (MilterOutcome) -> Void)?
    /// Set when the reply went without waiting for the work.
    let pastBudget = Atomic<Bool>(false)
    var result: MilterChanges?
    /// At a fixed address: a semaphore must not move.
    let done = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)

    init(hook: FilterHook, message: MilterMessage, start: UInt64, finished: (@Sendable (MilterOutcome) -> Void)?) {
        self.hook = hook
        self.message = message
        self.start = start
        self.finished = finished
        sem_init(done, 0, 0)
    }

    deinit {
        sem_destroy(done)
        done.deallocate()
    }
}

/// Why a site refuses a PostgreSQL role that row-level security does not hold.
package enum RowSecurity {
    package static func refusal(_ role: String) -> String {
        "the PostgreSQL role \(role) is a superuser or has BYPASSRLS, so row-level security would not hold the accounts apart; connect as an ordinary role that owns the database (docs/SITE.md, \"PostgreSQL for several hosts\")"
    }
}

/// What the milter checks at start and at a reload, before it reports ready: its settings, the
/// store it records into (a PostgreSQL server reached, the login accepted, the schema current,
/// the role held by row-level security; a SQLite store made or migrated) and the retry spool.
package enum MilterStartCheck {
    /// Why settings cannot be used, with the sysexits code the milter exits with at start.
    package struct Failure: Error, Equatable {
        package var message: String
        package var code: Int32
    }

    /// What start and reload (SIGHUP) do alike: the arguments read over `configuration` (64 for
    /// a malformed option), the settings checked (78: the configuration file, keys, allowed
    /// domains, pass CA files, accounts), then the store (opened, its role held by row-level
    /// security) and the retry spool (made and writable).
    /// `.success(nil)` is `--help`.
    package static func settings(_ arguments: [String], configuration: ConfigurationLoad) -> Result<MilterSettings?, Failure> {
        // The file first: its accounts are the site's, so without it there are none to name.
        if let problem = configuration.problem, !arguments.contains(where: { $0 == "--help" || $0 == "-h" }) {
            return .failure(Failure(message: problem.description, code: 78))
        }
        let settings: MilterSettings
        switch MilterSettings.read(arguments, configuration: configuration) {
        case .help: return .success(nil)
        case .usage(let message): return .failure(Failure(message: message, code: 64))
        case .run(let read): settings = read
        }
        // A service says what is wrong at start, where the filter, run per message, fails open.
        if let problem = settings.hook.milterSettingsProblem { return .failure(Failure(message: problem, code: 78)) }
        do {
            _ = try CommandRunner(
                keys: settings.hook.keys, policy: settings.hook.policy, store: .none, now: settings.hook.now, includePast: false)
        } catch {
            return .failure(Failure(message: "\(error)", code: 78))
        }
        if let failure = storeAndSpoolFailure(settings.hook) { return .failure(failure) }
        return .success(settings)
    }

    private static func storeAndSpoolFailure(_ hook: FilterHook) -> Failure? {
        guard !hook.noStore else { return nil }
        do {
            let store = try CommandRunner.openStore(at: hook.store, use: .record(createDirectories: false), quiet: true)
            // A site's accounts are held apart by the database too, only for an ordinary role.
            if let role = try store.roleBypassingRowSecurity() { return Failure(message: RowSecurity.refusal(role), code: 78) }
        } catch let failure as CommandFailure {
            return Failure(message: "\(failure)", code: failure.exitCode)
        } catch {
            return Failure(message: "\(error)", code: 78)
        }
        // sysexits.h EX_CANTCREAT: a spool it cannot write would lose what it was to keep.
        if let spool = RetrySpool.locate(hook.retrySpool), let problem = spool.unwritable { return Failure(message: problem, code: 73) }
        return nil
    }
}
