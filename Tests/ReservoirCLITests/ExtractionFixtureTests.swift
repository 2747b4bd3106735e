import Foundation
import Testing

/// Every reservation category in both syntaxes, and markup as senders break it
/// or write unusually (`Extraction/`, written by scripts/fixtures/make_extraction_fixtures.py): `reservoir extract`
/// finds exactly the reservations `expected.json` lists — type, booking number and start as
/// written, offset included.
@Suite("extraction fixtures: every category, JSON-LD and Microdata, broken markup")
struct ExtractionFixtureTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Extraction")

    static let expected: [String: [[String: String]]] = {
        guard let data = try? Data(contentsOf: folder.appendingPathComponent("expected.json")),
            let table = try? JSONSerialization.jsonObject(with: data) as? [String: [[String: String]]]
        else { return [:] }
        return table
    }()

    /// The start as the sender wrote it: where each category keeps it in schema.org, or beside it
    /// (`reservoir:original…`) when the normalized JSON writes it in ISO 8601.
    static func start(_ r: [String: Any]) -> String {
        let trip = r["reservationFor"] as? [String: Any] ?? [:]
        for (owner, key) in [
            (r, "startTime"), (r, "checkinTime"), (r, "checkinDate"), (r, "pickupTime"), (trip, "departureTime"), (trip, "startDate"),
        ] {
            let original = "reservoir:original" + key.prefix(1).uppercased() + key.dropFirst()
            if let s = (owner[original] ?? owner[key]) as? String { return s }
        }
        return "?"
    }

    static func line(type: String, id: String, start: String) -> String { "\(type) \(id) \(start)" }

    @Test func everyCategoryInBothSyntaxes() {
        let categories = ["food", "lodging", "rental-car", "flight", "train", "bus", "boat", "event", "movie", "taxi"]
        for category in categories {
            for syntax in ["jsonld", "microdata"] {
                #expect(Self.expected["\(category)-\(syntax).eml"] != nil, "no fixture for \(category) in \(syntax)")
            }
        }
    }

    @Test(arguments: expected.keys.sorted())
    func finds(file: String) throws {
        let r = try ReservoirBinary.run(["extract", Self.folder.appendingPathComponent(file).path, "--json", "--now", "2026-11-23T12:00:00Z"])
        #expect(r.status == 0, "\(r.stderr)")
        let output = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
        let reservations = output["reservations"] as? [[String: Any]] ?? []
        let found = reservations.map { res in
            Self.line(
                type: res["@type"] as? String ?? "?",
                id: res["reservationId"] as? String ?? res["reservationNumber"] as? String ?? "?", start: Self.start(res))
        }
        let wanted = (Self.expected[file] ?? []).map { Self.line(type: $0["type"] ?? "", id: $0["id"] ?? "", start: $0["start"] ?? "") }
        #expect(found == wanted)
        // Broken markup is recovered and says so; clean markup has nothing to say.
        let codes = (output["diagnostics"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
        if file.hasPrefix("broken-") {
            #expect(codes.contains { $0.hasSuffix("repaired") }, "\(codes)")
        } else {
            #expect(codes.isEmpty, "\(codes)")
        }
    }
}
