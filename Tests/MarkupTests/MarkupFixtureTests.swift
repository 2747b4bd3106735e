import Foundation
import JSON
import Testing

@testable import Markup

/// Golden files: every `Fixtures/NAME.html` is extracted and compared with `Fixtures/NAME.json`
/// (items with their source, then diagnostics). Run with `RESERVOIR_RECORD=1` to rewrite the
/// expected files after a deliberate change, then review the diff.
@Suite struct MarkupFixtureTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    static let fixtures: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".html") }.map { String($0.dropLast(".html".count)) }.sorted()
    }()

    @Test func fixtureFolderIsNotEmpty() {
        #expect(Self.fixtures.count >= 7)
    }

    @Test(arguments: fixtures)
    func matchesGoldenFile(name: String) throws {
        let html = try Data(contentsOf: Self.folder.appendingPathComponent(name + ".html"))
        let extraction = MarkupExtractor.extract(html: Array(html))
        let rendered = Self.render(extraction)
        let expectedURL = Self.folder.appendingPathComponent(name + ".json")
        if ProcessInfo.processInfo.environment["RESERVOIR_RECORD"] == "1" {
            try Data(rendered.utf8).write(to: expectedURL)
            return
        }
        let expected = try String(contentsOf: expectedURL, encoding: .utf8)
        #expect(rendered == expected)
    }

    static func render(_ extraction: MarkupExtraction) -> String {
        let items = extraction.items.map { item in
            JSONValue.object(JSONObject(pairs: [("source", .string(item.source.rawValue)), ("value", item.value)]))
        }
        let diagnostics = extraction.diagnostics.map { diagnostic in
            JSONValue.object(JSONObject(pairs: [("code", .string(diagnostic.code.rawValue)), ("message", .string(diagnostic.message))]))
        }
        return JSONValue.object(JSONObject(pairs: [("items", .array(items)), ("diagnostics", .array(diagnostics))]))
            .prettyPrinted() + "\n"
    }
}
