import EventStore
import Testing

@testable import Feed

/// `--token-file`: one bare token as before, or one `TOKEN ACCOUNT` line per account; the
/// token decides the account and nothing else in a request can.
@Suite("token file: one token, or one per account")
struct TokenFileTests {
    static func account(_ text: String) -> Account? {
        text.contains("@") && !text.hasPrefix("@") && !text.hasSuffix("@") ? Account(normalizedAddress: text) : nil
    }

    static func read(_ text: String) -> Result<TokenFile, TokenFile.Refusal> {
        TokenFile.read(fileText: Array(text.utf8), account: account)
    }

    @Test("a bare token keeps its meaning; lines name accounts; comments and blank lines are skipped")
    func forms() throws {
        guard case .single(let token) = try Self.read("  k3Jq9-ZpX2vLm8Rt4yWc \n").get() else {
            Issue.record("not a single token")
            return
        }
        #expect(token.bytes == Array("k3Jq9-ZpX2vLm8Rt4yWc".utf8))
        guard
            case .accounts(let entries) = try Self.read(
                "# phones\n\nk3Jq9-ZpX2vLm8Rt4yWc jane@example.org\r\nz9Jq9-ZpX2vLm8Rt4yWc\tjoe@example.org\n"
            ).get()
        else {
            Issue.record("not account tokens")
            return
        }
        #expect(entries.map(\.account.address) == ["jane@example.org", "joe@example.org"])
    }

    @Test("refused: a line that is not TOKEN ACCOUNT, an account that is no address, a short token, a token given twice")
    func refusals() {
        #expect(Self.read("k3Jq9-ZpX2vLm8Rt4yWc jane@example.org\nz9Jq9-ZpX2vLm8Rt4yWc\n") == .failure(.malformedLine(line: 2)))
        #expect(Self.read("k3Jq9-ZpX2vLm8Rt4yWc jane\n") == .failure(.malformedLine(line: 1)))
        #expect(Self.read("k3Jq9-ZpX2vLm8Rt4yWc jane@example.org extra\n") == .failure(.malformedLine(line: 1)))
        #expect(Self.read("short jane@example.org\n") == .failure(.lineToken(line: 1, .tooShort)))
        #expect(
            Self.read("k3Jq9-ZpX2vLm8Rt4yWc jane@example.org\nk3Jq9-ZpX2vLm8Rt4yWc joe@example.org\n") == .failure(.repeatedToken(line: 2)))
        #expect(Self.read("short\n") == .failure(.token(.tooShort)))
        #expect(Self.read("") == .failure(.token(.tooShort)))
    }

    @Test("every token against every path: each opens its own account, nothing else names one")
    func decisions() throws {
        guard case .accounts(let entries) = try Self.read("jane-token-0123456789 jane@example.org\njoe-token-0123456789a joe@example.org\n").get()
        else {
            Issue.record("not account tokens")
            return
        }
        let access = FeedAccess(accountTokens: entries)
        #expect(!access.isOpen)
        #expect(
            access.decide(path: "/jane-token-0123456789/calendar.ics", authorization: nil)
                == .granted(resource: "/calendar.ics", account: Account(normalizedAddress: "jane@example.org")))
        #expect(
            access.decide(path: "/joe-token-0123456789a/", authorization: nil)
                == .granted(resource: "/", account: Account(normalizedAddress: "joe@example.org")))
        for path in ["/calendar.ics", "/", "/jane-token-012345678/calendar.ics", "/joe@example.org/calendar.ics", "/jane-token-0123456789"] {
            #expect(access.decide(path: path, authorization: nil) == .notFound, "\(path)")
        }
    }

    @Test("one netrc login per account: the login is the account; a token's account and another's login do not mix")
    func logins() {
        let jane = Account(normalizedAddress: "jane@example.org")
        let joe = Account(normalizedAddress: "joe@example.org")
        let janeLogin = BasicCredentials(user: "jane@example.org".utf8, password: "pw-jane".utf8)
        let joeLogin = BasicCredentials(user: "joe@example.org".utf8, password: "pw-joe".utf8)
        // Base64 written out (RFC 4648 §4) for the four pairs the checks send.
        let encoded = [
            "jane@example.org:pw-jane": "amFuZUBleGFtcGxlLm9yZzpwdy1qYW5l", "joe@example.org:pw-joe": "am9lQGV4YW1wbGUub3JnOnB3LWpvZQ==",
            "joe@example.org:pw-jane": "am9lQGV4YW1wbGUub3JnOnB3LWphbmU=",
        ]
        let basic = { (user: String, password: String) in "Basic " + (encoded["\(user):\(password)"] ?? "") }
        let access = FeedAccess(
            accountCredentials: [AccountCredentials(credentials: janeLogin, account: jane), AccountCredentials(credentials: joeLogin, account: joe)])
        #expect(
            access.decide(path: "/calendar.ics", authorization: basic("jane@example.org", "pw-jane"))
                == .granted(resource: "/calendar.ics", account: jane))
        #expect(access.decide(path: "/", authorization: basic("joe@example.org", "pw-joe")) == .granted(resource: "/", account: joe))
        #expect(access.decide(path: "/", authorization: basic("joe@example.org", "pw-jane")) == .unauthorized)
        #expect(access.decide(path: "/", authorization: nil) == .unauthorized)
        // With account tokens too, the login must be the token's account's.
        let both = FeedAccess(
            accountTokens: [AccountToken(token: AccessToken(unchecked: Array("jane-token-0123456789".utf8)), account: jane)],
            accountCredentials: access.accountCredentials)
        #expect(
            both.decide(path: "/jane-token-0123456789/", authorization: basic("jane@example.org", "pw-jane"))
                == .granted(resource: "/", account: jane))
        #expect(both.decide(path: "/jane-token-0123456789/", authorization: basic("joe@example.org", "pw-joe")) == .unauthorized)
    }
}
