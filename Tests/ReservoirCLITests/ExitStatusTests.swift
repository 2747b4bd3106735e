import Foundation
import Testing

/// Exit statuses a script or a mail system acts on (sysexits.h where one fits).
@Suite("exit statuses")
struct ExitStatusTests {
    @Test("help for a command that does not exist is a usage error; for one that does, success")
    func helpUnknown() throws {
        let unknown = try ReservoirBinary.run(["help", "nosuch"])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("no command nosuch"))
        #expect(try ReservoirBinary.run(["help", "sync"]).status == 0)
    }

    @Test("events --history of a booking the store does not know exits 1; of one it knows, 0")
    func historyUnknown() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let store = try ICalendarExportCLITests.scannedStore(tmp)
        let unknown = try ReservoirBinary.run(["events", "--history", "NOSUCH", "--store", store])
        #expect(unknown.status == 1)
        #expect(unknown.text == "No history for NOSUCH.\n")
        let known = try ReservoirBinary.run(["events", "--history", "IWDSCA", "--store", store])
        #expect(known.status == 0)
        #expect(known.text.contains("cancelled"))
    }

    @Test("events --history --json: the booking's changes in order, as JSON; an unknown ID is an empty list and exit 1")
    func historyJSON() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let store = try ICalendarExportCLITests.scannedStore(tmp)
        let known = try ReservoirBinary.run(["events", "--history", "IWDSCA", "--json", "--store", store])
        #expect(known.status == 0)
        let entries = try #require(try JSONSerialization.jsonObject(with: known.stdout) as? [[String: Any]])
        #expect(entries.compactMap { $0["change"] as? String } == ["created", "updated", "cancelled"])
        #expect(entries.compactMap { $0["sequence"] as? Int } == [0, 1, 2])
        #expect(entries.allSatisfy { $0["signingDomain"] as? String == "epicsteak.example" })
        let unknown = try ReservoirBinary.run(["events", "--history", "NOSUCH", "--json", "--store", store])
        #expect(unknown.status == 1)
        #expect(unknown.text == "[]\n")
        #expect(try ReservoirBinary.run(["events", "--history", "IWDSCA", "--ics", "--store", store]).status == 64)
    }

    @Test("events on a store that does not exist: 66 (EX_NOINPUT) with its path in every format, and nothing created")
    func eventsLeaveNoStore() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let path = tmp.path + "/not-yet/events.sqlite3"
        for format in [[], ["--json"], ["--ics"], ["--history", "IWDSCA"]] {
            let r = try ReservoirBinary.run(["events", "--store", "sqlite:" + path] + format)
            #expect(r.status == 66 && r.stderr.contains(path) && r.stdout.isEmpty, "\(format): \(r.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: tmp.path + "/not-yet"))
    }

    @Test("scan --json ends with one summary object with the same counts as the text summary")
    func scanJSONSummary() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let r = try ReservoirBinary.run([
            "scan", ReservoirBinary.samples.path, "--json", "--keys", ReservoirBinary.keys, "--allowed-domains", ReservoirBinary.allowed,
            "--now", ReservoirBinary.now, "--store", "sqlite:\(tmp.path)/store.db",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.text.split(separator: "\n")
        let last = try #require(lines.last)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any])
        let summary = try #require(object["summary"] as? [String: Any])
        #expect(summary["messages"] as? Int == lines.count - 1)
        #expect((summary["trusted"] as? Int ?? 0) > 0)
        #expect((summary["events"] as? [String: Int])?["created"] != nil)
        #expect((summary["reservations"] as? [String: Int])?["food"] != nil)
    }

    @Test("verify --exit-status: 0 when every signature passes, 1 for a failing one; without the flag always 0")
    func verifyExitStatus() throws {
        let good = try ReservoirBinary.run(["verify", "--exit-status", "--keys", ReservoirBinary.keys, try ReservoirBinary.sample(1)])
        #expect(good.status == 0)
        let altered = try ReservoirBinary.run(["verify", "--exit-status", "--keys", ReservoirBinary.keys, try ReservoirBinary.sample(8)])
        #expect(altered.status == 1)
        #expect(altered.text.contains("fail"))
        let unsigned = try ReservoirBinary.run(
            ["verify", "--exit-status", "-"], stdin: Data("From: a@example.org\nSubject: x\n\nbody\n".utf8))
        #expect(unsigned.status == 1)
        #expect(try ReservoirBinary.run(["verify", "--keys", ReservoirBinary.keys, try ReservoirBinary.sample(8)]).status == 0)
    }

    @Test("events --json lists what the text list lists: upcoming events not cancelled, every one with --all")
    func eventsJSONFilters() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let store = try ICalendarExportCLITests.scannedStore(tmp)
        func count(_ arguments: [String]) throws -> Int {
            let r = try ReservoirBinary.run(["events", "--json", "--store", store] + arguments)
            #expect(r.status == 0)
            return (try JSONSerialization.jsonObject(with: r.stdout) as? [Any])?.count ?? -1
        }
        // 2031-06-04: the dinner (May) and the first day of the flights are over; the hotel stay, the spa appointment
        // and the train are not.
        #expect(try count(["--now", "2031-06-04T00:00:00Z"]) == 3)
        #expect(try count(["--now", "2031-06-04T00:00:00Z", "--all"]) == 6)
        // Before any of them: all but the cancelled dinner.
        #expect(try count(["--now", ReservoirBinary.now]) == 5)
    }

    @Test("banner only looks: without --store nothing is written, with --store the change is recorded and shown")
    func bannerOnlyLooks() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let arguments = [
            "banner", try ReservoirBinary.sample(1), "--keys", ReservoirBinary.keys, "--allowed-domains", ReservoirBinary.allowed,
            "--now", ReservoirBinary.now,
        ]
        let looked = try ReservoirBinary.run(arguments, environment: ["HOME": tmp.path, "XDG_DATA_HOME": tmp.path + "/data"])
        #expect(looked.status == 0, "\(looked.stderr)")
        #expect(looked.text.contains("trusted: DKIM signature by epicsteak.example"))
        #expect(!looked.text.contains("new event"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp.path).isEmpty)
        let recorded = try ReservoirBinary.run(arguments + ["--store", "sqlite:\(tmp.path)/events.sqlite3"])
        #expect(recorded.text.contains("new event"))
        #expect(FileManager.default.fileExists(atPath: tmp.path + "/events.sqlite3"))
    }
}
