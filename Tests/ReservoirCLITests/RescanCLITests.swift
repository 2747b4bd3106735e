import Foundation
import Testing

extension ProcessSuites {
    /// Changing one's mind about the trust settings, as a newcomer does: seven confirmations
    /// refused under a short allow list are read again once the list is fixed, and only the
    /// messages whose outcome the change could alter are.
    @Suite("scan after the trust settings changed")
    struct RescanCLITests {
        static func scan(_ store: String, _ options: [String], json: Bool = false) throws -> ReservoirBinary.Result {
            try ReservoirBinary.run(
                ["scan", ReservoirBinary.samples.path, "--keys", ReservoirBinary.keys, "--now", ReservoirBinary.now, "--store", store]
                    + options + (json ? ["--json"] : []))
        }

        static func events(_ store: String) throws -> Int {
            try ReservoirBinary.run(["events", "--ics", "--store", store, "--now", ReservoirBinary.now]).text
                .components(separatedBy: "BEGIN:VEVENT").count - 1
        }

        /// The `{"summary": …}` line of `scan --json`.
        static func summary(_ r: ReservoirBinary.Result) throws -> [String: Any] {
            let last = try #require(r.text.split(separator: "\n").last)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any])
            return try #require(object["summary"] as? [String: Any])
        }

        @Test("seven refused under a short allow list; the fixed list reads again the five it could change, and says so")
        func allowListFixed() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let store = "sqlite:\(tmp.path)/events.sqlite3"
            let short = try Self.scan(store, ["--allow-domain", "epicsteak.example"])
            #expect(short.status == 0, "\(short.stderr)")
            #expect(short.text.contains("Scanned: 11 messages read · 10 with reservations · 3 trusted · 7 untrusted"), "\(short.text)")
            #expect(try Self.events(store) == 1)

            // The list fixed: the four confirmations refused for their domain, and the forward of
            // one (refused for its domain too), are read again. The altered message (a broken
            // signature), the pass (no --pass-ca), the newsletter and the trusted ones are not.
            let fixed = try Self.scan(store, ["--allowed-domains", ReservoirBinary.allowed])
            #expect(fixed.status == 0, "\(fixed.stderr)")
            #expect(fixed.text.contains("Scanned: 5 messages read · 5 with reservations · 4 trusted · 1 untrusted"), "\(fixed.text)")
            #expect(fixed.text.contains("5 read again: the trust settings changed"), "\(fixed.text)")
            #expect(fixed.text.contains("6 unchanged since the last scan, not read (--rescan reads them again)"), "\(fixed.text)")
            #expect(try Self.events(store) == 6)

            // The same settings again: nothing to read.
            let same = try Self.scan(store, ["--allowed-domains", ReservoirBinary.allowed], json: true)
            let unchanged = try Self.summary(same)
            #expect(unchanged["messages"] as? Int == 0)
            #expect(unchanged["unchangedNotRead"] as? Int == 11)
            #expect(unchanged["readAgainSettingsChanged"] as? Int == 0)

            // The pass settings: the one message with a pass.
            let passes = ["--pass-ca", ReservoirBinary.passCA, "--allow-pass-type", "pass.example.cascadia-air.*"]
            let withPasses = try Self.summary(try Self.scan(store, ["--allowed-domains", ReservoirBinary.allowed] + passes, json: true))
            #expect(withPasses["readAgainSettingsChanged"] as? Int == 1)
            #expect(withPasses["trusted"] as? Int == 1)
            #expect(try Self.events(store) == 7)

            // --me: the forward, now the user's; not the altered message, which no recipient can mend.
            let withMe = try Self.summary(
                try Self.scan(store, ["--allowed-domains", ReservoirBinary.allowed, "--me", "jane@home.example"] + passes, json: true))
            #expect(withMe["readAgainSettingsChanged"] as? Int == 1)
            #expect(withMe["unchangedNotRead"] as? Int == 10)
            #expect(try Self.events(store) == 8)

            // A testing switch: the altered message depends on it, and is read again (and stays refused).
            let unverified = try Self.summary(
                try Self.scan(
                    store, ["--allowed-domains", ReservoirBinary.allowed, "--me", "jane@home.example", "--allow-unverified"] + passes,
                    json: true))
            #expect(unverified["readAgainSettingsChanged"] as? Int == 1)
        }

        @Test("reservations skipped as ended are read again with --include-past")
        func includePast() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let store = "sqlite:\(tmp.path)/events.sqlite3"
            // 2032: every sample reservation has ended.
            let options = ["--allowed-domains", ReservoirBinary.allowed, "--now", "2032-01-01T00:00:00Z"]
            let first = try ReservoirBinary.run(
                ["scan", ReservoirBinary.samples.path, "--keys", ReservoirBinary.keys, "--store", store, "--json"] + options)
            #expect(try Self.summary(first)["messages"] as? Int == 11)
            #expect(try Self.summary(first)["withReservations"] as? Int == 0)
            #expect(try ReservoirBinary.run(["events", "--all", "--ics", "--store", store]).text.contains("BEGIN:VEVENT") == false)
            let past = try ReservoirBinary.run(
                ["scan", ReservoirBinary.samples.path, "--keys", ReservoirBinary.keys, "--store", store, "--json", "--include-past"] + options)
            let summary = try Self.summary(past)
            // Every message but the newsletter carried reservations that were skipped as ended.
            #expect(summary["readAgainSettingsChanged"] as? Int == 10, "\(summary)")
            #expect(summary["unchangedNotRead"] as? Int == 1, "\(summary)")
            #expect(try ReservoirBinary.run(["events", "--all", "--ics", "--store", store]).text.contains("BEGIN:VEVENT"))
        }
    }
}
