import Foundation
import Testing

extension ProcessSuites {
    /// The attack corpus of Tests/PipelineTests/Attacks run through the programs: `scan`, `banner`
    /// and the filter hook must reach the verdict the corpus states, and agree with each other.
    @Suite("attack corpus: scan, banner and filter agree")
    struct AttackAgreementTests {
        static let folder = ReservoirBinary.packageRoot.appendingPathComponent("Tests/PipelineTests/Attacks")

        struct Expectation: Decodable {
            let trusted: Bool
            let refusal: String?
            let forbidden: [String]
            let me: [String]
            let arcSealers: [String]?
            let reservations: [String]
            /// Present for the invitation cases, whose sequences of messages run in their own suite.
            let invitation: Present?
        }

        /// A JSON member whose content does not matter here.
        struct Present: Decodable {
            init(from decoder: any Decoder) throws {}
        }

        static func names() -> [String] {
            let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            return files.filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }.sorted()
        }

        static func expectation(_ name: String) throws -> Expectation {
            try JSONDecoder().decode(Expectation.self, from: Data(contentsOf: folder.appendingPathComponent(name + ".json")))
        }

        static func options(_ expected: Expectation) -> [String] {
            ["--keys", ReservoirBinary.keys, "--allow-domain", "epicsteak.example", "--now", ReservoirBinary.now]
                + expected.me.flatMap { ["--me", $0] } + (expected.arcSealers ?? []).flatMap { ["--trust-arc-sealer", $0] }
        }

        @Test("banner --json and reservoir-filter reach the corpus's verdict", arguments: names())
        func bannerAndFilter(_ name: String) throws {
            let expected = try Self.expectation(name)
            let file = Self.folder.appendingPathComponent(name + ".eml")
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let store = ["--store", "sqlite:\(tmp.path)/events.sqlite3"]
            let banner = try ReservoirBinary.run(["banner", file.path, "--json"] + Self.options(expected) + store)
            let json = try #require(try JSONSerialization.jsonObject(with: banner.stdout) as? [String: Any], "\(name): \(banner.stderr)")
            let trust = try #require(json["trust"] as? [String: Any])
            #expect(trust["trusted"] as? Bool == expected.trusted, "\(name): \(trust)")
            #expect((trust["refusals"] as? [String])?.first == (expected.trusted ? nil : expected.refusal), "\(name): \(trust)")

            let message = try Data(contentsOf: file)
            let filtered = try ReservoirBinary.run(
                Self.options(expected) + ["--no-store", "--authserv-id", "mx.test"],
                stdin: message, executable: ReservoirBinary.filterExecutable)
            #expect(filtered.status == 0, "\(name): \(filtered.stderr)")
            // RFC 8601 §2.7.1: a valid signature on a message whose author is ambiguous is
            // reported as `policy`, so a downstream rule matching dkim=pass does not take it.
            let header = filtered.text.components(separatedBy: "\n\n").first ?? ""
            if expected.refusal == "multiple-from" || expected.refusal == "header-limit" {
                #expect(header.contains("dkim=policy"), "\(name): \(header.prefix(400))")
                #expect(!header.contains("dkim=pass"), "\(name): \(header.prefix(400))")
            }
            let summaries = filtered.text.components(separatedBy: "\n").filter { $0.hasPrefix("X-Reservation:") }
            for line in summaries {
                // A forbidden item may be refused on its own in a trusted message (an invitation's ORGANIZER).
                let forbidden = expected.forbidden.contains { line.contains("#" + $0) }
                #expect(line.contains("(untrusted)") == (!expected.trusted || forbidden), "\(name): \(line)")
            }
        }

        @Test("a scan of the corpus reaches each verdict")
        func scan() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let cur = tmp.path + "/Maildir/cur"
            try FileManager.default.createDirectory(atPath: cur, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: tmp.path + "/Maildir/new", withIntermediateDirectories: true)
            // The --me cases need options of their own; the rest are scanned together.
            let names = try Self.names().filter { try Self.expectation($0).me.isEmpty }
            #expect(names.count >= 20)
            for name in names {
                try FileManager.default.copyItem(
                    atPath: Self.folder.appendingPathComponent(name + ".eml").path,
                    toPath: "\(cur)/\(name):2,S")
            }
            let vdir = tmp.path + "/calendar"
            try FileManager.default.createDirectory(atPath: vdir, withIntermediateDirectories: true)
            let scan = try ReservoirBinary.run([
                "scan", tmp.path + "/Maildir", "--json", "--store", "sqlite:\(tmp.path)/events.sqlite3", "--calendar", "vdir:" + vdir,
                "--keys", ReservoirBinary.keys, "--allow-domain", "epicsteak.example",
                // The ARC cases' sealer; a message without ARC fields is not read by that path.
                "--trust-arc-sealer", "home.example", "--now", ReservoirBinary.now,
            ])
            #expect(scan.status == 0, "\(scan.stderr)")
            var seen = 0
            for line in scan.text.split(separator: "\n") {
                guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                    let file = object["file"] as? String, let trust = object["trust"] as? [String: Any]
                else { continue }
                let name = String(URL(fileURLWithPath: file).lastPathComponent.split(separator: ":").first ?? "")
                let expected = try Self.expectation(name)
                #expect(trust["trusted"] as? Bool == expected.trusted, "\(name): \(trust)")
                seen += 1
            }
            #expect(seen == names.count)

            // What reaches a calendar: the export and the vdir hold every booking a trusted case
            // books, and no booking only attacks carry (one a control books may appear).
            let expectations = try names.map { try Self.expectation($0) }
            // An invitation case may book only in sequence with others (a CANCEL before its
            // invitation is stored without a start and sent nowhere): those are checked in
            // InvitationCorpusCLITests, and here only as bookings that must not leak.
            let booked = Set(expectations.filter { $0.trusted && $0.invitation == nil }.flatMap(\.reservations))
            let attackOnly = Set(expectations.flatMap(\.forbidden)).subtracting(expectations.filter(\.trusted).flatMap(\.reservations))
            #expect(!attackOnly.isEmpty)
            let ics = try ReservoirBinary.run(["events", "--ics", "--all", "--store", "sqlite:\(tmp.path)/events.sqlite3"])
            #expect(ics.status == 0, "\(ics.stderr)")
            let export = ics.text.replacingOccurrences(of: "\r\n ", with: "")
            let files = try FileManager.default.contentsOfDirectory(atPath: vdir).map { name in
                try String(contentsOfFile: vdir + "/" + name, encoding: .utf8).replacingOccurrences(of: "\r\n ", with: "")
            }
            for id in booked {
                #expect(export.contains(id), "\(id) missing from events --ics")
                #expect(files.contains { $0.contains(id) }, "\(id) missing from the vdir")
            }
            for id in attackOnly {
                #expect(!export.contains(id), "\(id) in events --ics")
                #expect(!files.contains { $0.contains(id) }, "\(id) in the vdir")
            }
        }
    }
}
