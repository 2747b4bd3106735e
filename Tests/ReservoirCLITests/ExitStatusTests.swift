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
