import Foundation
import TestRequirements
import Testing

/// `reservoir add FILE` for documents that are not mail: each keeps the proof it carries.
extension ProcessSuites {
    @Suite(
        "reservoir add: document files",
        .enabled(if: Requirement.met(FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")), "needs python3"))
    struct AddDocumentCLITests {
        /// The boarding pass attached to the samples' Cascadia Air mail, as a `.pkpass` file.
        static func passFile(in directory: String) throws -> String {
            let path = directory + "/boarding.pkpass"
            let script = """
                import email, sys
                m = email.message_from_binary_file(open(sys.argv[1], 'rb'))
                part = next(p for p in m.walk() if (p.get_filename() or '').endswith('.pkpass'))
                open(sys.argv[2], 'wb').write(part.get_payload(decode=True))
                """
            let mail = ReservoirBinary.samples.appendingPathComponent("new/1795328130.M9P4242Q9.mail.home.example,S=5927").path
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            process.arguments = ["-c", script, mail, path]
            try process.run()
            process.waitUntilExit()
            try #require(process.terminationStatus == 0)
            return path
        }

        static func add(_ file: String, store: String, _ extra: [String] = []) throws -> (ReservoirBinary.Result, [String: Any]) {
            let r = try ReservoirBinary.run(["add", "--json", "--now", ReservoirBinary.now, "--no-calendar", "--store", store] + extra + [file])
            let json = try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any] ?? [:]
            return (r, json)
        }

        static func storedCount(_ store: String) throws -> Int {
            let listed = try ReservoirBinary.run(["events", "--json", "--store", store])
            return (try JSONSerialization.jsonObject(with: listed.stdout) as? [Any])?.count ?? 0
        }

        @Test("a .pkpass file is trusted by its own signature and stored; the same pass with one byte changed is not")
        func walletPass() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let pass = try Self.passFile(in: tmp.path)
            let store = "sqlite:" + tmp.path + "/e.sqlite3"
            let trust = ["--pass-ca", ReservoirBinary.passCA, "--allow-pass-type", "pass.example.cascadia-air.*"]
            let (r, json) = try Self.add(pass, store: store, trust)
            #expect(r.status == 0, "\(r.stderr)")
            let reservations = json["reservations"] as? [[String: Any]] ?? []
            #expect(reservations.count == 1 && reservations.allSatisfy { $0["trusted"] as? Bool == true }, "\(r.text)")
            #expect(reservations.first?["reservationId"] as? String == "M4XT9B")
            #expect(try Self.storedCount(store) == 1)

            // The pass's own proof decides: without the CA nothing vouches for it.
            let other = "sqlite:" + tmp.path + "/other.sqlite3"
            let (untrusted, untrustedJSON) = try Self.add(pass, store: other, [])
            #expect(untrusted.status == 0, "\(untrusted.stderr)")
            #expect((untrustedJSON["reservations"] as? [[String: Any]])?.first?["trusted"] as? Bool == false)
            #expect(!FileManager.default.fileExists(atPath: tmp.path + "/other.sqlite3"))

            // A changed byte in pass.json's stored data (just past its local file header, ZIP
            // APPNOTE §4.3.7): the manifest's digest of it no longer matches.
            var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: pass)))
            let name = Array("pass.json".utf8)
            let at = try #require((30...(bytes.count - name.count)).first { Array(bytes[$0..<($0 + name.count)]) == name && bytes[$0 - 30] == 0x50 })
            let extra = Int(bytes[at - 2]) | Int(bytes[at - 1]) << 8
            bytes[at + name.count + extra + 8] ^= 0x20
            let tampered = tmp.path + "/tampered.pkpass"
            try Data(bytes).write(to: URL(fileURLWithPath: tampered))
            let third = "sqlite:" + tmp.path + "/third.sqlite3"
            let (changed, changedJSON) = try Self.add(tampered, store: third, trust)
            #expect(changed.status == 0, "\(changed.stderr)")
            #expect(((changedJSON["reservations"] as? [[String: Any]]) ?? []).allSatisfy { $0["trusted"] as? Bool != true }, "\(changed.text)")
            #expect(!FileManager.default.fileExists(atPath: tmp.path + "/third.sqlite3"))
        }

        @Test("an .ics file has no proof: shown, not stored (document-no-proof)")
        func calendarFile() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let ics = tmp.path + "/dinner.ics"
            try """
            BEGIN:VCALENDAR\r
            VERSION:2.0\r
            PRODID:-//Example//EN\r
            METHOD:PUBLISH\r
            BEGIN:VEVENT\r
            UID:dinner-4711@epicsteak.example\r
            DTSTAMP:20260101T000000Z\r
            DTSTART:20310512T183000Z\r
            DTEND:20310512T203000Z\r
            SUMMARY:Dinner at EPIC Steak\r
            ORGANIZER:mailto:bookings@epicsteak.example\r
            END:VEVENT\r
            END:VCALENDAR\r

            """.write(toFile: ics, atomically: true, encoding: .utf8)
            let store = "sqlite:" + tmp.path + "/e.sqlite3"
            let (r, json) = try Self.add(ics, store: store, ["--allowed-domains", ReservoirBinary.allowed])
            #expect(r.status == 0, "\(r.stderr)")
            #expect((json["trust"] as? [String: Any])?["refusals"] as? [String] == ["document-no-proof"], "\(r.text)")
            #expect((json["reservations"] as? [Any])?.count == 1, "the event is shown")
            #expect(!FileManager.default.fileExists(atPath: tmp.path + "/e.sqlite3"))
        }

        @Test(
            "a rail ticket .pdf keeps its railway's signature: trusted and stored with the key list; a boarding pass .pdf has no proof of its year: not stored"
        )
        func pdfFiles() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let store = "sqlite:" + tmp.path + "/e.sqlite3"
            let ticket = DocumentCLITests.path("rail-db-v2-layout.pdf")
            let r = try ReservoirBinary.run([
                "add", "--json", "--now", DocumentCLITests.railNow, "--no-calendar", "--store", store, "--rail-keys", DocumentCLITests.railKeys,
                ticket,
            ])
            #expect(r.status == 0, "\(r.stderr)")
            let json = try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any] ?? [:]
            let reservations = json["reservations"] as? [[String: Any]] ?? []
            #expect(reservations.count == 1 && reservations.first?["trusted"] as? Bool == true, "\(r.text)")
            #expect(try DocumentCLITests.events(store).count == 1, "a journey of March 2026, listed with --all")

            let other = "sqlite:" + tmp.path + "/other.sqlite3"
            let pass = try ReservoirBinary.run([
                "add", "--json", "--now", ReservoirBinary.now, "--no-calendar", "--store", other, DocumentCLITests.path("boarding-pass.pdf"),
            ])
            #expect(pass.status == 0, "\(pass.stderr)")
            #expect(!FileManager.default.fileExists(atPath: tmp.path + "/other.sqlite3"))
            // Said, not dropped in silence: which flight, and why it is not stored.
            let said = try JSONSerialization.jsonObject(with: pass.stdout) as? [String: Any] ?? [:]
            let notes = (said["diagnostics"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
            #expect(notes == ["document-year-unsigned"], "\(pass.text)")
        }

        @Test("a file of another kind is refused with the kinds add takes")
        func otherKind() throws {
            let r = try ReservoirBinary.run(["add", "--no-calendar", "notes.txt"])
            #expect(r.status == 64)
            #expect(r.stderr.contains(".pkpass, .ics, .pdf"), "\(r.stderr)")
        }
    }
}
