import Foundation
import PipelineTestSupport
import Testing
import Trust
import WalletPass

@testable import Pipeline

/// Every note code a report can carry is in ``ReportDiagnostic/Code/all``, and docs/USAGE.md's
/// table ("Notes and their codes") lists exactly those.
@Suite("The note codes and docs/USAGE.md agree")
struct NoteCodeRegistryTests {
    static let usage = Samples.root.appendingPathComponent("docs/USAGE.md")

    /// The codes in backticks in the first column of the notes table; a row `untrusted-REFUSAL`
    /// stands for `untrusted-` + each refusal code named in backticks in its text.
    static func documented() throws -> Set<String> {
        let text = try String(contentsOf: usage, encoding: .utf8)
        guard let start = text.range(of: "## Notes and their codes") else { return [] }
        let section = text[start.upperBound...]
        var codes = Set<String>()
        for line in section.split(separator: "\n") {
            if line.hasPrefix("## ") { break }
            guard line.hasPrefix("| `") else { continue }
            let columns = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard columns.count > 3 else { continue }
            let names = Self.backticked(columns[1])
            if names == ["untrusted-REFUSAL"] {
                // Its text names the refusal codes, and other things in backticks that are not codes.
                for refusal in Self.backticked(columns[3]) where refusal.allSatisfy({ $0.isLowercase || $0 == "-" }) {
                    codes.insert("untrusted-" + refusal)
                }
            } else {
                codes.formUnion(names)
            }
        }
        return codes
    }

    static func backticked(_ text: String) -> [String] {
        text.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }

    @Test("each code in the registry is documented, and each documented code is in the registry")
    func registryMatchesDocs() throws {
        let registry = Set(ReportDiagnostic.Code.all.map(\.description))
        let documented = try Self.documented()
        #expect(registry.count == ReportDiagnostic.Code.all.count, "two codes share a name")
        #expect(registry.subtracting(documented).sorted() == [], "codes missing from docs/USAGE.md")
        #expect(documented.subtracting(registry).sorted() == [], "docs/USAGE.md lists codes no stage has")
    }

    /// The row of one code in the notes table.
    static func row(_ code: String) throws -> String? {
        let text = try String(contentsOf: usage, encoding: .utf8)
        return text.split(separator: "\n").first { $0.hasPrefix("| `\(code)` |") }.map(String.init)
    }

    @Test("the evidence a bcbp-year note names is registered: its row lists exactly the FlightYearEvidence details")
    func flightYearEvidenceDocumented() throws {
        let row = try #require(try Self.row("bcbp-year"))
        let named = Set(Self.backticked(row)).subtracting(["bcbp-year", "detail", "extract", "year-unsigned"])
        #expect(named == Set(FlightYearEvidence.allCases.map(\.rawValue)))
    }
}
