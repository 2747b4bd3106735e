import MIME
import Testing

@testable import Trust

/// Detail addresses (RFC 5233) as Postfix's `recipient_delimiter` cuts them, and the recipient
/// binding that follows: `jane+trips@` names `jane@`, never someone else.
@Suite("RecipientDelimiter")
struct RecipientDelimiterTests {
    /// (address, delimiter, base or nil when nothing is cut)
    static let bases: [(String, String, String?)] = [
        ("jane+trips@example.org", "+", "jane@example.org"), ("jane@example.org", "+", nil),
        ("jane+a+b@example.org", "+", "jane@example.org"), ("jane-a+b@example.org", "+-", "jane@example.org"),
        ("+trips@example.org", "+", nil), ("jane+trips@example.org", "", nil), ("jane+trips@example.org", "-", nil),
        ("postmaster@example.org", "+-", nil), ("MAILER-DAEMON@example.org", "-", nil), ("postmaster+x@example.org", "+", "postmaster@example.org"),
        ("owner-list@example.org", "-", nil), ("list-request@example.org", "-", nil), ("owner-list@example.org", "+", nil),
        ("Jane+Trips@example.org", "+", "Jane@example.org"), ("a+b@c+d.example", "+", "a@c+d.example"),
    ]

    @Test("the local part is cut at its first delimiter, as Postfix's split_addr cuts it", arguments: bases)
    func base(_ address: String, _ delimiter: String, _ base: String?) throws {
        let parsed = try #require(RecipientDelimiter(delimiter))
        #expect(parsed.base(of: address) == base)
    }

    @Test("a setting holding a letter, a digit, @ or a space is none", arguments: ["x", "7", "@", "+ ", "é", "%"])
    func refused(_ text: String) {
        #expect(RecipientDelimiter(text) == nil)
        #expect(RecipientDelimiter(setting: text) == .standard)
    }

    /// (signed To, --me, delimiter, bound)
    static let bindings: [(String, String, String, Bool)] = [
        ("jane+trips@home.example", "jane@home.example", "+", true), ("jane@home.example", "jane@home.example", "+", true),
        ("JANE+Trips@home.example", "jane@home.example", "+", true), ("jane+trips@home.example", "jane@home.example", "", false),
        ("joe+trips@home.example", "jane@home.example", "+", false), ("jane+trips@other.example", "jane@home.example", "+", false),
        ("jane@home.example", "jane+trips@home.example", "+", false), ("jane+trips@home.example", "jane+trips@home.example", "", true),
        ("jane-trips@home.example", "jane@home.example", "+", false), ("jane-trips@home.example", "jane@home.example", "+-", true),
    ]

    @Test("a signed To naming jane+trips@ binds to jane@, and to no one else", arguments: bindings)
    func binding(_ to: String, _ me: String, _ delimiter: String, _ bound: Bool) throws {
        let policy = TrustPolicy(recipients: [me], recipientDelimiter: try #require(RecipientDelimiter(delimiter)))
        let check = policy.recipientCheck([MailboxAddress(displayName: nil, address: to)])
        #expect(check == (bound ? .matched(me) : .notMatched), "\(to) for \(me) with \(delimiter.debugDescription)")
    }
}
