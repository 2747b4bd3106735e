import Foundation
import Testing

@testable import Feed

@Suite("netrc files and files that hold secrets")
struct NetrcFileTests {
    @Test("machine entries, default, comments, quoted passwords, macros")
    func parse() {
        let text = """
            # calendar access
            machine other.example login a password b
            macdef init
            cd /pub
            machine fake login x password y

            machine Calendar.Example
              login "me"
              password "two words \\" quoted"
              account ignored
            default login anon password guest
            """
        let netrc = NetrcFile(text: text)
        #expect(netrc.credentials(for: "calendar.example") == BasicCredentials(user: "me".utf8, password: "two words \" quoted".utf8))
        #expect(netrc.credentials(for: "other.example") == BasicCredentials(user: "a".utf8, password: "b".utf8))
        // The macro's body is not read as entries.
        #expect(netrc.entries.compactMap(\.machine) == ["other.example", "Calendar.Example"])
        #expect(netrc.credentials(for: "unknown.example") == BasicCredentials(user: "anon".utf8, password: "guest".utf8))
        #expect(NetrcFile(text: "machine h login only").credentials(for: "h") == nil)
        #expect(NetrcFile(text: "").credentials(for: "h") == nil)
    }

    @Test("a secret file is read at mode 0600 or 0400 and refused when group or others may read it")
    func modes() throws {
        let path = NSTemporaryDirectory() + "reservoir-secret-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data("machine h login u password p\n".utf8).write(to: URL(fileURLWithPath: path))
        for (mode, readable) in [(0o600, true), (0o400, true), (0o644, false), (0o640, false), (0o604, false), (0o660, false)] {
            chmod(path, mode_t(mode))
            switch SecretFile.read(path) {
            case .read(let bytes): #expect(readable && bytes == Array("machine h login u password p\n".utf8), "mode \(mode)")
            case .tooOpen(let found): #expect(!readable && found == UInt32(mode), "mode \(mode)")
            default: Issue.record("mode \(mode): unexpected outcome")
            }
        }
        #expect(SecretFile.read(path + "-missing") == .unreadable("No such file or directory"))
        #expect(SecretFile.read(NSTemporaryDirectory()) == .notASecretFile)
    }

    @Test(
        "a token file holds one URL-safe token of 16 to 256 characters",
        arguments: [
            ("0123456789abcdef\n", true), ("  0123456789abcdef-._~ \r\n", true), ("short\n", false),
            ("0123456789abcdef/", false), ("0123456789 abcdef", false), ("0123456789abcdé", false),
            (String(repeating: "a", count: 257), false),
        ])
    func token(text: String, accepted: Bool) {
        let result = AccessToken.read(fileText: Array(text.utf8))
        if case .success = result { #expect(accepted) } else { #expect(!accepted) }
    }
}
