import Foundation
import Testing

@testable import IMAP

@Suite("IMAP failure codes are documented")
struct IMAPErrorCodeTests {
    @Test("every IMAPError code but the URL's (a usage error, exit 64) is named in docs/USAGE.md's watch entry, once")
    func documented() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let usage = try String(contentsOf: root.appendingPathComponent("docs/USAGE.md"), encoding: .utf8)
        let entry = try #require(usage.split(separator: "\n").first { $0.hasPrefix("| `reservoir watch") })
        for code in IMAPError.Code.allCases where code != .invalidURL {
            #expect(entry.contains("`\(code.rawValue)`"), "\(code.rawValue)")
        }
        #expect(Set(IMAPError.Code.allCases.map(\.rawValue)).count == IMAPError.Code.allCases.count)
    }
}
