import DKIM
import Testing

@testable import Trust

/// Which decisions may wait as pending (``TrustDecision/pendingSenderDomain``): a genuine,
/// aligned, whole signature whose only refusal is the domain; nothing else.
@Suite("The pending sender rule")
struct PendingSenderRuleTests {
    static let policy = TrustPolicy(allowedDomains: ["other.example"], publicSuffixes: PublicSuffixList.load())

    static func pass(_ domain: String, coversWholeBody: Bool = true, testing: Bool = false, result: DKIMResult = .pass) -> DKIMVerification {
        var v = DKIMVerification(result: result, reason: "", domain: domain, selector: "s2026", algorithm: "rsa-sha256")
        v.coversWholeBody = coversWholeBody
        v.testing = testing
        return v
    }

    @Test("the control: an aligned, passing, whole signature of a domain not allowed is a pending sender")
    func control() {
        let d = Self.policy.decide(signatures: [Self.pass("epicsteak.example")], fromDomains: ["EpicSteak.example"])
        #expect(!d.trusted)
        #expect(d.pendingSenderDomain == "epicsteak.example")
        // Relaxed alignment (RFC 7489 §3.1.1): a subdomain's signature vouches for its parent.
        let relaxed = Self.policy.decide(signatures: [Self.pass("mail.epicsteak.example")], fromDomains: ["epicsteak.example"])
        #expect(relaxed.pendingSenderDomain == "epicsteak.example")
        // A From domain in U-labels (RFC 6531) waits under its A-label name, which `allow` takes.
        let unicode = Self.policy.decide(signatures: [Self.pass("xn--55qx5d.cn")], fromDomains: ["公司.cn"])
        #expect(unicode.pendingSenderDomain == "xn--55qx5d.cn")
    }

    @Test(
        "forged, misaligned, partial, testing-key and unsigned mail is never a pending sender",
        arguments: [
            [pass("epicsteak.example", result: .fail)], [pass("attacker.example")], [pass("epicsteak.example", coversWholeBody: false)],
            [pass("epicsteak.example", testing: true)], [],
        ])
    func refused(_ signatures: [DKIMVerification]) {
        let d = Self.policy.decide(signatures: signatures, fromDomains: ["epicsteak.example"])
        #expect(!d.trusted)
        #expect(d.pendingSenderDomain == nil, "\(d.refusals)")
    }

    @Test("two From addresses, a trusted message, or a testing switch: no pending sender")
    func otherwise() {
        #expect(
            Self.policy.decide(signatures: [Self.pass("epicsteak.example")], fromDomains: ["epicsteak.example", "x.example"])
                .pendingSenderDomain == nil)
        #expect(Self.policy.decide(signatures: [Self.pass("other.example")], fromDomains: ["other.example"]).pendingSenderDomain == nil)
        var unverified = Self.policy
        unverified.allowUnverified = true
        #expect(unverified.decide(signatures: [Self.pass("epicsteak.example")], fromDomains: ["epicsteak.example"]).pendingSenderDomain == nil)
        #expect(unverified.decide(signatures: [], fromDomains: ["epicsteak.example"]).pendingSenderDomain == nil)
    }

    @Test("a DKIM pass only an ARC sealer reports is never a pending sender")
    func arcOnly() {
        let d = TrustDecision(
            trusted: false, vouchingDomain: "epicsteak.example", fromDomain: "epicsteak.example",
            refusals: [.domainNotAllowed("epicsteak.example")], overrides: [], path: .arc(sealer: "home.example", instance: 1))
        #expect(d.pendingSenderDomain == nil)
        var dkim = d
        dkim.path = .dkim
        #expect(dkim.pendingSenderDomain == "epicsteak.example")
    }
}
