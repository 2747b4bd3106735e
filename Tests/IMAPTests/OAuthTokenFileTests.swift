import Foundation
import Glibc
import Testing

@testable import IMAP

@Suite("OAuth token files")
struct OAuthTokenFileTests {
    /// Writes `bytes` to a new file of `mode`; its path.
    static func file(_ bytes: [UInt8], mode: mode_t = 0o600) throws -> String {
        let path = NSTemporaryDirectory() + "reservoir-token-\(UUID().uuidString)"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        chmod(path, mode)
        return path
    }

    @Test(
        "the first line is the token, CRLF or LF, whatever follows it",
        arguments: ["ya29.a0Af-_~+/x==\n", "ya29.a0Af-_~+/x==\r\nrefresh\n", "ya29.a0Af-_~+/x=="])
    func reads(_ text: String) throws {
        let path = try Self.file(Array(text.utf8))
        defer { unlink(path) }
        #expect(try OAuthTokenFile.read(path) == "ya29.a0Af-_~+/x==")
    }

    @Test(
        "refused: an empty first line, a space, a ^A, an = inside, only =, a token past 16 KiB",
        arguments: ["", "\nya29\n", "ya29 x\n", "ya29\u{1}auth=Bearer x\n", "ya=29\n", "==\n", String(repeating: "a", count: (16 << 10) + 1)])
    func refuses(_ text: String) throws {
        let path = try Self.file(Array(text.utf8))
        defer { unlink(path) }
        #expect(throws: IMAPError(.oauthTokenUnusable, "")) { try OAuthTokenFile.read(path) }
    }

    @Test("a token of exactly 16 KiB is read")
    func longest() throws {
        let token = String(repeating: "a", count: 16 << 10)
        let path = try Self.file(Array((token + "\n").utf8))
        defer { unlink(path) }
        #expect(try OAuthTokenFile.read(path) == token)
    }

    @Test("refused: a file its group or others may read, a directory, a missing file")
    func refusesFile() throws {
        let open = try Self.file(Array("ya29\n".utf8), mode: 0o640)
        defer { unlink(open) }
        #expect(throws: IMAPError(.oauthTokenUnusable, "")) { try OAuthTokenFile.read(open) }
        #expect(throws: IMAPError(.oauthTokenUnusable, "")) { try OAuthTokenFile.read(NSTemporaryDirectory()) }
        #expect(throws: IMAPError(.oauthTokenUnusable, "")) { try OAuthTokenFile.read("/nonexistent/token") }
    }
}
