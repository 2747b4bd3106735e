import Foundation
import PipelineTestSupport
import Testing
import Trust
import WalletPass

@testable import Pipeline

/// What an incremental scan records of a message, and which settings that makes it depend on:
/// a message is read again when one of them changes, and only then.
@Suite("ScanOutcome: what a reading came to, and the settings it depended on")
struct ScanOutcomeTests {
    /// The samples under a short allow list (only EPIC Steak), without pass settings or `--me`.
    static let shortList = TrustPolicy(allowedDomains: ["epicsteak.example"])

    @Test(
        "the samples under a short allow list",
        arguments: [
            // Trusted and stored: no setting can undo it.
            (1, "trusted", Set<DecisionSetting>()),
            // Refused for its domain: the allow list, and whatever decides that something vouched.
            (4, "untrusted-domain-not-allowed", [.domains, .unverified, .arc, .recipients]),
            // A newsletter: nothing to read again for.
            (7, "none", []),
            // A broken signature: only --allow-unverified or an ARC sealer could outweigh it.
            (8, "untrusted-signature-not-valid", [.unverified, .arc]),
            // A pass without --pass-ca: the pass settings.
            (9, "pass untrusted-pass-no-ca", [.passes]),
            // A forward from someone not --me, of a confirmation from a domain not allowed.
            (11, "untrusted-domain-not-allowed untrusted-forward-not-from-me", [.domains, .unverified, .arc, .recipients, .forwarding]),
        ] as [(Int, String, Set<DecisionSetting>)])
    func samples(number: Int, text: String, dependencies: Set<DecisionSetting>) throws {
        let report = try Samples.pipeline(policy: Self.shortList).analyze(try Samples.message(number))
        let outcome = ScanOutcome(report)
        #expect(outcome.text == text)
        #expect(outcome.dependencies == dependencies)
    }

    @Test("reservations left out as ended depend on --include-past")
    func ended() throws {
        // 2032: every sample reservation has ended.
        let report = try Samples.pipeline(now: 1_956_528_000).analyze(try Samples.message(1))
        #expect(report.items.isEmpty)
        #expect(ScanOutcome(report).text == "ended")
        #expect(ScanOutcome(report).dependencies == [.past])
    }

    @Test("a trusted pass depends on the pass settings: a TYPE=DOMAIN link decides its owner")
    func trustedPass() throws {
        let policy = TrustPolicy(
            allowedDomains: ["cascadia-air.example"], allowedPassTypes: ["pass.example.cascadia-air.*"],
            passAnchors: PassTrustAnchors(paths: [Samples.maildir.appendingPathComponent("pass-ca.pem").path]))
        let report = try Samples.pipeline(policy: policy).analyze(try Samples.message(9))
        #expect(ScanOutcome(report).text == "pass trusted")
        #expect(ScanOutcome(report).dependencies == [.passes])
    }

    @Test(
        "recorded words read back as the same outcome",
        arguments: ["none", "trusted", "ended", "pass trusted", "untrusted-domain-not-allowed untrusted-forward-not-from-me"])
    func roundTrip(text: String) {
        let outcome = ScanOutcome(recorded: text)
        #expect(outcome.text == text)
        #expect(ScanOutcome(recorded: outcome.text) == outcome)
    }

    @Test("an outcome an older reservoir did not record, or a word this one does not know, depends on every setting")
    func unknown() {
        #expect(ScanOutcome(recorded: nil).dependencies == Set(DecisionSetting.allCases))
        #expect(ScanOutcome(recorded: "trusted untrusted-something-new").dependencies == Set(DecisionSetting.allCases))
        #expect(ScanOutcome(recorded: "untrusted").dependencies == Set(DecisionSetting.allCases))
    }
}
