import Foundation
import Testing

extension ProcessSuites {
    /// `reservoir scan --all-accounts`: each account's configured Maildir (the site's `maildir`
    /// template) into that account, one line per account; a missing Maildir said on its line
    /// while the others are read (exit 75); a later run reads only new files; a local part
    /// written to climb out of the template's directory reads nothing; mail a hook already
    /// recorded stays one event, one history line and one calendar copy.
    @Suite("scan --all-accounts: every account's Maildir into its account")
    struct ScanAllAccountsCLITests {
        /// The account whose local part would, written into the template as it is, name
        /// `TMP/victim/Maildir` instead of a directory below `TMP/vhome/home.example/`.
        static let climber = "../../victim@home.example"

        /// Copies the samples numbered `numbers` (all without) into a new Maildir at `path`.
        static func maildir(_ path: String, samples numbers: [Int]? = nil) throws {
            for sub in ["cur", "new", "tmp"] { try FileManager.default.createDirectory(atPath: path + "/" + sub, withIntermediateDirectories: true) }
            for folder in ["cur", "new"] {
                let dir = ReservoirBinary.samples.appendingPathComponent(folder).path
                for name in try FileManager.default.contentsOfDirectory(atPath: dir) {
                    if let numbers, !numbers.contains(where: { name.contains(".M\($0)P") }) { continue }
                    try FileManager.default.copyItem(atPath: dir + "/" + name, toPath: path + "/" + folder + "/" + name)
                }
            }
        }

        /// Each line of `scan --all-accounts --json` that is an account's, by account.
        static func accountLines(_ output: Data) -> [String: [String: Any]] {
            var lines: [String: [String: Any]] = [:]
            for line in String(decoding: output, as: UTF8.self).split(separator: "\n") {
                guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                    let account = object["account"] as? String
                else { continue }
                lines[account] = object
            }
            return lines
        }

        static func summary(_ line: [String: Any]?) -> [String: Any]? { line?["summary"] as? [String: Any] }

        @Test(
            "each account's Maildir into its account, a missing one said on its line (exit 75), a climbing local part reads nothing, a second run reads only what is new, a hook's booking stays one"
        )
        func allAccounts() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let base = tmp.path
            let store = "sqlite:\(base)/site.sqlite3"
            try Self.maildir(base + "/vhome/home.example/jane/Maildir")
            try Self.maildir(base + "/vhome/home.example/joe/Maildir", samples: [4])
            // Where the climbing account's Maildir would be if its local part were written as
            // it is: a booking addressed to the domain it is bound to.
            try Self.maildir(base + "/victim/Maildir", samples: [1])
            let config = base + "/config.toml"
            let site = """
                store = "\(store)"
                keys = "\(ReservoirBinary.keys)"
                allowed-domains = "\(ReservoirBinary.allowed)"
                authserv-id = "mx.test"
                maildir = "\(base)/vhome/{domain}/{local}/Maildir"
                calendar = ["vdir:\(base)/calendars/{account}"]
                [accounts."jane@home.example"]
                [accounts."joe@home.example"]
                aliases = ["@home.example"]
                [accounts."ann@home.example"]
                aliases = ["@home.example"]
                [accounts."\(Self.climber)"]
                aliases = ["@home.example"]

                """
            try site.write(toFile: config, atomically: true, encoding: .utf8)
            let environment = ["RESERVOIR_CONFIG": config]
            func scanAll() throws -> ReservoirBinary.Result {
                try ReservoirBinary.run(["scan", "--all-accounts", "--json", "--now", ReservoirBinary.now], environment: environment)
            }
            func events(_ account: String, store: String = store) throws -> [String] {
                let r = try ReservoirBinary.run(
                    ["events", "--all", "--json", "--store", store, "--account", account, "--now", ReservoirBinary.now], environment: environment)
                #expect(r.status == 0, "events --account \(account): \(r.stderr)")
                let list = try JSONSerialization.jsonObject(with: r.stdout) as? [[String: Any]] ?? []
                return list.map { "\($0["key"] as? String ?? "?") \($0["status"] as? String ?? "?")" }.sorted()
            }

            let first = try scanAll()
            #expect(first.status == 75, "Ann's Maildir does not exist: \(first.stderr)")
            let lines = Self.accountLines(first.stdout)
            #expect(lines.keys.sorted() == ["\(Self.climber)", "ann@home.example", "jane@home.example", "joe@home.example"], "\(first.text)")
            #expect(Self.summary(lines["jane@home.example"])?["messages"] as? Int == 11, "\(first.text)")
            #expect(Self.summary(lines["joe@home.example"])?["messages"] as? Int == 1, "\(first.text)")
            #expect(lines["jane@home.example"]?["problems"] == nil && lines["joe@home.example"]?["problems"] == nil)
            let annProblems = lines["ann@home.example"]?["problems"] as? [String] ?? []
            #expect(annProblems.contains { $0.contains("\(base)/vhome/home.example/ann/Maildir") }, "\(first.text)")
            #expect(Self.summary(lines["ann@home.example"]) == nil)
            // The climbing local part is one path segment below the template's directory, which
            // does not exist: nothing read, and the victim's booking is not the account's.
            let climbed = lines[Self.climber]?["maildirs"] as? [String] ?? []
            #expect(climbed == ["\(base)/vhome/home.example/%2E.%2F..%2Fvictim/Maildir"], "\(first.text)")
            #expect(Self.summary(lines[Self.climber]) == nil && !(lines[Self.climber]?["problems"] as? [String] ?? []).isEmpty)
            #expect(try events(Self.climber) == [])

            // The control: that Maildir read into the account by its path does record the
            // booking, so the run above would have shown a climb.
            let control = "sqlite:\(base)/control.sqlite3"
            let controlScan = try ReservoirBinary.run(
                ["scan", base + "/victim/Maildir", "--store", control, "--account", Self.climber, "--now", ReservoirBinary.now],
                environment: environment)
            #expect(controlScan.status == 0, "\(controlScan.stderr)")
            #expect(try events(Self.climber, store: control).count == 1)

            // Each account holds what a scan of its Maildir by path into a fresh store records.
            let reference = "sqlite:\(base)/reference.sqlite3"
            for (account, maildir) in [("jane@home.example", "jane"), ("joe@home.example", "joe")] {
                let r = try ReservoirBinary.run(
                    [
                        "scan", "\(base)/vhome/home.example/\(maildir)/Maildir", "--store", reference, "--account", account, "--no-calendar",
                        "--now", ReservoirBinary.now,
                    ], environment: environment)
                #expect(r.status == 0, "\(r.stderr)")
                let expected = try events(account, store: reference)
                #expect(!expected.isEmpty)
                #expect(try events(account) == expected, "\(account)")
            }

            // Ann's mail arrives through a hook that records it (as the milter does) before the
            // catch-up reads the delivered copy, our fields on top.
            try FileManager.default.createDirectory(atPath: base + "/vhome/home.example/ann/Maildir/tmp", withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: base + "/vhome/home.example/ann/Maildir/cur", withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: base + "/vhome/home.example/ann/Maildir/new", withIntermediateDirectories: true)
            let filtered = try ReservoirBinary.run(
                ["filter", "--account", "ann@home.example", "--now", ReservoirBinary.now], stdin: try ReservoirBinary.sampleMessage(1),
                environment: environment)
            #expect(filtered.status == 0 && filtered.text.hasPrefix("Authentication-Results: mx.test;"), "\(filtered.stderr)")
            try filtered.stdout.write(to: URL(fileURLWithPath: base + "/vhome/home.example/ann/Maildir/new/1795400000.M1P1.mx.test"))
            #expect(try events("ann@home.example").count == 1)

            let second = try scanAll()
            #expect(second.status == 75, "the climbing account's Maildir still does not exist: \(second.stderr)")
            let again = Self.accountLines(second.stdout)
            let jane = Self.summary(again["jane@home.example"])
            #expect(jane?["messages"] as? Int == 0 && jane?["unchangedNotRead"] as? Int == 11, "\(second.text)")
            let ann = Self.summary(again["ann@home.example"])
            #expect(ann?["messages"] as? Int == 1 && ann?["trusted"] as? Int == 1, "\(second.text)")
            #expect(ann?["events"] as? [String: Int] == ["unchanged": 1], "\(second.text)")
            #expect(again["ann@home.example"]?["problems"] == nil, "\(second.text)")
            // One event, one history line, one calendar copy.
            #expect(try events("ann@home.example").count == 1)
            let history = try ReservoirBinary.run(
                ["events", "--history", "IWDSCA", "--json", "--store", store, "--account", "ann@home.example"], environment: environment)
            let entries = try JSONSerialization.jsonObject(with: history.stdout) as? [[String: Any]] ?? []
            #expect(entries.count == 1, "\(history.text)")
            let copies = try FileManager.default.contentsOfDirectory(atPath: base + "/calendars/ann@home.example").filter { $0.hasSuffix(".ics") }
            #expect(copies.count == 1, "\(copies)")

            // The text form: one line per account, the missing Maildir named on its line.
            let text = try ReservoirBinary.run(["scan", "--all-accounts", "--now", ReservoirBinary.now], environment: environment)
            let accountLines = text.text.split(separator: "\n").filter { $0.hasPrefix("jane@") || $0.hasPrefix("joe@") || $0.hasPrefix("ann@") }
            #expect(accountLines.count == 3, "\(text.text)")
            #expect(text.text.contains("\(Self.climber): nothing read · "), "\(text.text)")

            // An account only the store holds (as the milter files an --account-domain
            // mailbox), its mailbox gone: said on its line, no failure once every listed
            // account's Maildir is read.
            let gone = try ReservoirBinary.run(
                ["filter", "--account", "gone@home.example", "--me", "@home.example", "--now", ReservoirBinary.now],
                stdin: try ReservoirBinary.sampleMessage(4), environment: environment)
            #expect(gone.status == 0, "\(gone.stderr)")
            #expect(try !events("gone@home.example").isEmpty)
            try site.replacingOccurrences(of: "[accounts.\"\(Self.climber)\"]\naliases = [\"@home.example\"]\n", with: "").write(
                toFile: config, atomically: true, encoding: .utf8)
            let last = try scanAll()
            #expect(last.status == 0, "\(last.text)\(last.stderr)")
            let lastLines = Self.accountLines(last.stdout)
            #expect(lastLines.keys.sorted() == ["ann@home.example", "gone@home.example", "jane@home.example", "joe@home.example"], "\(last.text)")
            let goneProblems = lastLines["gone@home.example"]?["problems"] as? [String] ?? []
            #expect(goneProblems.contains { $0.contains("gone/Maildir: no Maildir") }, "\(last.text)")

            // Paths and --all-accounts together, or neither: a usage error.
            #expect(try ReservoirBinary.run(["scan", "--all-accounts", base], environment: environment).status == 64)
            #expect(try ReservoirBinary.run(["scan"], environment: environment).status == 64)
            #expect(try ReservoirBinary.run(["scan", "--all-accounts", "--account", "jane@home.example"], environment: environment).status == 64)
        }
    }
}
