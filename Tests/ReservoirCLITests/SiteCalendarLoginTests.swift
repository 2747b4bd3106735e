import Foundation
import TestRequirements
import Testing

extension ProcessSuites {
    /// A site's calendars through one `{account}` template and one netrc with a `machine` entry
    /// per account for the one host (docs/CALENDARS.md, "One login per account"): each account
    /// logs in as itself, against a real Radicale whose rights (`owner_only`) let each login
    /// write its own collection only.
    @Suite(
        "site calendars: one netrc login per account",
        .enabled(if: Requirement.met(CalDAVDeliveryTests.hasRadicale), "radicale is not installed (apt-get install radicale)"))
    struct SiteCalendarLoginTests {
        static let accounts = ["jane@example.org", "joe@example.org"]

        /// Radicale with an htpasswd user per account and each account's `reservations` collection.
        final class SiteRadicale {
            let tmp: TemporaryDirectory
            let port: Int
            let process = Process()

            init() throws {
                tmp = try TemporaryDirectory()
                port = try LoopbackPort.free()
                for account in SiteCalendarLoginTests.accounts {
                    let root = tmp.path + "/collections/collection-root/\(account)/reservations"
                    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
                    try #"{"tag": "VCALENDAR"}"#.write(toFile: root + "/.Radicale.props", atomically: true, encoding: .utf8)
                }
                try "jane@example.org:jane-pw\njoe@example.org:joe-pw\n".write(toFile: tmp.path + "/users", atomically: true, encoding: .utf8)
                try """
                [server]
                hosts = 127.0.0.1:\(port)
                [auth]
                type = htpasswd
                htpasswd_filename = \(tmp.path)/users
                htpasswd_encryption = plain
                delay = 0
                [storage]
                filesystem_folder = \(tmp.path)/collections
                [rights]
                type = owner_only
                """.write(toFile: tmp.path + "/config", atomically: true, encoding: .utf8)
                process.executableURL = URL(fileURLWithPath: CalDAVDeliveryTests.radicale)
                process.arguments = ["--config", tmp.path + "/config"]
                process.standardOutput = FileHandle.nullDevice
                process.standardError = FileHandle.nullDevice
                try process.run()
                try LoopbackPort.waitUntilListening(port)
            }

            func stop() {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                tmp.remove()
            }

            /// The calendar objects Radicale keeps in `account`'s collection.
            func objects(_ account: String) -> [String] {
                let folder = tmp.path + "/collections/collection-root/\(account)/reservations"
                return ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".ics") }.sorted()
            }
        }

        /// The site's configuration: the accounts, one calendar template, one netrc.
        static func configuration(in directory: String, calendar: String?, netrc: String) throws -> [String: String] {
            let path = directory + "/site-\(calendar == nil ? "quiet" : "calendars").toml"
            try """
            \(calendar.map { "calendar = [\"\($0)\"]" } ?? "")
            netrc = "\(netrc)"
            [accounts."jane@example.org"]
            aliases = ["@home.example"]
            [accounts."joe@example.org"]
            aliases = ["@home.example"]

            """.write(toFile: path, atomically: true, encoding: .utf8)
            return ["RESERVOIR_CONFIG": path]
        }

        static func writeNetrc(_ path: String, joePassword: String) throws {
            // Both entries name the one host; the first is Jane's, which curl alone would take for both.
            try """
            machine 127.0.0.1 login jane@example.org password jane-pw
            machine 127.0.0.1 login joe@example.org password \(joePassword)

            """.write(toFile: path, atomically: true, encoding: .utf8)
            chmod(path, 0o600)
        }

        @Test("sync --all-accounts logs in as each account: each writes only its own collection; a wrong password for one leaves the other pushed")
        func loginPerAccount() throws {
            try #require(CalDAVDeliveryTests.hasRadicale, "radicale is not installed (apt-get install radicale)")
            let server = try SiteRadicale()
            defer { server.stop() }
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let store = "sqlite:\(tmp.path)/site.sqlite3"
            let netrc = tmp.path + "/netrc"
            try Self.writeNetrc(netrc, joePassword: "joe-pw")
            let quiet = try Self.configuration(in: tmp.path, calendar: nil, netrc: netrc)
            let site = try Self.configuration(in: tmp.path, calendar: "http://127.0.0.1:\(server.port)/{account}/reservations/", netrc: netrc)
            // Recorded by the hook without calendars, as the milter records: pushed by sync.
            try AccountsCLITests.deliver(1, to: "jane@example.org", store: store, environment: quiet)
            try AccountsCLITests.deliver(4, to: "joe@example.org", store: store, environment: quiet)

            let synced = try ReservoirBinary.run(["sync", "--all-accounts", "--store", store, "--now", ReservoirBinary.now], environment: site)
            #expect(synced.status == 0, "\(synced.text) \(synced.stderr)")
            #expect(server.objects("jane@example.org").count == 1, "the dinner, with Jane's login: \(synced.text) \(synced.stderr)")
            #expect(server.objects("joe@example.org").count == 2, "both legs, with Joe's login: \(synced.text) \(synced.stderr)")

            // Joe's password is wrong now: Jane's new booking still goes; Joe's waits, said on his line.
            try Self.writeNetrc(netrc, joePassword: "wrong")
            try AccountsCLITests.deliver(5, to: "jane@example.org", store: store, environment: quiet)
            try AccountsCLITests.deliver(1, to: "joe@example.org", store: store, environment: quiet)
            let second = try ReservoirBinary.run(["sync", "--all-accounts", "--store", store, "--now", ReservoirBinary.now], environment: site)
            #expect(second.status == 75, "something waits: \(second.text) \(second.stderr)")
            #expect(server.objects("jane@example.org").count == 2, "\(second.text) \(second.stderr)")
            #expect(server.objects("joe@example.org").count == 2, "\(second.text) \(second.stderr)")
            #expect(second.text.contains("jane@example.org: 1 pushed, 0 waiting"), "\(second.text)")
            #expect(second.text.contains("joe@example.org: 0 pushed, 1 waiting"), "\(second.text)")
        }
    }
}
