import Foundation
import PostgresTestSupport
import TestRequirements
import Testing

extension ProcessSuites {
    /// Trusted reservations delivered into a vdir by the filter hook, read back by Debian's
    /// khal and carried on by vdirsyncer, as a user who syncs a local calendar would.
    @Suite("calendar delivery into a vdir")
    struct VdirDeliveryTests {
        static let khal = "/usr/bin/khal"
        static let vdirsyncer = "/usr/bin/vdirsyncer"

        /// Runs `reservoir-filter` on sample `number` with the vdir as calendar.
        static func filter(_ number: Int, _ tmp: TemporaryDirectory, calendar: String, extra: [String] = []) throws -> ReservoirBinary.Result {
            try ReservoirBinary.run(
                [
                    "--keys", ReservoirBinary.keys, "--allowed-domains", ReservoirBinary.allowed, "--now", ReservoirBinary.now,
                    "--store", "sqlite:\(tmp.path)/events.sqlite3", "--authserv-id", "mx.test", "--calendar", calendar,
                ] + extra,
                stdin: try ReservoirBinary.sampleMessage(number), executable: ReservoirBinary.filterExecutable)
        }

        static func files(_ path: String) -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
        }

        static func property(_ file: String, _ name: String) -> [String] {
            ((try? String(contentsOfFile: file, encoding: .utf8)) ?? "").components(separatedBy: "\r\n")
                .filter { $0.hasPrefix(name + ":") || $0.hasPrefix(name + ";") }
        }

        @Test("book, move, cancel and replay through the filter: one file at the store's revision, the mail unchanged by the push")
        func filterLifecycle() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let vdir = tmp.path + "/calendar"
            let plainStore = try TemporaryDirectory()
            defer { plainStore.remove() }
            for number in [1, 2, 3] {
                let delivered = try Self.filter(number, tmp, calendar: "vdir:" + vdir)
                #expect(delivered.status == 0, "\(delivered.stderr)")
                #expect(delivered.stderr.isEmpty, "\(delivered.stderr)")
                // The same message without a calendar: the mail is byte-identical.
                let plain = try Self.filter(number, plainStore, calendar: "vdir:" + plainStore.path + "/c", extra: ["--no-store"])
                #expect(delivered.stdout == plain.stdout)
            }
            let file = vdir + "/IWDSCA_1_epicsteak.example@reservoir.ics"
            #expect(Self.files(vdir) == ["IWDSCA_1_epicsteak.example@reservoir.ics"])
            #expect(Self.property(file, "SEQUENCE") == ["SEQUENCE:2"])
            #expect(Self.property(file, "STATUS") == ["STATUS:CANCELLED"])
            #expect(Self.property(file, "DTSTART") == ["DTSTART:20310513T013000Z"])
            #expect(Self.property(file, "METHOD").isEmpty)

            // A replay changes nothing: the file is not even rewritten.
            let before = try FileManager.default.attributesOfItem(atPath: file)[.modificationDate] as? Date
            for number in [1, 2, 3] { #expect(try Self.filter(number, tmp, calendar: "vdir:" + vdir).status == 0) }
            let after = try FileManager.default.attributesOfItem(atPath: file)[.modificationDate] as? Date
            #expect(before != nil && before == after)
        }

        @Test("UIDs are readable (hyphens as written); an event stored under a percent-encoded UID keeps it: its updates rewrite the same file")
        func uidsKept() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let vdir = tmp.path + "/calendar"
            // The dinner recorded and pushed as a release before readable UIDs did: its UID
            // percent-encoded its hyphens (here the separators only), kept in the store.
            #expect(try Self.filter(1, tmp, calendar: "vdir:" + vdir, extra: ["--no-calendar"]).status == 0)
            let old = "IWDSCA-1-epicsteak.example@reservoir"
            let sql = "UPDATE events SET uid = '\(old)' WHERE container = 'IWDSCA';"
            let script = "import sqlite3, sys\nc = sqlite3.connect(sys.argv[1])\nc.execute(sys.argv[2])\nc.commit()"
            let updated = try ChildProcess.capture(["/usr/bin/python3", "-c", script, tmp.path + "/events.sqlite3", sql])
            #expect(updated.status == 0, "\(String(decoding: updated.stderr, as: UTF8.self))")
            let synced = try ReservoirBinary.run(["sync", "--store", "sqlite:\(tmp.path)/events.sqlite3", "--calendar", "vdir:" + vdir])
            #expect(synced.status == 0, "\(synced.stderr)")
            #expect(Self.files(vdir) == [old + ".ics"])
            // Moved, then cancelled: the same calendar object each time, never a second one.
            for number in [2, 3] { #expect(try Self.filter(number, tmp, calendar: "vdir:" + vdir).status == 0) }
            #expect(Self.files(vdir) == [old + ".ics"])
            #expect(Self.property(vdir + "/" + old + ".ics", "UID") == ["UID:" + old])
            #expect(Self.property(vdir + "/" + old + ".ics", "STATUS") == ["STATUS:CANCELLED"])
            #expect(Self.property(vdir + "/" + old + ".ics", "SEQUENCE") == ["SEQUENCE:2"])
            // A new booking's UID reads as its booking: hyphens kept, parts joined by "_".
            #expect(try Self.filter(4, tmp, calendar: "vdir:" + vdir).status == 0)
            let flight = Self.files(vdir).filter { $0.hasPrefix("K7Q2PX") }
            #expect(
                flight == [
                    "K7Q2PX_C7412-SFO-2031-06-03_cascadia-air.example@reservoir.ics", "K7Q2PX_C788-SEA-2031-06-03_cascadia-air.example@reservoir.ics",
                ], "\(Self.files(vdir))")
        }

        @Test("a calendar that cannot be written: the mail goes out, the event waits, and sync delivers it later")
        func outboxThenSync() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            // A regular file where the vdir should be: nothing can be written there (root too).
            let vdir = tmp.path + "/calendar"
            try #require(FileManager.default.createFile(atPath: vdir, contents: Data("not a directory".utf8)), "cannot write \(vdir)")
            let delivered = try Self.filter(4, tmp, calendar: "vdir:" + vdir)
            #expect(delivered.status == 0)
            #expect(delivered.text.contains("X-Reservation"))
            #expect(delivered.stderr.contains("calendar"), "\(delivered.stderr)")

            let store = "sqlite:\(tmp.path)/events.sqlite3"
            let waiting = try ReservoirBinary.run(["sync", "--store", store, "--calendar", "vdir:" + vdir, "--json"])
            #expect(waiting.status == 73, "\(waiting.stderr)")

            try FileManager.default.removeItem(atPath: vdir)
            let synced = try ReservoirBinary.run(["sync", "--store", store, "--calendar", "vdir:" + vdir, "--json"])
            #expect(synced.status == 0, "\(synced.stderr)")
            let report = try JSONSerialization.jsonObject(with: synced.stdout) as? [String: Any]
            let pushed = report?["pushed"] as? [[String: Any]] ?? []
            #expect(pushed.map { $0["outcome"] as? String } == ["created", "created"])
            #expect((report?["waiting"] as? [Any])?.isEmpty == true)
            #expect(Self.files(vdir).count == 2)
            // Nothing left: a second sync pushes nothing.
            let again = try ReservoirBinary.run(["sync", "--store", store, "--calendar", "vdir:" + vdir])
            #expect(again.status == 0)
            #expect(again.text == "0 pushed, 0 waiting\n")
        }

        @Test("sync reports an event that waits because the destination keeps failing, with exit 75")
        func syncReportsWaiting() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let store = "sqlite:\(tmp.path)/events.sqlite3"
            #expect(try Self.filter(5, tmp, calendar: "vdir:" + tmp.path + "/ok").status == 0)
            // The directory exists but the event's file name is taken by a directory: the write fails.
            let vdir = tmp.path + "/blocked"
            try FileManager.default.createDirectory(
                atPath: vdir + "/HV-20310603-5521_1_harborview-hotels.example@reservoir.ics", withIntermediateDirectories: true)
            let result = try ReservoirBinary.run(["sync", "--store", store, "--calendar", "vdir:" + vdir, "--json"])
            #expect(result.status == 75, "\(result.stderr)")
            let report = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any]
            let waiting = report?["waiting"] as? [[String: Any]] ?? []
            #expect(waiting.count == 1)
            #expect(waiting.first?["failures"] as? Int == 1)
            #expect((waiting.first?["last_error"] as? String)?.hasPrefix("local-file: ") == true, "\(waiting)")
        }

        @Test("the calendar, store and keys from the configuration file alone: the filter delivers, sync finds nothing waiting")
        func fromConfiguration() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let config = tmp.path + "/config.toml"
            try """
            keys = "\(ReservoirBinary.keys)"
            allowed-domains = "\(ReservoirBinary.allowed)"
            store = "sqlite:\(tmp.path)/events.sqlite3"
            calendar = ["vdir:\(tmp.path)/calendar"]
            """.write(toFile: config, atomically: true, encoding: .utf8)
            let environment = ["RESERVOIR_CONFIG": config]
            for number in [1, 4] {
                let r = try ReservoirBinary.run(
                    ["--now", ReservoirBinary.now], stdin: try ReservoirBinary.sampleMessage(number), environment: environment,
                    executable: ReservoirBinary.filterExecutable)
                #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
                #expect(r.text.contains("X-Reservation"))
            }
            #expect(Self.files(tmp.path + "/calendar").count == 3)
            let sync = try ReservoirBinary.run(["sync"], environment: environment)
            #expect(sync.status == 0, "\(sync.stderr)")
            #expect(sync.text == "0 pushed, 0 waiting\n")
        }

        @Test("forget removes a booking from the store and the vdir; a vdir that cannot be written then waits for sync")
        func forget() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let vdir = tmp.path + "/calendar"
            let store = "sqlite:\(tmp.path)/events.sqlite3"
            for number in [4, 5] { #expect(try Self.filter(number, tmp, calendar: "vdir:" + vdir).status == 0) }
            #expect(Self.files(vdir).count == 3)

            let flights = try ReservoirBinary.run(["forget", "K7Q2PX", "--store", store, "--calendar", "vdir:" + vdir])
            #expect(flights.status == 0, "\(flights.stderr)")
            #expect(flights.text.contains("forgotten: K7Q2PX/C7412-SFO-2031-06-03 Flight: C7 412 from SFO to SEA"))
            #expect(Self.files(vdir) == ["HV-20310603-5521_1_harborview-hotels.example@reservoir.ics"])
            let history = try ReservoirBinary.run(["events", "--history", "K7Q2PX", "--store", store])
            #expect(history.text.contains("forgotten"))
            #expect(try ReservoirBinary.run(["forget", "K7Q2PX", "--store", store]).status == 1)

            // The hotel, with the vdir's file in the way of removal: it waits, and sync removes it later.
            let file = vdir + "/HV-20310603-5521_1_harborview-hotels.example@reservoir.ics"
            try FileManager.default.removeItem(atPath: file)
            try FileManager.default.createDirectory(atPath: file + "/blocked", withIntermediateDirectories: true)
            let hotel = try ReservoirBinary.run(["forget", "HV-20310603-5521", "--store", store, "--calendar", "vdir:" + vdir])
            #expect(hotel.status == 0)
            #expect(hotel.stderr.contains("not delivered"), "\(hotel.stderr)")
            let waiting = try ReservoirBinary.run(["sync", "--store", store, "--calendar", "vdir:" + vdir, "--json"])
            #expect(waiting.status == 75)
            #expect(waiting.text.contains("\"remove\":true"))
            try FileManager.default.removeItem(atPath: file)
            let synced = try ReservoirBinary.run(["sync", "--store", store, "--calendar", "vdir:" + vdir])
            #expect(synced.status == 0, "\(synced.text)")
            #expect(try ReservoirBinary.run(["events", "--all", "--json", "--store", store]).text == "[]\n")
        }

        @Test(
            "khal lists the delivered bookings at their times, the cancelled one cancelled",
            .enabled(if: Requirement.met(FileManager.default.isExecutableFile(atPath: khal)), "khal is not installed (apt-get install khal)"))
        func khalReads() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let vdir = tmp.path + "/calendar"
            for number in [1, 2, 3, 4, 5, 6] { #expect(try Self.filter(number, tmp, calendar: "vdir:" + vdir).status == 0) }
            let config = """
                [calendars]
                [[reservations]]
                path = \(vdir)
                [locale]
                timeformat = %H:%M
                dateformat = %Y-%m-%d
                longdateformat = %Y-%m-%d
                datetimeformat = %Y-%m-%d %H:%M
                longdatetimeformat = %Y-%m-%d %H:%M
                default_timezone = UTC
                local_timezone = UTC
                """
            try config.write(toFile: tmp.path + "/khal.conf", atomically: true, encoding: .utf8)
            let khal = try ReservoirBinary.run(
                ["-c", tmp.path + "/khal.conf", "list", "--format", "{start} {title} {status}", "2031-05-01", "2031-08-01"],
                environment: ["XDG_DATA_HOME": tmp.path + "/data", "XDG_CONFIG_HOME": tmp.path + "/config", "TZ": "UTC"],
                executable: URL(fileURLWithPath: Self.khal))
            #expect(khal.status == 0, "\(khal.stderr)")
            let lines = khal.text.split(separator: "\n").map(String.init)
            #expect(lines.contains { $0.hasPrefix("2031-05-13 01:30 Reservation: EPIC Steak") && $0.contains("CANCELLED") }, "\(khal.text)")
            #expect(lines.contains { $0.hasPrefix("2031-06-03 15:15 Flight: C7 412 from SFO to SEA") }, "\(khal.text)")
            #expect(lines.contains { $0.contains("Train: EC 15 from Zürich HB to Milano Centrale") }, "\(khal.text)")
            #expect(lines.contains { $0.contains("Hotel: Harborview Hotel Boston") }, "\(khal.text)")
        }

        @Test(
            "vdirsyncer carries the delivered events and their updates to another storage",
            .enabled(
                if: Requirement.met(FileManager.default.isExecutableFile(atPath: vdirsyncer)),
                "vdirsyncer is not installed (apt-get install vdirsyncer)"))
        func vdirsyncerSyncs() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let vdir = tmp.path + "/reservoir/reservations"
            let other = tmp.path + "/other/reservations"
            try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: true)
            #expect(try Self.filter(1, tmp, calendar: "vdir:" + vdir).status == 0)
            let config = """
                [general]
                status_path = "\(tmp.path)/status/"
                [pair reservations]
                a = "ours"
                b = "theirs"
                collections = ["reservations"]
                [storage ours]
                type = "filesystem"
                path = "\(tmp.path)/reservoir/"
                fileext = ".ics"
                [storage theirs]
                type = "filesystem"
                path = "\(tmp.path)/other/"
                fileext = ".ics"
                """
            try config.write(toFile: tmp.path + "/vdirsyncer.conf", atomically: true, encoding: .utf8)
            func vdirsyncer(_ arguments: [String]) throws -> ReservoirBinary.Result {
                try ReservoirBinary.run(
                    ["-c", tmp.path + "/vdirsyncer.conf"] + arguments, stdin: Data("y\n".utf8),
                    executable: URL(fileURLWithPath: Self.vdirsyncer))
            }
            let discover = try vdirsyncer(["discover"])
            #expect(discover.status == 0, "\(discover.stderr)")
            let first = try vdirsyncer(["sync"])
            #expect(first.status == 0, "\(first.stderr)")
            #expect(Self.files(other).count == 1)
            let copied = other + "/" + (Self.files(other).first ?? "")
            #expect(Self.property(copied, "SEQUENCE") == ["SEQUENCE:0"])

            // The booking moves: the filter rewrites our file, vdirsyncer carries the update.
            #expect(try Self.filter(2, tmp, calendar: "vdir:" + vdir).status == 0)
            let second = try vdirsyncer(["sync"])
            #expect(second.status == 0, "\(second.stderr)")
            #expect(Self.files(other).count == 1)
            #expect(Self.property(other + "/" + (Self.files(other).first ?? ""), "SEQUENCE") == ["SEQUENCE:1"])
        }
    }
}
