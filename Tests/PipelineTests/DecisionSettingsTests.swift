import Foundation
import Testing
import Trust
import WalletPass

@testable import Pipeline

/// The fingerprints a scan records: each group changes with its own settings and no other, and
/// not with the order or spelling of a list.
@Suite("DecisionSettings: a fingerprint per group of settings")
struct DecisionSettingsTests {
    static func fingerprint(_ policy: TrustPolicy, includePast: Bool = false, of groups: Set<DecisionSetting>) -> String {
        DecisionSettings(policy: policy, includePast: includePast).fingerprint(of: groups)
    }

    @Test("a grown allow list changes the domains' fingerprint, not the others'")
    func allowList() {
        let short = TrustPolicy(allowedDomains: ["epicsteak.example"])
        let long = TrustPolicy(allowedDomains: ["epicsteak.example", "cascadia-air.example"])
        #expect(Self.fingerprint(short, of: [.domains]) != Self.fingerprint(long, of: [.domains]))
        #expect(Self.fingerprint(short, of: [.unverified, .arc]) == Self.fingerprint(long, of: [.unverified, .arc]))
        #expect(Self.fingerprint(short, of: [.passes, .forwarding, .past]) == Self.fingerprint(long, of: [.passes, .forwarding, .past]))
        // --allow-any-domain is a domains setting too.
        #expect(
            Self.fingerprint(short, of: [.domains])
                != Self.fingerprint(TrustPolicy(allowedDomains: ["epicsteak.example"], allowAnyDomain: true), of: [.domains]))
    }

    @Test("the order, repetition and case of a list change nothing")
    func canonical() {
        let a = TrustPolicy(
            allowedDomains: ["b.example", "a.example"], recipients: ["Jane@Home.example"], trustedARCSealers: ["x.example", "y.example"])
        let b = TrustPolicy(
            allowedDomains: ["A.example", "b.example", "a.example"], recipients: ["jane@home.example"], trustedARCSealers: ["y.example", "x.example"])
        #expect(Self.fingerprint(a, of: Set(DecisionSetting.allCases)) == Self.fingerprint(b, of: Set(DecisionSetting.allCases)))
    }

    @Test("each switch moves its own group", arguments: DecisionSetting.allCases)
    func eachGroup(_ group: DecisionSetting) {
        let base = TrustPolicy(allowedDomains: ["a.example"])
        let changed: TrustPolicy
        var includePast = false
        switch group {
        case .domains: changed = TrustPolicy(allowedDomains: ["b.example"])
        case .unverified: changed = TrustPolicy(allowedDomains: ["a.example"], allowUnverified: true)
        case .recipients, .forwarding: changed = TrustPolicy(allowedDomains: ["a.example"], recipients: ["jane@home.example"])
        case .arc: changed = TrustPolicy(allowedDomains: ["a.example"], trustedARCSealers: ["mx.example"])
        case .passes: changed = TrustPolicy(allowedDomains: ["a.example"], allowedPassTypes: ["pass.example.x=x.example"])
        case .past:
            changed = base
            includePast = true
        }
        #expect(Self.fingerprint(base, of: [group]) != Self.fingerprint(changed, includePast: includePast, of: [group]))
        let others = Set(DecisionSetting.allCases).subtracting([group, .recipients, .forwarding])
        #expect(Self.fingerprint(base, of: others) == Self.fingerprint(changed, includePast: includePast, of: others))
    }

    @Test("the user's verifier: the filter's own authserv-id counts only beside a trusted one")
    func authservIDs() {
        let plain = TrustPolicy(ownAuthservID: "mx1.home.example")
        let renamed = TrustPolicy(ownAuthservID: "mx2.home.example")
        #expect(Self.fingerprint(plain, of: [.forwarding]) == Self.fingerprint(renamed, of: [.forwarding]))
        let trusting = TrustPolicy(trustedAuthservID: "imap.home.example", ownAuthservID: "mx1.home.example")
        #expect(Self.fingerprint(plain, of: [.forwarding]) != Self.fingerprint(trusting, of: [.forwarding]))
        let trustingRenamed = TrustPolicy(trustedAuthservID: "imap.home.example", ownAuthservID: "mx2.home.example")
        #expect(Self.fingerprint(trusting, of: [.forwarding]) != Self.fingerprint(trustingRenamed, of: [.forwarding]))
    }

    @Test("a pass CA file counts by what it holds: replaced under the same name, the fingerprint moves")
    func passCAContents() throws {
        let path = NSTemporaryDirectory() + "reservoir-ca-\(UUID().uuidString).pem"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n".utf8).write(to: URL(fileURLWithPath: path))
        let before = Self.fingerprint(TrustPolicy(passAnchors: PassTrustAnchors(paths: [path])), of: [.passes])
        #expect(before == Self.fingerprint(TrustPolicy(passAnchors: PassTrustAnchors(paths: [path])), of: [.passes]))
        try Data("-----BEGIN CERTIFICATE-----\nBBBB\n-----END CERTIFICATE-----\n".utf8).write(to: URL(fileURLWithPath: path))
        #expect(before != Self.fingerprint(TrustPolicy(passAnchors: PassTrustAnchors(paths: [path])), of: [.passes]))
    }

    @Test("no group, no fingerprint; FNV-1a as specified")
    func empty() {
        #expect(Self.fingerprint(TrustPolicy(), of: []) == "")
        // The FNV specification's test vectors: "" and "a".
        #expect(DecisionSettings.hash([]) == "cbf29ce484222325")
        #expect(DecisionSettings.hash(Array("a".utf8)) == "af63dc4c8601ec8c")
    }
}
