import DKIM
import MIME
import Testing

@testable import Trust

/// Whether the outer message of a forward comes from the user (`--me`), proven by its own
/// aligned DKIM pass or by the topmost Authentication-Results of the user's verifier.
@Suite("The forwarder of an attached message")
struct ForwarderCheckTests {
    static let policy = TrustPolicy(recipients: ["jane@home.example", "@family.example"], trustedAuthservID: "mx.home.example")

    static func message(_ fields: [String], from: String = "Jane <jane@home.example>") -> Message {
        Message(bytes: Array((fields.map { $0 + "\n" }.joined() + "From: \(from)\nSubject: Fwd\n\nbody\n").utf8))
    }

    static func check(_ message: Message, signatures: [DKIMVerification] = [], policy: TrustPolicy = policy) -> ForwarderCheck {
        policy.forwarder(message, from: message.from, signatures: signatures)
    }

    @Test("the From must be one of --me; without --me nobody is the user")
    func fromMustBeMe() {
        #expect(Self.check(Self.message([], from: "mallory@evil.example")).refusal == .forwardNotFromMe)
        #expect(Self.check(Self.message([], from: "a@home.example, jane@home.example")).refusal == .forwardNotFromMe)
        let noMe = TrustPolicy(trustedAuthservID: "mx.home.example")
        #expect(
            Self.check(Self.message(["Authentication-Results: mx.home.example; dkim=pass header.d=home.example"]), policy: noMe).refusal
                == .forwardNotFromMe)
        // @domain stands for every address of the domain.
        let family = Self.check(
            Self.message(["Authentication-Results: mx.home.example; dkim=pass header.d=family.example"], from: "sam@family.example"))
        #expect(family.vouch == .authenticationResults(authservID: "mx.home.example", domain: "family.example"))
    }

    @Test("an aligned DKIM pass of the forward vouches; a pass of another domain does not")
    func dkim() {
        var pass = DKIMVerification(result: .pass, reason: "", domain: "home.example", signedHeaders: ["from", "subject"])
        #expect(Self.check(Self.message([]), signatures: [pass]).vouch == .dkim(domain: "home.example"))
        pass.domain = "evil.example"
        #expect(Self.check(Self.message([]), signatures: [pass]).refusal == .forwarderNotVerified)
        var partial = DKIMVerification(result: .pass, reason: "", domain: "home.example", signedHeaders: ["from"])
        partial.coversWholeBody = false
        #expect(Self.check(Self.message([]), signatures: [partial]).refusal == .forwarderNotVerified, "l= leaves the attachment unsigned")
    }

    @Test("the topmost field of the trusted id only, its id compared without case, header.i read too")
    func authenticationResults() {
        #expect(Self.check(Self.message(["Authentication-Results: \"MX.Home.Example\"; dkim=pass header.i=@home.example"])).isUser)
        #expect(
            Self.check(
                Self.message([
                    "Authentication-Results: other.example; dkim=pass header.d=home.example",
                    "Authentication-Results: mx.home.example; dkim=pass header.d=home.example",
                ])
            ).isUser, "another id's field above it is not the trusted one")
        #expect(
            !Self.check(
                Self.message([
                    "Authentication-Results: mx.home.example; dkim=none",
                    "Authentication-Results: mx.home.example; dkim=pass header.d=home.example",
                ])
            ).isUser)
        #expect(!Self.check(Self.message(["Authentication-Results: mx.home.example; spf=pass smtp.mailfrom=home.example"])).isUser)
        let own = TrustPolicy(recipients: ["jane@home.example"], trustedAuthservID: "mx.home.example", ownAuthservID: "mx.home.example")
        #expect(!Self.check(Self.message(["Authentication-Results: mx.home.example; dkim=pass header.d=home.example"]), policy: own).isUser)
    }
}
