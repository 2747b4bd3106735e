import Foundation
import Testing

/// The licence ships with the source: `LICENSE` at the root is the Apache License 2.0 text, which
/// README, the manual pages and the Debian package's copyright file name.
@Suite("the licence file")
struct LicenseTests {
    @Test("LICENSE at the root opens with the Apache License, Version 2.0, and holds its terms")
    func apacheLicense() throws {
        let url = TargetGraphTests.root.appendingPathComponent("LICENSE")
        let text = try String(contentsOf: url, encoding: .utf8)
        let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines.prefix(2) == ["Apache License", "Version 2.0, January 2004"], "\(lines.prefix(2))")
        #expect(text.contains("TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION"))
        #expect(text.contains("END OF TERMS AND CONDITIONS"))
    }
}
