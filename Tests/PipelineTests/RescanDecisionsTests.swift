import EventStore
import Testing
import Trust

@testable import Pipeline

@Suite("RescanDecisions: which unchanged files a scan reads again")
struct RescanDecisionsTests {
    static func decisions(_ policy: TrustPolicy) -> RescanDecisions {
        RescanDecisions(settings: DecisionSettings(policy: policy, includePast: false))
    }

    static func file(_ outcome: String?, _ settings: String?) -> ScannedFile {
        ScannedFile(key: "cur/1.M1", size: 1, modified: 1, outcome: outcome, settings: settings)
    }

    @Test("after the allow list grew: refused for the domain, read again; trusted, none and a broken signature, not")
    func allowListGrew() {
        var before = Self.decisions(TrustPolicy(allowedDomains: ["epicsteak.example"]))
        let outcomes = ["untrusted-domain-not-allowed", "trusted", "none", "untrusted-signature-not-valid", "pass untrusted-pass-no-ca"]
        let recorded = outcomes.map { Self.file($0, before.fingerprint(for: ScanOutcome(recorded: $0))) }
        #expect(recorded.map { before.decide($0) } == Array(repeating: .skip, count: outcomes.count))
        var after = Self.decisions(TrustPolicy(allowedDomains: ["epicsteak.example", "cascadia-air.example"]))
        #expect(recorded.map { after.decide($0) } == [.settingsChanged, .skip, .skip, .skip, .skip])
        // Back to the first list: what it was decided under, so nothing is read again.
        var back = Self.decisions(TrustPolicy(allowedDomains: ["epicsteak.example"]))
        #expect(recorded.map { back.decide($0) } == Array(repeating: .skip, count: outcomes.count))
    }

    @Test("a file an older reservoir recorded without its outcome is read again")
    func notRecorded() {
        var decisions = Self.decisions(TrustPolicy())
        #expect(decisions.decide(Self.file(nil, nil)) == .notRecorded)
        #expect(decisions.decide(Self.file("trusted", nil)) == .notRecorded)
    }
}
