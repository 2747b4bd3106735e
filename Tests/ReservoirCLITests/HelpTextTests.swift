import Foundation
import Testing

/// Help a person copies commands from: every example line stays whole at 80 columns.
@Suite("help text")
struct HelpTextTests {
    static let commands = [
        [], ["scan"], ["filter"], ["ingest"], ["banner"], ["verify"], ["extract"], ["parts"], ["events"], ["sync"], ["forget"],
        ["serve"], ["sign"], ["config"],
    ]

    @Test("examples are never wrapped mid-command", arguments: commands)
    func examplesWhole(_ command: [String]) throws {
        let r = try ReservoirBinary.run(command + ["--help"], environment: ["COLUMNS": "80"])
        #expect(r.status == 0)
        var inExamples = false
        for line in r.text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasSuffix("Examples:") || line.hasSuffix("samples:") {
                inExamples = true
                continue
            }
            if line.isEmpty || line.hasPrefix("USAGE:") {
                inExamples = false
                continue
            }
            // A wrapped example continues at the left margin.
            if inExamples { #expect(line.hasPrefix("  "), "\(command.first ?? "reservoir"): \(line)") }
        }
    }
}
