import CommandCore
import EventStore
import Foundation
import Testing

@Suite("The milter's line per message")
struct MilterOutcomeTests {
    @Test("the line has its fields in a fixed order, - for none, and no byte an MTA could use to forge a field")
    func format() {
        var outcome = MilterOutcome()
        outcome.queueID = "4XyZ1Q"
        outcome.accounts = ["jane@example.org", "joe@example.org"]
        outcome.dkim = "pass"
        outcome.dkimDomain = "airline.example"
        outcome.found = 2
        outcome.trusted = 1
        outcome.stored = 1
        outcome.refusals = ["not-aligned"]
        outcome.milliseconds = 12
        #expect(
            outcome.line
                == "queue=4XyZ1Q accounts=jane@example.org,joe@example.org dkim=pass domain=airline.example found=2 trusted=1 stored=1 refusals=not-aligned retry=- outcome=stored ms=12"
        )
        var bare = MilterOutcome()
        bare.queueID = "a b=c\nd"
        #expect(bare.line == "queue=a?b?c?d accounts=- dkim=none domain=- found=0 trusted=0 stored=0 refusals=- retry=- outcome=no-reservations ms=0")
    }

    @Test("past ten accounts the line counts the rest; a retry and a loss are said")
    func manyAccounts() {
        var outcome = MilterOutcome()
        outcome.accounts = (1...25).map { "user\($0)@example.org" }
        outcome.found = 1
        outcome.retried = ["user3@example.org"]
        outcome.lost = ["user4@example.org"]
        #expect(outcome.line.contains("user10@example.org,+15 "))
        #expect(!outcome.line.contains("user11@"))
        #expect(outcome.line.contains(" retry=user3@example.org outcome=lost lost=user4@example.org "))
        #expect(outcome.kind == .lost)
    }

    @Test("a real message to two accounts: its DKIM domain, what was trusted and stored, the other account's refusal; again, nothing new stored")
    func realMessage() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("outcome-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let site = try #require(
            MilterSessionTests.settings([
                "--socket", "inet:1@h", "--account-domain", "home.example", "--store", "sqlite:\(directory)/events.sqlite3", "--keys",
                MilterRecordingTests.samples + "/keys.zone", "--allowed-domains", MilterRecordingTests.samples + "/allowed-domains", "--now",
                "2026-11-22T12:00:00Z", "--authserv-id", "mx.example", "--retry-spool", directory + "/retry",
            ]))
        let sample = try #require(
            try FileManager.default.contentsOfDirectory(atPath: MilterRecordingTests.samples + "/cur").sorted().first.map {
                MilterRecordingTests.samples + "/cur/" + $0
            })
        func run() throws -> MilterOutcome {
            let message = MilterMessage(authservID: "mx.example")
            for recipient in ["<jane@home.example>", "<joe@home.example>"] {
                if let account = site.account(forRecipient: recipient) { message.addAccount(account) }
            }
            try MilterRecordingTests.feed(sample, into: message)
            var outcome = MilterOutcome()
            _ = site.hook.milterChanges(message, outcome: &outcome)
            return outcome
        }
        let first = try run()
        #expect(first.accounts == ["jane@home.example", "joe@home.example"])
        #expect(first.dkim == "pass")
        #expect(first.dkimDomain != nil)
        #expect(first.found > 0 && first.trusted == first.found)
        #expect(first.stored == first.found, "\(first.line)")
        // Joe's copy binds to his address, which the signed To does not name.
        #expect(!first.refusals.isEmpty, "\(first.line)")
        #expect(first.kind == .stored)
        // One recording: Joe's copy keeps nothing, so his store is not opened.
        #expect(first.storeSeconds.count == 1)
        #expect(first.line.contains("dkim=pass domain=\(first.dkimDomain ?? "") found=\(first.found)"))
        let again = try run()
        #expect(again.stored == 0 && again.kind == .unchanged, "\(again.line)")
    }
}
