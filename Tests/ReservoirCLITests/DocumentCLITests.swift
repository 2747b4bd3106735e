import Foundation
import Testing

extension ProcessSuites {
    /// PDFs and images in mail (scripts/make-documents): `reservoir-document` finds the bar
    /// codes; a boarding pass counts as far as the mail's signature vouches, a rail ticket by its
    /// railway's signature; hostile documents cost the hook its time budget at most.
    @Suite("documents: boarding passes and rail tickets in PDFs and images")
    struct DocumentCLITests {
        static let folder = ReservoirBinary.packageRoot.appendingPathComponent("Tests/ReservoirCLITests/Documents")
        static let railKeys = ReservoirBinary.packageRoot.appendingPathComponent("Tests/RailTicketTests/Keys/keys.xml").path
        static let program = ReservoirBinary.executable.deletingLastPathComponent().appendingPathComponent("reservoir-document").path
        static let bcbp = "M1APPLESEED/JANE      EM4XT9B SEASFOC7 0413 350Y022F0042 100"
        /// Before the rail corpus's journey (20 March 2026).
        static let railNow = "2026-03-16T12:00:00Z"

        static func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
        /// The samples' keys and allowed domains, the tests' clock: what the mails are judged by.
        static let mailOptions = ["--keys", ReservoirBinary.keys, "--allowed-domains", ReservoirBinary.allowed, "--now", ReservoirBinary.now]

        static func json(_ r: ReservoirBinary.Result) throws -> [String: Any] {
            try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any], "\(r.text) \(r.stderr)")
        }

        static func events(_ store: String) throws -> [[String: Any]] {
            let r = try ReservoirBinary.run(["events", "--all", "--json", "--store", store])
            return (try? JSONSerialization.jsonObject(with: r.stdout) as? [[String: Any]]) ?? []
        }

        @Test(
            "every form of the boarding pass gives its bytes back: an embedded image, vector paths, PDF417 rotated, PNG, JPEG, GIF",
            arguments: [
                ("boarding-pass.pdf", "pdf", "Aztec"), ("boarding-pass-vector.pdf", "pdf", "Aztec"),
                ("boarding-pass-pdf417-rotated.pdf", "pdf", "PDF417"), ("boarding-pass.png", "png", "Aztec"),
                ("boarding-pass.jpg", "jpeg", "Aztec"), ("boarding-pass.gif", "gif", "Aztec"),
            ])
        func forms(_ file: String, _ kind: String, _ format: String) throws {
            let r = try ReservoirBinary.run(
                [kind], stdin: try Data(contentsOf: Self.folder.appendingPathComponent(file)),
                executable: URL(fileURLWithPath: Self.program))
            #expect(r.status == 0, "\(r.stderr)")
            let lines = r.text.split(separator: "\n")
            try #require(lines.count == 2, "\(r.text)")
            let fields = lines[0].split(separator: " ")
            #expect(fields.first.map(String.init) == format)
            #expect(fields.last.flatMap { Data(base64Encoded: String($0)) }.map { String(decoding: $0, as: UTF8.self) } == Self.bcbp)
            #expect(lines[1] == "end ok")
        }

        @Test(
            "a boarding pass PDF in signed mail: a trusted flight on the day the signed Date places, stored; unsigned, listed with year-unsigned, not stored"
        )
        func boardingPass() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let store = "sqlite:\(tmp.path)/e.sqlite3"
            let signed = try ReservoirBinary.run(["banner", "--json", Self.path("signed-boarding-pass.eml"), "--store", store] + Self.mailOptions)
            #expect(signed.status == 0, "\(signed.stderr)")
            let reservations = try Self.json(signed)["reservations"] as? [[String: Any]] ?? []
            try #require(reservations.count == 1, "\(signed.text)")
            #expect(reservations[0]["trusted"] as? Bool == true)
            #expect(reservations[0]["reservationId"] as? String == "M4XT9B")
            #expect((reservations[0]["start"] as? String)?.hasPrefix("2026-12-16") == true, "\(reservations[0])")
            #expect(try Self.events(store).count == 1)

            let other = "sqlite:\(tmp.path)/other.sqlite3"
            let unsigned = try ReservoirBinary.run(["ingest", Self.path("unsigned-boarding-pass.eml"), "--store", other] + Self.mailOptions)
            #expect(unsigned.status == 0, "\(unsigned.stderr)")
            #expect(try Self.events(other).isEmpty)
            let listed = try ReservoirBinary.run(["extract", "--json", Self.path("unsigned-boarding-pass.eml")] + Self.mailOptions)
            #expect(listed.text.contains("M4XT9B") && listed.text.contains("year-unsigned"), "\(listed.text)")
        }

        @Test(
            "the attack on l=: the airline signed the text part alone with a body length, the boarding pass PDF is added after it: not trusted, not stored"
        )
        func boardingPassAfterLength() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let store = "sqlite:\(tmp.path)/e.sqlite3"
            let attack = Self.path("attack-boarding-pass-after-length.eml")
            let r = try ReservoirBinary.run(["ingest", attack, "--store", store] + Self.mailOptions)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(try Self.events(store).isEmpty, "\(r.text)")
            // The signature verifies over what it covers; the PDF is outside it: the flight is
            // read from the message as it is, shown with the refusal, never trusted.
            let shown = try ReservoirBinary.run(["banner", "--json", attack, "--no-store"] + Self.mailOptions)
            #expect((try Self.json(shown)["dkim"] as? [[String: Any]])?.first?["result"] as? String == "pass", "\(shown.text)")
            let listed = try ReservoirBinary.run(["extract", "--json", attack] + Self.mailOptions)
            let reservations = try Self.json(listed)["reservations"] as? [[String: Any]] ?? []
            try #require(reservations.count == 1, "\(listed.text)")
            #expect(reservations[0]["reservationNumber"] as? String == "M4XT9B")
            #expect(reservations[0]["trusted"] as? Bool == false)
            #expect((reservations[0]["refusal"] as? [String: Any])?["code"] as? String == "partial-signature", "\(listed.text)")
        }

        @Test("a rail ticket PDF in unsigned mail: trusted by its railway's signature and stored; a changed byte, or no key list, is not")
        func railTicket() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let common = ["--keys", ReservoirBinary.keys, "--allowed-domains", ReservoirBinary.allowed, "--now", Self.railNow]
            let store = "sqlite:\(tmp.path)/e.sqlite3"
            let genuine = try ReservoirBinary.run(
                ["banner", "--json", Self.path("unsigned-rail-ticket.eml"), "--store", store, "--rail-keys", Self.railKeys] + common)
            #expect(genuine.status == 0, "\(genuine.stderr)")
            let reservations = try Self.json(genuine)["reservations"] as? [[String: Any]] ?? []
            try #require(reservations.count == 1, "\(genuine.text)")
            #expect(reservations[0]["trusted"] as? Bool == true)
            #expect((reservations[0]["proof"] as? [String: Any])?["kind"] as? String == "railTicket")
            #expect((reservations[0]["proof"] as? [String: Any])?["railway"] as? String == "1080")
            let stored = try Self.events(store)
            #expect(stored.count == 1 && stored.first?["ownerDomain"] as? String == "rail:1080", "\(stored)")

            // The attacks beside it: a changed byte, no key list, a key the railway retired
            // before the ticket's issuing, and, with recipients bound, a stranger's mail.
            let keys = ["--rail-keys", Self.railKeys]
            for (index, (file, extra, refusal)) in [
                ("unsigned-rail-ticket-tampered.eml", keys, "rail-signature"), ("unsigned-rail-ticket.eml", [], "untrusted-no-signature"),
                ("unsigned-rail-ticket-retired-key.eml", keys, "untrusted-rail-key-not-valid"),
                ("unsigned-rail-ticket.eml", keys + ["--me", "jane@home.example"], "untrusted-document-not-addressed"),
            ].enumerated() {
                let other = "sqlite:\(tmp.path)/attack-\(index).sqlite3"
                let r = try ReservoirBinary.run(["banner", "--json", Self.path(file), "--store", other] + extra + common)
                #expect(r.status == 0, "\(r.stderr)")
                let json = try Self.json(r)
                let items = json["reservations"] as? [[String: Any]] ?? []
                #expect(items.allSatisfy { $0["trusted"] as? Bool != true }, "\(file): \(r.text)")
                let codes = (json["diagnostics"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
                #expect(codes.contains(refusal), "\(file) \(extra): \(codes)")
                #expect(try Self.events(other).isEmpty, "\(file)")
            }
        }

        @Test("hostile PDFs through reservoir-filter: the mail comes out unchanged after our fields, exit 0, within the time budget")
        func hostile() throws {
            let message = try Data(contentsOf: Self.folder.appendingPathComponent("signed-hostile-pdfs.eml"))
            let started = Date()
            let r = try ReservoirBinary.run(
                ["--keys", ReservoirBinary.keys, "--allowed-domains", ReservoirBinary.allowed, "--now", ReservoirBinary.now, "--no-store"],
                stdin: message, executable: ReservoirBinary.filterExecutable)
            let seconds = Date().timeIntervalSince(started)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.suffix(message.count) == message, "the message is delivered unchanged")
            #expect(seconds < 8, "\(seconds) s")
            let added = String(decoding: r.stdout.prefix(r.stdout.count - message.count), as: UTF8.self)
            #expect(added.hasPrefix("Authentication-Results:"), "\(added)")
        }
    }
}
