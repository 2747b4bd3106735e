import CommandCore
import DNS
import Dispatch
import EventStore
import Foundation
import Glibc
import Synchronization
import Testing

@Suite("The milter's recipients, settings and field changes")
struct MilterSessionTests {
    static func settings(_ arguments: [String]) -> MilterSettings? {
        if case .run(let settings) = MilterSettings.read(arguments, configuration: .none) { return settings }
        return nil
    }

    @Test(
        "a plain mailbox of the site is its account, its domain normalized",
        arguments: [
            ("<jane@example.org>", "jane@example.org"), ("jane@EXAMPLE.org", "jane@example.org"),
            ("<Jane.Doe+trips@example.org>", "jane.doe@example.org"), ("<joe@bücher.example>", "joe@xn--bcher-kva.example"),
        ])
    func accountRecipients(_ envelope: String, _ address: String) throws {
        let site = try #require(
            Self.settings(["--socket", "unix:/run/m.sock", "--account-domain", "example.org", "--account-domain", "Bücher.example"]))
        #expect(site.account(forRecipient: envelope)?.address == address)
    }

    /// Addresses that route elsewhere or are not plain mailboxes are never accounts, whatever
    /// domain they end in: each would file a booking under an address the site never delivers to.
    @Test(
        "hostile recipients are no account",
        arguments: [
            "<\"jane\"@example.org>", "<\"jane doe\"@example.org>", "<@relay.example:jane@example.org>", "<>",
            "<jane%evil.example@example.org>", "<evil.example!jane@example.org>", "<a/b@example.org>", "<.jane@example.org>",
            "<jane.@example.org>", "<ja..ne@example.org>", "<jane@example.org", "<jane@evil.example>", "<jane@sub.example.org>",
            "<jane@example.org.evil.example>", "<jane>", "<jane\u{0}@example.org>", "<jäne@example.org>",
        ])
    func hostileRecipients(_ envelope: String) throws {
        let site = try #require(Self.settings(["--socket", "inet:8894@127.0.0.1", "--account-domain", "example.org"]))
        #expect(site.account(forRecipient: envelope) == nil)
    }

    @Test("with --account only the listed mailboxes are accounts, under their listed spelling whatever the case of the recipient")
    func listedAccounts() throws {
        let site = try #require(Self.settings(["--socket", "inet:8894@127.0.0.1", "--account", "jane@Example.ORG", "--account=joe@example.org"]))
        #expect(site.account(forRecipient: "<jane@example.org>")?.address == "jane@example.org")
        #expect(site.account(forRecipient: "<joe@EXAMPLE.org>")?.address == "joe@example.org")
        #expect(site.account(forRecipient: "<JANE@example.org>")?.address == "jane@example.org")
        let spelled = try #require(Self.settings(["--socket", "inet:1@h", "--account", "Jane.Doe@example.org"]))
        #expect(spelled.account(forRecipient: "<jane.doe@EXAMPLE.org>")?.address == "Jane.Doe@example.org")
        #expect(site.account(forRecipient: "<other@example.org>") == nil)
    }

    /// (recipient, --recipient-delimiter or nil for the default, the account or nil for none)
    /// with `joe@example.org`, `a+b@example.org` and `postmaster@example.org` listed and the
    /// account domain `family.example`.
    static let detailRecipients: [(String, String?, String?)] = [
        ("<joe+trips@example.org>", nil, "joe@example.org"), ("<joe@example.org>", nil, "joe@example.org"),
        ("<JOE+Trips@EXAMPLE.org>", nil, "joe@example.org"), ("<joe+trips+more@example.org>", nil, "joe@example.org"),
        ("<joe+trips@example.org>", "", nil), ("<joe@example.org>", "", "joe@example.org"),
        ("<joe-trips@example.org>", nil, nil), ("<joe-trips@example.org>", "+-", "joe@example.org"),
        ("<joe+trips@example.org>", "-", nil), ("<joe_trips@example.org>", "_", "joe@example.org"),
        ("<+trips@example.org>", nil, nil), ("<a+b@example.org>", nil, "a+b@example.org"), ("<a+c@example.org>", nil, nil),
        ("<jane+trips@example.org>", nil, nil), ("<postmaster+x@example.org>", nil, "postmaster@example.org"),
        ("<mailer-daemon@family.example>", "-", "mailer-daemon@family.example"),
        ("<ann+trips@family.example>", nil, "ann@family.example"), ("<+trips@family.example>", nil, "+trips@family.example"),
        ("<owner-list@family.example>", "-", "owner-list@family.example"), ("<list-request@family.example>", "-", "list-request@family.example"),
        ("<ann-trips@family.example>", "-", "ann@family.example"), ("<ann+trips@evil.example>", nil, nil),
        ("<ann+trips@family.example>", "", "ann+trips@family.example"),
    ]

    @Test(
        "a detail address is its base's account when the base is one, the address as written first (Postfix's recipient_delimiter)",
        arguments: detailRecipients)
    func detailAddress(_ envelope: String, _ delimiter: String?, _ account: String?) throws {
        let arguments = [
            "--socket", "inet:1@h", "--account", "joe@example.org", "--account", "a+b@example.org", "--account", "postmaster@example.org",
            "--account-domain", "family.example",
        ]
        let site = try #require(Self.settings(arguments + (delimiter.map { ["--recipient-delimiter=" + $0] } ?? [])))
        #expect(site.account(forRecipient: envelope)?.address == account, "\(envelope) with \(delimiter ?? "the default")")
    }

    @Test("a delimiter holding a letter, a digit, @ or a character that routes elsewhere is refused", arguments: ["x", "1", "@", "%", "+ ", "é"])
    func refusedDelimiter(_ delimiter: String) {
        guard
            case .usage = MilterSettings.read(
                ["--socket", "inet:1@h", "--account", "a@b.example", "--recipient-delimiter=" + delimiter], configuration: .none)
        else {
            Issue.record("\(delimiter) was accepted")
            return
        }
    }

    @Test(
        "the milter's own arguments are checked; the rest are the filter's",
        arguments: [
            ["--account", "jane@example.org"], ["--socket", "inet:8894@127.0.0.1"], ["--socket", "tcp:8894", "--account", "a@b.example"],
            ["--socket", "inet:99999@127.0.0.1", "--account", "a@b.example"], ["--socket", "unix:relative", "--account", "a@b.example"],
            ["--socket", "inet:1@h", "--account", "not-an-address"], ["--socket", "inet:1@h", "--account-domain", "a b"],
            ["--socket", "inet:1@h", "--account", "a@b.example", "--no-such-option"], ["--socket"],
            ["--socket", "inet:1@h", "--account", "jane@b.example", "--account", "Jane@b.example"],
        ])
    func refusedArguments(_ arguments: [String]) {
        guard case .usage = MilterSettings.read(arguments, configuration: .none) else {
            Issue.record("\(arguments) was accepted")
            return
        }
    }

    @Test("the filter's options reach the hook")
    func filterOptions() throws {
        let site = try #require(
            Self.settings([
                "--socket", "inet:1@h", "--account", "a@b.example", "--authserv-id", "mx.example", "--store", "sqlite:/tmp/x", "--timeout", "3",
            ]))
        #expect(site.hook.resolvedAuthservID == "mx.example")
        #expect(site.hook.store == "sqlite:/tmp/x")
        #expect(site.hook.timeout == 3)
        #expect(site.socket == "inet:1@h")
    }

    static func message(_ fields: [(String, String)], authservID: String = "mx.example") -> MilterMessage {
        let message = MilterMessage(authservID: authservID)
        for (name, value) in fields { message.header(name: name, value: value) }
        message.endOfHeader()
        let body = Array("Hello\r\n".utf8)
        body.withUnsafeBufferPointer { message.body($0) }
        return message
    }

    @Test("forged fields become deletions by name and occurrence, later ones first; genuine fields stay")
    func forgedDeletions() {
        let message = Self.message([
            ("Received", " from a"), ("Authentication-Results", " upstream.example; dkim=pass"),
            ("Authentication-Results", " mx.example; dkim=pass header.d=forged.example"), ("X-Reservation", " Flight forged"),
            ("AUTHENTICATION-RESULTS", " mx.example;\n\tarc=pass"), ("Subject", " hi"), ("x-reservation", " another"),
            ("X-Reservoir-Error", " none"),
        ])
        #expect(
            message.deletions() == [
                MilterFieldDeletion(name: "X-Reservoir-Error", index: 1), MilterFieldDeletion(name: "x-reservation", index: 2),
                MilterFieldDeletion(name: "AUTHENTICATION-RESULTS", index: 3), MilterFieldDeletion(name: "X-Reservation", index: 1),
                MilterFieldDeletion(name: "Authentication-Results", index: 2),
            ])
    }

    @Test("a message without forged fields has no deletions")
    func noDeletions() {
        let message = Self.message([("From", " a@b.example"), ("Authentication-Results", " other.example; dkim=none")])
        #expect(message.deletions().isEmpty)
    }

    @Test("recipients are counted once each, up to the limit")
    func accountLimit() {
        let message = MilterMessage(authservID: "mx.example")
        for n in 0..<(MilterLimits.maximumAccountsPerMessage + 5) {
            message.addAccount(Account(normalizedAddress: "user\(n)@example.org"))
            message.addAccount(Account(normalizedAddress: "user\(n)@example.org"))
        }
        #expect(message.accounts.count == MilterLimits.maximumAccountsPerMessage)
        #expect(message.accountsDropped == 5)
    }

    @Test("with an invalid configuration nothing is analysed: the error field is added and forged fields still deleted")
    func configurationProblem() throws {
        var site = try #require(Self.settings(["--socket", "inet:1@h", "--account", "a@example.org", "--authserv-id", "mx.example"]))
        site.hook.configurationProblem = ConfigurationProblem(.syntax, file: "/etc/reservoir/config.toml", "bad")
        let message = Self.message([("X-Reservation", " forged"), ("From", " a@b.example")])
        message.addAccount(Account(normalizedAddress: "a@example.org"))
        let changes = site.hook.milterChanges(message)
        #expect(changes.deletions == [MilterFieldDeletion(name: "X-Reservation", index: 1)])
        #expect(changes.insertions.map(\.name) == ["X-Reservoir-Error"])
    }

    @Test("an account's retry spool is a directory of its own in the site's")
    func retrySpool() {
        let spool = FilterHook.retrySpool("/var/spool/reservoir", for: Account(normalizedAddress: "jane@example.org"))
        #expect(spool?.directory == "/var/spool/reservoir/accounts/jane@example.org")
    }
}

@Suite("The milter files one analysis under each account")
struct MilterRecordingTests {
    static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Maildir-samples").path

    /// A Maildir file as the MTA hands it to a milter: fields (value with its leading space,
    /// continuation lines after LF), then the body with CRLF line ends.
    static func feed(_ path: String, into message: MilterMessage) throws {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let parts = text.components(separatedBy: "\n\n")
        var fields: [(String, String)] = []
        for line in parts[0].split(separator: "\n", omittingEmptySubsequences: false) {
            if line.first == " " || line.first == "\t", !fields.isEmpty {
                fields[fields.count - 1].1 += "\n" + line
            } else if let colon = line.firstIndex(of: ":") {
                fields.append((String(line[..<colon]), String(line[line.index(after: colon)...])))
            }
        }
        for (name, value) in fields { message.header(name: name, value: value) }
        message.endOfHeader()
        let body = Array(parts.dropFirst().joined(separator: "\n\n").replacingOccurrences(of: "\n", with: "\r\n").utf8)
        body.withUnsafeBufferPointer { message.body($0) }
    }

    @Test("a confirmation to two accounts is filed under the one it names, and under no one else")
    func twoAccounts() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("milter-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = "sqlite:\(directory)/events.sqlite3"
        let site = try #require(
            MilterSessionTests.settings([
                "--socket", "inet:1@h", "--account-domain", "home.example", "--store", store, "--keys", Self.samples + "/keys.zone",
                "--allowed-domains", Self.samples + "/allowed-domains", "--now", "2026-11-22T12:00:00Z", "--authserv-id", "mx.example",
                "--retry-spool", directory + "/retry",
            ]))
        let sample = try #require(
            try FileManager.default.contentsOfDirectory(atPath: Self.samples + "/cur").sorted().first.map { Self.samples + "/cur/" + $0 })
        let message = MilterMessage(authservID: "mx.example")
        for recipient in ["<jane@home.example>", "<joe@home.example>", "<jane@home.example>", "<someone@elsewhere.example>"] {
            if let account = site.account(forRecipient: recipient) { message.addAccount(account) }
        }
        try Self.feed(sample, into: message)
        let changes = site.hook.milterChanges(message)
        #expect(changes.insertions.first?.name == "Authentication-Results")
        #expect(changes.insertions.first?.value.hasPrefix(" mx.example;") == true)
        #expect(changes.insertions.first?.value.contains("dkim=pass") == true)
        #expect(changes.insertions.contains { $0.name == "X-Reservation" })
        func keys(_ account: Account) throws -> [String] {
            try CommandRunner.openStore(at: store, use: .read, account: account).events().map { "\($0.event.key)" }.sorted()
        }
        let jane = try keys(Account(normalizedAddress: "jane@home.example"))
        #expect(!jane.isEmpty)
        // The sample's signed To names Jane: Joe's copy binds to his own address and is not his booking.
        #expect(try keys(Account(normalizedAddress: "joe@home.example")) == [])
        #expect(try keys(.implicit) == [])
        #expect(try keys(Account(normalizedAddress: "someone@elsewhere.example")) == [])
    }

    @Test("a message past the in-memory limit is spooled and still analysed")
    func spooled() throws {
        let site = try #require(
            MilterSessionTests.settings(["--socket", "inet:1@h", "--account", "a@example.org", "--no-store", "--authserv-id", "mx.example"]))
        let message = MilterMessage(authservID: "mx.example")
        message.header(name: "From", value: " a@b.example")
        message.header(name: "X-Reservation", value: " forged")
        message.endOfHeader()
        let line = Array(String(repeating: "x", count: 998).utf8) + [0x0D, 0x0A]
        for _ in 0..<3000 { line.withUnsafeBufferPointer { message.body($0) } }
        let changes = site.hook.milterChanges(message)
        #expect(changes.deletions == [MilterFieldDeletion(name: "X-Reservation", index: 1)])
        #expect(changes.insertions.first?.value.contains("dkim=none") == true, "\(changes.insertions)")
    }
}

@Suite("The milter's time budget")
struct MilterBudgetTests {
    @Test("a key lookup that outlasts the budget: the message goes on in time, marked so, and the booking is kept for retry")
    func budget() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("milter-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var site = try #require(
            MilterSessionTests.settings([
                "--socket", "inet:1@h", "--account", "jane@home.example", "--store", "sqlite:\(directory)/events.sqlite3",
                "--timeout", "1", "--allowed-domains", MilterRecordingTests.samples + "/allowed-domains", "--now", "2026-11-22T12:00:00Z",
                "--authserv-id", "mx.example", "--retry-spool", directory + "/retry",
            ]))
        // A key lookup that answers (a time-out) only once the reply went, on a clock whose
        // budget passes as soon as it is waited for.
        let lookups = HeldLookups()
        defer { lookups.release() }
        site.hook.resolver = { HeldResolver(lookups) }
        let clock = SteppingMilterClock()
        site.hook.milterClock = clock
        let sample = try #require(
            try FileManager.default.contentsOfDirectory(atPath: MilterRecordingTests.samples + "/cur").sorted().first.map {
                MilterRecordingTests.samples + "/cur/" + $0
            })
        let message = MilterMessage(authservID: "mx.example")
        message.addAccount(Account(normalizedAddress: "jane@home.example"))
        message.header(name: "X-Reservation", value: " forged")
        try MilterRecordingTests.feed(sample, into: message)
        let start = Date()
        let finished = FinishedOutcome()
        let changes = site.hook.milterChangesWithinBudget(message) { finished.set($0) }
        let elapsed = Date().timeIntervalSince(start)
        #expect(elapsed < 4, "the answer took \(elapsed) s with a 1 s budget")
        #expect(clock.waited == [1], "the budget waited for: \(clock.waited)")
        #expect(finished.get() == nil, "the analysis ended before the reply")
        #expect(changes.deletions == [MilterFieldDeletion(name: "X-Reservation", index: 1)])
        #expect(changes.insertions.count == 1)
        #expect(changes.insertions.first?.value.contains("time budget exceeded") == true, "\(changes.insertions)")
        // The lookup times out after the reply; the analysis goes on and ends in the account's
        // retry spool (dkim=temperror).
        lookups.release()
        let spool = directory + "/retry/accounts/jane@home.example"
        var records: [String] = []
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, records.isEmpty {
            records = ((try? FileManager.default.contentsOfDirectory(atPath: spool)) ?? []).filter { $0.hasSuffix(".eml") }
            usleep(10_000)
        }
        #expect(records.count == 1, "nothing kept in \(spool)")
        #expect(lookups.asked > 0)
        // Its line, once the recording ended after the reply: past the budget, kept for retry.
        while Date() < deadline, finished.get() == nil { usleep(10_000) }
        let outcome = try #require(finished.get())
        #expect(outcome.pastBudget && outcome.retried == ["jane@home.example"] && outcome.kind == .retry, "\(outcome.line)")
        #expect(outcome.dkim == "temperror" && outcome.line.contains(" past-budget=yes ms="), "\(outcome.line)")
        #expect(outcome.milliseconds >= 1000, "\(outcome.line)")
    }
}

/// Key lookups held until ``release()``, then answered with a time-out, as a nameserver that
/// never answers is after `--dns-timeout`.
final class HeldLookups: Sendable {
    private let state = Mutex((released: false, asked: 0))
    private let gate = DispatchSemaphore(value: 0)

    /// Lookups made so far.
    var asked: Int { state.withLock { $0.asked } }

    /// Waits until released; a time-out.
    func lookup() -> TXTLookupResult {
        let held = state.withLock {
            $0.asked += 1
            return !$0.released
        }
        if held {
            gate.wait()
            // Every held lookup wakes the next one.
            gate.signal()
        }
        return .temporaryFailure("timed out")
    }

    func release() {
        let first = state.withLock { state in
            let first = !state.released
            state.released = true
            return first
        }
        if first { gate.signal() }
    }
}

/// One message's resolver over ``HeldLookups``.
final class HeldResolver: TXTResolver {
    let lookups: HeldLookups

    init(_ lookups: HeldLookups) { self.lookups = lookups }

    func lookupTXT(_ name: String) -> TXTLookupResult { lookups.lookup() }
}

/// A milter clock on which waiting for the budget passes it at once: the budget's seconds are
/// added to the time, and the work is found unfinished unless it already was.
final class SteppingMilterClock: MilterClock {
    private let state = Mutex((now: UInt64(1_000_000_000), waited: [Int]()))

    /// The seconds each budget wait was for.
    var waited: [Int] { state.withLock { $0.waited } }

    func nanoseconds() -> UInt64 { state.withLock { $0.now } }

    func wait(for done: UnsafeMutablePointer<sem_t>, seconds: Int) -> Bool {
        if sem_trywait(done) == 0 { return true }
        state.withLock {
            $0.now += UInt64(seconds) * 1_000_000_000
            $0.waited.append(seconds)
        }
        return false
    }
}

/// The outcome a milter's work hands over from its own thread.
final class FinishedOutcome: @unchecked Sendable {
    private var outcome: MilterOutcome?
    private let lock = NSLock()

    func set(_ value: MilterOutcome) { lock.withLock { outcome = value } }
    func get() -> MilterOutcome? { lock.withLock { outcome } }
}

@Suite("The milter's accounts file")
struct AccountsFileTests {
    @Test("mailboxes and domains, one a line, normalized; comments and blank lines skipped; CRLF read")
    func reads() {
        let text = "# the site\r\njane@Example.ORG\r\n\r\n  @Bücher.example  \r\njoe@example.org\n"
        #expect(
            AccountsFile.read(text)
                == .success(AccountsFile.Listed(accounts: ["jane@example.org", "joe@example.org"], domains: ["xn--bcher-kva.example"])))
    }

    @Test("a line that is neither is refused with its number", arguments: ["jane", "@", "@a b", "jane doe@example.org", "@x@y"])
    func refuses(_ line: String) {
        guard case .failure(let problem) = AccountsFile.read("jane@example.org\n" + line + "\n") else {
            Issue.record("\(line) was taken")
            return
        }
        #expect(problem.line == 2)
    }

    @Test("--accounts-file adds to --account and --account-domain")
    func withOptions() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("accounts-\(UUID().uuidString)").path
        try "joe@example.org\n@example.net\n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let site = try #require(MilterSessionTests.settings(["--socket", "inet:1@h", "--account", "jane@example.org", "--accounts-file", path]))
        #expect(site.accounts == ["jane@example.org", "joe@example.org"])
        #expect(site.accountDomains == ["example.net"])
        #expect(site.account(forRecipient: "<anyone@example.net>")?.address == "anyone@example.net")
        guard case .usage = MilterSettings.read(["--socket", "inet:1@h", "--accounts-file", path + ".missing"], configuration: .none) else {
            Issue.record("a missing accounts file was accepted")
            return
        }
    }
}
