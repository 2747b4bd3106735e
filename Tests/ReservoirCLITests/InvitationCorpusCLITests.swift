import Foundation
import PostgresTestSupport
import TestRequirements
import Testing

extension ProcessSuites {
    /// The attack corpus's invitations (scripts/make-attacks, "invitations: cancel and organizer")
    /// through the programs: `banner --json` names each event's own refusal, and the cancellation
    /// sequences go through `reservoir-filter` into a store (SQLite, and PostgreSQL when
    /// installed), `events --ics` and a real Radicale, which refuses an object without DTSTART.
    @Suite("attack corpus invitations: banner, filter, events --ics and Radicale")
    struct InvitationCorpusCLITests {
        struct Case: Decodable {
            struct Details: Decodable {
                let itemRefusal: String?
                enum CodingKeys: String, CodingKey { case itemRefusal = "item_refusal" }
            }
            let invitation: Details?
        }

        static func load(_ name: String) throws -> Case {
            try JSONDecoder().decode(Case.self, from: Data(contentsOf: AttackAgreementTests.folder.appendingPathComponent(name + ".json")))
        }

        static func names() -> [String] {
            AttackAgreementTests.names().filter { (try? load($0).invitation) != nil }
        }

        static func message(_ name: String) throws -> Data {
            try Data(contentsOf: AttackAgreementTests.folder.appendingPathComponent(name + ".eml"))
        }

        static let options = ["--keys", ReservoirBinary.keys, "--allow-domain", "epicsteak.example", "--now", ReservoirBinary.now]

        @Test("banner --json: each invitation's reservation carries its own refusal, the message stays trusted", arguments: names())
        func banner(_ name: String) throws {
            let expected = try Self.load(name).invitation?.itemRefusal
            let file = AttackAgreementTests.folder.appendingPathComponent(name + ".eml").path
            let banner = try ReservoirBinary.run(["banner", file, "--json", "--no-store"] + Self.options)
            let json = try #require(try JSONSerialization.jsonObject(with: banner.stdout) as? [String: Any], "\(name): \(banner.stderr)")
            #expect((json["trust"] as? [String: Any])?["trusted"] as? Bool == true, "\(name)")
            let reservations = try #require(json["reservations"] as? [[String: Any]], "\(name)")
            #expect(!reservations.isEmpty, "\(name)")
            for reservation in reservations {
                #expect((reservation["refusal"] as? [String: Any])?["code"] as? String == expected, "\(name): \(reservation)")
            }
        }

        /// The stores the sequences run on: SQLite, and PostgreSQL when its server is installed.
        static let stores = PostgresServer.isAvailable ? ["sqlite", "postgres"] : ["sqlite"]

        static func store(_ kind: String, in tmp: TemporaryDirectory) throws -> String {
            kind == "sqlite" ? "sqlite:\(tmp.path)/events.sqlite3" : try PostgresServer.shared.get().makeDatabase()
        }

        /// Each case through `reservoir-filter`, in order, with the store and the calendar.
        static func deliver(_ names: [String], store: String, server: RadicaleServer) throws {
            for name in names {
                let r = try ReservoirBinary.run(
                    Self.options + ["--store", store, "--authserv-id", "mx.test", "--calendar", server.url, "--netrc", server.netrc],
                    stdin: try Self.message(name), executable: ReservoirBinary.filterExecutable)
                #expect(r.status == 0, "\(name): \(r.stderr)")
                #expect(r.stderr.isEmpty, "\(name): nothing fails to reach the calendar: \(r.stderr)")
            }
        }

        static func export(_ store: String) throws -> String {
            let r = try ReservoirBinary.run(["events", "--ics", "--store", store])
            #expect(r.status == 0, "\(r.stderr)")
            return r.text
        }

        static func sync(_ store: String, _ server: RadicaleServer) throws -> String {
            try ReservoirBinary.run(["sync", "--store", store, "--calendar", server.url, "--netrc", server.netrc]).text
        }

        static let cancelled = "CANCEL-ICS-1%40epicsteak.example_1_epicsteak.example@reservoir"

        @Test(
            "a minimal CANCEL: Radicale accepts the pushed object and reads it CANCELLED at its start; events --ics holds DTSTART",
            .enabled(
                if: Requirement.met(CalDAVDeliveryTests.hasRadicale && CalDAVDeliveryTests.hasPythonCalDAV), "radicale and python3-caldav are needed"),
            arguments: stores)
        func minimalCancel(store kind: String) throws {
            let server = try RadicaleServer()
            defer { server.stop() }
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let store = try Self.store(kind, in: tmp)
            try Self.deliver(["ics-cancel-invitation"], store: store, server: server)
            #expect(try server.events() == ["\(Self.cancelled)|0|CONFIRMED|20310512T190000-0700|False"])
            try Self.deliver(["ics-cancel-minimal"], store: store, server: server)
            #expect(try server.events() == ["\(Self.cancelled)|1|CANCELLED|20310512T190000-0700|False"])
            let object = try server.get(Self.cancelled.replacingOccurrences(of: "%", with: "%25") + ".ics")
            #expect(object.contains("SUMMARY:Wine tasting"), "\(object)")
            #expect(object.contains("LOCATION:EPIC Steak\\, 369 The Embarcadero\\, San Francisco"), "\(object)")
            let ics = try Self.export(store)
            #expect(ics.contains("DTSTART;TZID=America/Los_Angeles:20310512T190000\r\n"), "\(ics)")
            #expect(ics.contains("STATUS:CANCELLED\r\n") && ics.contains("SEQUENCE:1\r\n"), "\(ics)")
            #expect(try Self.sync(store, server) == "0 pushed, 0 waiting\n")
        }

        @Test(
            "a whole series cancelled reaches every object in Radicale; a CANCEL before its invitation reaches none, and the late invitation is older",
            .enabled(
                if: Requirement.met(CalDAVDeliveryTests.hasRadicale && CalDAVDeliveryTests.hasPythonCalDAV), "radicale and python3-caldav are needed"),
            arguments: stores)
        func seriesAndFirstSeen(store kind: String) throws {
            let server = try RadicaleServer()
            defer { server.stop() }
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let store = try Self.store(kind, in: tmp)
            let series = "SERIES-ICS-1%40epicsteak.example"
            try Self.deliver(["ics-cancel-series-invitation", "ics-cancel-series-whole"], store: store, server: server)
            #expect(
                try server.events() == [
                    "\(series)_1_epicsteak.example@reservoir|1|CANCELLED|20310512T190000-0700|False",
                    "\(series)_20310519T190000_epicsteak.example@reservoir|1|CANCELLED|20310519T203000-0700|False",
                ])
            try Self.deliver(["ics-cancel-first-seen", "ics-cancel-late-invitation"], store: store, server: server)
            #expect(try server.events().count == 2, "nothing was sent for the booking never seen before its CANCEL")
            let ics = try Self.export(store)
            #expect(!ics.contains("LATE-ICS-1%40"), "\(ics)")
            for vevent in ics.components(separatedBy: "BEGIN:VEVENT").dropFirst() {
                #expect(vevent.contains("\r\nDTSTART;TZID=America/Los_Angeles:"), "every exported event has a start: \(vevent)")
            }
            #expect(try Self.sync(store, server) == "0 pushed, 0 waiting\n")
            let listed = try ReservoirBinary.run(["events", "--all", "--json", "--store", store, "--now", ReservoirBinary.now])
            #expect(listed.text.contains("LATE-ICS-1@epicsteak.example"), "the cancellation is recorded: \(listed.text)")
        }
    }
}
