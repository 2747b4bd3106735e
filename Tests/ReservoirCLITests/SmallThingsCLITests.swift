import Foundation
import Testing

/// Small things a person meets: a mistyped command, a count of one, a history line.
@Suite("small things: did you mean, 1 message, history lines")
struct SmallThingsCLITests {
    static let options = ["--keys", ReservoirBinary.keys, "--allowed-domains", ReservoirBinary.allowed, "--now", ReservoirBinary.now]

    @Test(
        "a mistyped command: exit 64 with the command meant; a word near none gets no guess",
        arguments: [
            (["sacn", "~/Maildir"], "scan"), (["evnets"], "events"), (["fliter"], "filter"), (["help", "sacn"], "scan"), (["retyr"], "retry"),
            (["confg", "--check"], "config"), (["xyzzy"], nil),
        ])
    func didYouMean(arguments: [String], meant: String?) throws {
        let r = try ReservoirBinary.run(arguments)
        #expect(r.status == 64, "\(arguments): \(r.status)")
        let typed = arguments[0] == "help" ? arguments[1] : arguments[0]
        #expect(r.stderr.contains("no command \(typed)"), "\(r.stderr)")
        if let meant {
            #expect(r.stderr.contains("did you mean \(meant)?"), "\(r.stderr)")
        } else {
            #expect(!r.stderr.contains("did you mean"), "\(r.stderr)")
        }
        #expect(!r.stderr.contains("unexpected argument"), "\(r.stderr)")
    }

    @Test("a scan of one message says 1 message, not 1 messages")
    func oneMessage() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let r = try ReservoirBinary.run(["scan", try ReservoirBinary.sample(1), "--store", "sqlite:\(tmp.path)/e.sqlite3"] + Self.options)
        #expect(r.status == 0, "\(r.stderr)")
        // "1 messages" alone; a rate such as "(91 messages/s)" ends in 1 too.
        #expect(r.text.contains("1 message read") && !r.text.contains(/(^|[^0-9.,])1 messages/), "\(r.text)")
    }

    @Test("the history says each change once: #0 created, not created: created; a change with details names it")
    func historyLines() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let store = "sqlite:\(tmp.path)/e.sqlite3"
        for number in [1, 2] {
            let r = try ReservoirBinary.run(["scan", try ReservoirBinary.sample(number), "--store", store] + Self.options)
            #expect(r.status == 0, "\(r.stderr)")
        }
        let history = try ReservoirBinary.run(["events", "--history", "IWDSCA", "--store", store])
        #expect(history.status == 0, "\(history.stderr)")
        let lines = history.text.split(separator: "\n").filter { $0.contains("#") }
        #expect(lines.count == 2, "\(history.text)")
        #expect(lines.first?.hasSuffix("#0 created  (vouched by epicsteak.example)") == true, "\(history.text)")
        #expect(lines.last?.contains("#1 updated: start ") == true, "\(history.text)")
        #expect(!history.text.contains("created: created"))
    }

    @Test("the samples' README lists every sample in one table")
    func samplesTable() throws {
        let readme = try String(contentsOf: ReservoirBinary.samples.appendingPathComponent("README.md"), encoding: .utf8)
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false)
        let header = try #require(lines.firstIndex { $0.hasPrefix("| file") })
        let rows = lines[(header + 2)...].prefix { $0.hasPrefix("|") }
        let samples = try ["cur", "new"].flatMap {
            try FileManager.default.contentsOfDirectory(atPath: ReservoirBinary.samples.appendingPathComponent($0).path)
        }
        #expect(rows.count == samples.count, "\(rows.count) rows in the table's first block, \(samples.count) samples")
    }
}
