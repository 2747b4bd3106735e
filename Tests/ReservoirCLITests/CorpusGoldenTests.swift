import Foundation
import Testing

/// Real senders' shapes and habits (`Corpus/`, written by scripts/fixtures/make_corpus.py): each
/// message through `banner --json` into a store and out as iCalendar.
///
/// Two checks per case. `expected.json` holds what a careful reader of the markup finds — type,
/// booking number, status, and start and end as UTC instants worked out with Python's zoneinfo —
/// and the banner must agree. `NAME.golden` holds the whole output (reservations with their zones,
/// notes, the stored event as iCalendar with its VTIMEZONEs), so any change in what a user sees
/// shows as a diff; `RESERVOIR_RECORD_GOLDEN=1` writes them anew for review.
@Suite("corpus: real senders' shapes → reservations → calendar events (golden files)")
struct CorpusGoldenTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Corpus")
    static let now = "2026-11-23T12:00:00Z"
    static let recording = ProcessInfo.processInfo.environment["RESERVOIR_RECORD_GOLDEN"] == "1"

    struct Case: Decodable, Sendable {
        var source: String
        var habit: String
        var reservations: [[String: String]]
    }

    static let expected: [String: Case] = {
        guard let data = try? Data(contentsOf: folder.appendingPathComponent("expected.json")),
            let table = try? JSONDecoder().decode([String: Case].self, from: data)
        else { return [:] }
        return table
    }()

    @Test("the corpus is there: every habit of docs/USAGE.md has a case")
    func corpusPresent() {
        #expect(Self.expected.count >= 25, "Corpus/expected.json missing or short")
    }

    @Test(arguments: expected.keys.sorted())
    func golden(file: String) throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let store = "sqlite:\(tmp.path)/store.db"
        let path = Self.folder.appendingPathComponent(file).path
        let banner = try ReservoirBinary.run([
            "banner", path, "--json", "--now", Self.now, "--allow-unverified", "--allow-any-domain", "--include-past", "--store", store,
        ])
        #expect(banner.status == 0, "\(banner.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: banner.stdout) as? [String: Any])
        let reservations = report["reservations"] as? [[String: Any]] ?? []

        // What the markup says, worked out independently.
        let wanted = Self.expected[file]?.reservations ?? []
        let found = reservations.map { r in
            [
                "type": r["type"] as? String ?? "?", "id": r["reservationId"] as? String ?? "?", "status": r["status"] as? String ?? "?",
                "start": r["startInstant"] as? String ?? "floating:\(r["start"] as? String ?? "?")",
                "end": r["endInstant"] as? String ?? (r["end"] as? String).map { "floating:\($0)" } ?? "-",
            ]
        }
        let truth = wanted.map { e in
            ["type": e["type"] ?? "", "id": e["id"] ?? "", "status": e["status"] ?? "", "start": e["start"] ?? "", "end": e["end"] ?? "-"]
        }
        #expect(found == truth)

        let events = try ReservoirBinary.run(["events", "--ics", "--store", store, "--now", Self.now])
        #expect(events.status == 0, "\(events.stderr)")
        // Trusted (for the test) and stored: one VEVENT per item, but for a cancellation of a
        // booking the store never held, which no calendar receives (docs/SECURITY.md).
        #expect(events.text.components(separatedBy: "BEGIN:VEVENT").count - 1 == wanted.filter { $0["status"] != "cancelled" }.count)

        let golden = try Self.goldenText(report: report, calendar: events.text)
        let goldenURL = Self.folder.appendingPathComponent(file.replacingOccurrences(of: ".eml", with: ".golden"))
        if Self.recording {
            try golden.write(to: goldenURL, atomically: true, encoding: .utf8)
            return
        }
        let recorded = try? String(contentsOf: goldenURL, encoding: .utf8)
        #expect(recorded != nil, "no \(goldenURL.lastPathComponent): run with RESERVOIR_RECORD_GOLDEN=1 and review it")
        if let recorded { #expect(golden == recorded, "\(file): output differs from \(goldenURL.lastPathComponent)") }
    }

    /// The reservations as `banner --json` gives them (without the message's own fields, which
    /// name the file), the notes, and the calendar.
    static func goldenText(report: [String: Any], calendar: String) throws -> String {
        var reservations = report["reservations"] as? [[String: Any]] ?? []
        for index in reservations.indices {
            // The store's answer depends on the run, not the message.
            reservations[index]["change"] = nil
            reservations[index]["sequence"] = nil
        }
        let body: [String: Any] = ["reservations": reservations, "diagnostics": report["diagnostics"] ?? []]
        let json = try JSONSerialization.data(withJSONObject: body, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        return "# banner --json\n" + String(decoding: json, as: UTF8.self) + "\n# events --ics\n"
            + calendar.replacingOccurrences(of: "\r\n", with: "\n")
    }
}
