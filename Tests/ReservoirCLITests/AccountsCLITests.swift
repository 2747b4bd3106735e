import Foundation
import Testing

extension ProcessSuites {
    /// One store, several people (`--account`): the same confirmation delivered to two accounts
    /// is two events, a cancellation delivered to one cancels only that one, and nothing lists
    /// one account's bookings to another. Through the hook program and the CLI, as a site's
    /// Postfix `pipe` or Exim router hands each recipient's copy over.
    @Suite("accounts: one store, several people")
    struct AccountsCLITests {
        static let options = ["--keys", ReservoirBinary.keys, "--allowed-domains", ReservoirBinary.allowed, "--now", ReservoirBinary.now]

        /// The site's configuration: the samples are addressed to jane@home.example, and each
        /// account's mail must name one of its addresses (recipient binding follows the
        /// account), so the household's accounts list the household's domain among theirs.
        static func siteConfiguration(in directory: String, calendar: String? = nil) throws -> [String: String] {
            let path = directory + "/config.toml"
            try """
            \(calendar.map { "calendar = [\"\($0)\"]" } ?? "")
            [accounts."jane@example.org"]
            aliases = ["@home.example"]
            [accounts."joe@example.org"]
            aliases = ["@home.example"]
            [accounts."Jane@Bücher.Example"]
            aliases = ["@home.example"]

            """.write(toFile: path, atomically: true, encoding: .utf8)
            return ["RESERVOIR_CONFIG": path]
        }

        /// Sample `number` through `reservoir-filter` for `account`, into `store`; what it added.
        @discardableResult
        static func deliver(_ number: Int, to account: String, store: String, environment: [String: String]? = nil) throws -> String {
            let message = try ReservoirBinary.sampleMessage(number)
            let directory = (store.dropFirst("sqlite:".count) as Substring).split(separator: "/").dropLast().joined(separator: "/")
            let result = try ReservoirBinary.run(
                options + ["--store", store, "--account", account, "--authserv-id", "mx.test"],
                stdin: message, environment: try environment ?? siteConfiguration(in: "/" + directory),
                executable: ReservoirBinary.filterExecutable)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.isEmpty, "\(result.stderr)")
            return String(decoding: result.stdout.prefix(result.stdout.count - message.count), as: UTF8.self)
        }

        static func events(_ store: String, account: String?) throws -> (status: Int32, events: [[String: Any]], stderr: String) {
            let result = try ReservoirBinary.run(
                ["events", "--all", "--json", "--store", store, "--now", ReservoirBinary.now] + (account.map { ["--account", $0] } ?? []))
            let list = (try? JSONSerialization.jsonObject(with: result.stdout) as? [[String: Any]]) ?? []
            return (result.status, list, result.stderr)
        }

        @Test("two accounts: one confirmation each, a cancellation reaching one; events, accounts and forget scoped")
        func twoAccounts() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let store = "sqlite:\(tmp.path)/site.sqlite3"
            // The couple's dinner reaches both (M1); Joe's copy of the cancellation (M3) only him.
            try Self.deliver(1, to: "jane@example.org", store: store)
            try Self.deliver(1, to: "joe@example.org", store: store)
            try Self.deliver(3, to: "joe@example.org", store: store)
            // Joe's flight (M4) is his alone; the domain is written in capitals and U-labels.
            try Self.deliver(4, to: "joe@EXAMPLE.org", store: store)

            let jane = try Self.events(store, account: "jane@example.org")
            #expect(jane.status == 0, "\(jane.stderr)")
            #expect(jane.events.map { $0["status"] as? String } == ["confirmed"], "\(jane.events)")
            let joe = try Self.events(store, account: "joe@example.org")
            #expect(Set(joe.events.compactMap { $0["key"] as? String }).count == 3, "the dinner and two legs: \(joe.events)")
            #expect(joe.events.first { ($0["key"] as? String) == "IWDSCA/1" }?["status"] as? String == "cancelled")

            // Without --account a shared store is refused, naming its accounts.
            let unnamed = try Self.events(store, account: nil)
            #expect(unnamed.status == 64)
            #expect(unnamed.stderr.contains("jane@example.org") && unnamed.stderr.contains("joe@example.org"), "\(unnamed.stderr)")
            // An account with no bookings sees none, not another's.
            #expect(try Self.events(store, account: "ann@example.org").events.isEmpty)

            let accounts = try ReservoirBinary.run(["accounts", "--json", "--store", store])
            let listed = try #require(try JSONSerialization.jsonObject(with: accounts.stdout) as? [[String: Any]])
            #expect(listed.map { $0["account"] as? String } == ["jane@example.org", "joe@example.org"])
            #expect(listed.map { $0["events"] as? Int } == [1, 3])

            // Forgetting Joe's dinner leaves Jane's.
            let forgot = try ReservoirBinary.run(["forget", "IWDSCA", "--store", store, "--account", "joe@example.org"])
            #expect(forgot.status == 0, "\(forgot.stderr)")
            #expect(try Self.events(store, account: "jane@example.org").events.count == 1)
            #expect(try Self.events(store, account: "joe@example.org").events.count == 2)
        }

        @Test("an account is a mailbox address: its domain lowercased in A-labels, anything else refused (exit 64)")
        func addresses() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let store = "sqlite:\(tmp.path)/site.sqlite3"
            try Self.deliver(1, to: "Jane@Bücher.Example", store: store)
            let listed = try ReservoirBinary.run(["accounts", "--json", "--store", store])
            let accounts = try #require(try JSONSerialization.jsonObject(with: listed.stdout) as? [[String: Any]])
            #expect(accounts.map { $0["account"] as? String } == ["Jane@xn--bcher-kva.example"], "local part as given, domain in A-labels")
            #expect(try Self.events(store, account: "Jane@xn--bcher-kva.example").events.count == 1)
            for bad in ["jane", "@example.org", "jane@", "jane@exa mple.org", "jane@example..org"] {
                let result = try ReservoirBinary.run(["events", "--store", store, "--account", bad])
                #expect(result.status == 64, "\(bad): \(result.stderr)")
            }
        }

        @Test("recipient binding follows the account: mail that names none of its addresses is not its booking")
        func binding() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let store = "sqlite:\(tmp.path)/site.sqlite3"
            // Sam has no table: his own address binds, and the sample names Jane only.
            let added = try Self.deliver(1, to: "sam@example.org", store: store)
            #expect(added.contains("#IWDSCA\r\n (untrusted)") || added.contains("#IWDSCA\n (untrusted)"), "\(added)")
            #expect(try Self.events(store, account: "sam@example.org").events.isEmpty)
            // Jane's address names her: no table needed.
            try Self.deliver(1, to: "jane@home.example", store: store)
            #expect(try Self.events(store, account: "jane@home.example").events.count == 1)
        }

        @Test("a calendar template gives each account its own calendar, filled in from the account")
        func calendarTemplate() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let store = "sqlite:\(tmp.path)/site.sqlite3"
            let environment = try Self.siteConfiguration(in: tmp.path, calendar: "vdir:\(tmp.path)/calendars/{local}")
            try Self.deliver(1, to: "jane@example.org", store: store, environment: environment)
            try Self.deliver(4, to: "joe@example.org", store: store, environment: environment)
            let files = { (name: String) in
                ((try? FileManager.default.contentsOfDirectory(atPath: tmp.path + "/calendars/" + name)) ?? []).filter { $0.hasSuffix(".ics") }
            }
            #expect(files("jane").count == 1, "the dinner")
            #expect(files("joe").count == 2, "both legs of the flight")
            #expect(!FileManager.default.fileExists(atPath: tmp.path + "/calendars/{local}"))
            // An event the hooks could not push (recorded with the calendars off) reaches its
            // account's own calendar by one `sync` of the whole site, without --account.
            let quiet = tmp.path + "/no-calendar"
            try FileManager.default.createDirectory(atPath: quiet, withIntermediateDirectories: true)
            try Self.deliver(5, to: "jane@example.org", store: store, environment: try Self.siteConfiguration(in: quiet))
            #expect(files("jane").count == 1, "recorded, not pushed")
            // `accounts` counts it waiting for the account's own calendar, though no push tried it.
            func waiting() throws -> [String: Int] {
                let r = try ReservoirBinary.run(["accounts", "--json", "--store", store, "--now", ReservoirBinary.now], environment: environment)
                #expect(r.status == 0, "\(r.stderr)")
                let list = try JSONSerialization.jsonObject(with: r.stdout) as? [[String: Any]] ?? []
                for entry in list { #expect(entry["pendingDeliveriesOf"] as? String == "configured-calendars", "\(entry)") }
                return Dictionary(uniqueKeysWithValues: list.map { ($0["account"] as? String ?? "", $0["pendingDeliveries"] as? Int ?? -1) })
            }
            #expect(try waiting() == ["jane@example.org": 1, "joe@example.org": 0])
            let site = try ReservoirBinary.run(["sync", "--store", store, "--now", ReservoirBinary.now], environment: environment)
            #expect(site.status == 0, "\(site.stderr)")
            #expect(files("jane").count == 2 && files("joe").count == 2, "\(site.text)")
            #expect(
                site.text.contains("jane@example.org: 1 pushed, 0 waiting") && site.text.contains("joe@example.org: 0 pushed, 0 waiting"),
                "\(site.text)")
            #expect(try waiting() == ["jane@example.org": 0, "joe@example.org": 0])
            // The same as --all-accounts, in JSON: every account, nothing left to push.
            let all = try ReservoirBinary.run(
                ["sync", "--all-accounts", "--json", "--store", store, "--now", ReservoirBinary.now], environment: environment)
            #expect(all.status == 0, "\(all.stderr)")
            let accounts = (try JSONSerialization.jsonObject(with: all.stdout) as? [String: Any])?["accounts"] as? [[String: Any]] ?? []
            #expect(Set(accounts.compactMap { $0["account"] as? String }) == ["jane@example.org", "joe@example.org"], "\(all.text)")
            #expect(accounts.allSatisfy { ($0["pushed"] as? [Any])?.isEmpty == true && ($0["waiting"] as? [Any])?.isEmpty == true })
            // One account named: the template is filled for it alone; --all-accounts beside it is a usage error.
            let one = try ReservoirBinary.run(
                ["sync", "--account", "joe@example.org", "--store", store, "--now", ReservoirBinary.now], environment: environment)
            #expect(one.status == 0 && one.text.contains("0 pushed, 0 waiting"), "\(one.text) \(one.stderr)")
            let both = try ReservoirBinary.run(
                ["sync", "--all-accounts", "--account", "joe@example.org", "--store", store, "--now", ReservoirBinary.now],
                environment: environment)
            #expect(both.status == 64, "\(both.stderr)")
        }

        @Test("a single-user store behaves as before: no --account, no question asked")
        func singleUser() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let store = "sqlite:\(tmp.path)/events.sqlite3"
            let result = try ReservoirBinary.run(
                Self.options + ["--store", store, "--authserv-id", "mx.test"], stdin: try ReservoirBinary.sampleMessage(1),
                environment: ["RESERVOIR_CONFIG": ""], executable: ReservoirBinary.filterExecutable)
            #expect(result.status == 0)
            let events = try Self.events(store, account: nil)
            #expect(events.status == 0, "\(events.stderr)")
            #expect(events.events.count == 1)
        }
    }
}
