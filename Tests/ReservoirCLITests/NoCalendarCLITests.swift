import Foundation
import Testing

extension ProcessSuites {
    /// One run that leaves the calendars alone (`--no-calendar` over the configuration file's
    /// `calendar`), and settings checked before anything is recorded: a throwaway run never
    /// reaches the real calendar, and a typo never leaves half a run behind.
    @Suite("--no-calendar, and calendar settings checked before recording", .serialized)
    struct NoCalendarCLITests {
        /// A configuration file that pushes to a vdir in `dir`, with the samples' keys and domains.
        static func configuration(_ dir: TemporaryDirectory) throws -> [String: String] {
            let path = dir.path + "/config.toml"
            try Data(
                """
                store = "sqlite:\(dir.path)/events.sqlite3"
                keys = "\(ReservoirBinary.keys)"
                allowed-domains = "\(ReservoirBinary.allowed)"
                calendar = ["vdir:\(dir.path)/calendar"]
                """.utf8
            ).write(to: URL(fileURLWithPath: path))
            return ["RESERVOIR_CONFIG": path]
        }

        static func files(_ path: String) -> [String]? { try? FileManager.default.contentsOfDirectory(atPath: path) }

        static func events(_ store: String) throws -> Int {
            try ReservoirBinary.run(["events", "--ics", "--store", store]).text.components(separatedBy: "BEGIN:VEVENT").count - 1
        }

        @Test("scan --no-calendar records but writes nothing to the configured vdir; the next scan pushes it and says so")
        func scanSkipsCalendar() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let env = try Self.configuration(tmp)
            let skipped = try ReservoirBinary.run(
                ["scan", ReservoirBinary.samples.path, "--now", ReservoirBinary.now, "--no-calendar"], environment: env)
            #expect(skipped.status == 0, "\(skipped.stderr)")
            #expect(skipped.text.contains("Calendar: not pushed (--no-calendar)"), "\(skipped.text)")
            #expect(Self.files(tmp.path + "/calendar") == nil, "the vdir is not even created")
            #expect(try Self.events("sqlite:\(tmp.path)/events.sqlite3") == 6)

            // Without the switch the events recorded before reach the calendar, and the summary counts them.
            let pushed = try ReservoirBinary.run(["scan", ReservoirBinary.samples.path, "--now", ReservoirBinary.now], environment: env)
            #expect(pushed.status == 0, "\(pushed.stderr)")
            #expect(pushed.text.contains("Calendar: pushed 6 events to 1 calendar; 0 waiting"), "\(pushed.text)")
            #expect(Self.files(tmp.path + "/calendar")?.count == 6)
        }

        @Test("ingest and reservoir-filter --no-calendar record the booking and leave the configured vdir alone")
        func hooksSkipCalendar() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let env = try Self.configuration(tmp)
            let ingest = try ReservoirBinary.run(
                ["ingest", "--now", ReservoirBinary.now, "--no-calendar"], stdin: try ReservoirBinary.sampleMessage(1), environment: env)
            #expect(ingest.status == 0, "\(ingest.stderr)")
            let filter = try ReservoirBinary.run(
                ["--now", ReservoirBinary.now, "--authserv-id", "mx.test", "--no-calendar"], stdin: try ReservoirBinary.sampleMessage(4),
                environment: env, executable: ReservoirBinary.filterExecutable)
            #expect(filter.status == 0, "\(filter.stderr)")
            #expect(filter.text.contains("X-Reservation"))
            #expect(Self.files(tmp.path + "/calendar") == nil)
            #expect(try Self.events("sqlite:\(tmp.path)/events.sqlite3") == 3)
            // Control: the same hook without the switch pushes.
            let pushing = try ReservoirBinary.run(
                ["ingest", "--now", ReservoirBinary.now], stdin: try ReservoirBinary.sampleMessage(5), environment: env)
            #expect(pushing.status == 0, "\(pushing.stderr)")
            #expect(Self.files(tmp.path + "/calendar")?.count == 1)
        }

        @Test(
            "a calendar setting that cannot work is refused before the store changes",
            arguments: [
                (["--calendar", ""], Int32(64), "--no-calendar"),
                (["--calendar", "https://jane:s3cret@cal.example/dav/"], 64, "netrc"),
                (["--calendar", "cal.example/dav/"], 64, "vdir:PATH"),
                (["--calendar", "https://cal.example/dav/", "--netrc", "OPEN"], 73, "0600"),
                (["--calendar", "https://cal.example/dav/", "--calendar-ca", "/nonexistent/ca.pem"], 73, "CA file"),
            ] as [([String], Int32, String)])
        func refusedFirst(options: [String], status: Int32, says: String) throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let netrc = tmp.path + "/netrc"
            try #require(
                FileManager.default.createFile(atPath: netrc, contents: Data("machine cal.example login jane password s3cret\n".utf8)),
                "cannot write \(netrc)")
            chmod(netrc, 0o644)
            let options = options.map { $0 == "OPEN" ? netrc : $0 }
            let store = "sqlite:\(tmp.path)/events.sqlite3"
            let common = ["--keys", ReservoirBinary.keys, "--allowed-domains", ReservoirBinary.allowed, "--now", ReservoirBinary.now]
            // A fresh store: not even created.
            let fresh = try ReservoirBinary.run(["scan", ReservoirBinary.samples.path, "--store", store] + common + options)
            #expect(fresh.status == status, "\(fresh.stderr)")
            #expect(fresh.stderr.contains(says), "\(fresh.stderr)")
            #expect(!fresh.stderr.contains("s3cret") && !fresh.text.contains("s3cret"), "a password is never repeated")
            #expect(!FileManager.default.fileExists(atPath: tmp.path + "/events.sqlite3"))
            let ingest = try ReservoirBinary.run(["ingest", "--store", store] + common + options, stdin: try ReservoirBinary.sampleMessage(1))
            #expect(ingest.status == status, "\(ingest.stderr)")
            #expect(!FileManager.default.fileExists(atPath: tmp.path + "/events.sqlite3"))

            // A store that holds the short list's scan: the same scan under the fixed list and a
            // bad calendar changes nothing in it, and leaves the refused messages to be read again.
            let first = try ReservoirBinary.run(
                [
                    "scan", ReservoirBinary.samples.path, "--store", store, "--keys", ReservoirBinary.keys, "--now", ReservoirBinary.now,
                    "--allow-domain", "epicsteak.example",
                ])
            #expect(first.status == 0, "\(first.stderr)")
            #expect(try Self.events(store) == 1)
            let refused = try ReservoirBinary.run(["scan", ReservoirBinary.samples.path, "--store", store] + common + options)
            #expect(refused.status == status)
            #expect(try Self.events(store) == 1)

            // The filter passes the message through unanalysed, says why in a field, records nothing.
            let filter = try ReservoirBinary.run(
                ["--store", store, "--authserv-id", "mx.test"] + common + options, stdin: try ReservoirBinary.sampleMessage(5),
                executable: ReservoirBinary.filterExecutable)
            #expect(filter.status == 0)
            #expect(filter.text.hasPrefix("X-Reservoir-Error: configuration: "), "\(filter.text.prefix(300))")
            #expect(!filter.text.contains("X-Reservation:"))
            #expect(!filter.text.contains("s3cret") && !filter.stderr.contains("s3cret"))
            #expect(try Self.events(store) == 1)

            // Control: the same scan without the bad setting reads the refused messages again and records them.
            let fixed = try ReservoirBinary.run(["scan", ReservoirBinary.samples.path, "--store", store, "--json"] + common)
            #expect(fixed.text.contains("\"readAgainSettingsChanged\":5"), "\(fixed.text.suffix(400))")
            #expect(try Self.events(store) == 6)
        }
    }
}
