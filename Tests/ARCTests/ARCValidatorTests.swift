import DKIM
import DNS
import MIME
import Testing
import Trust

@testable import ARC

/// The structure rules of RFC 8617 §5.2 and the limits, before any signature is checked, and
/// what the trust policy makes of a validated chain.
@Suite("ARC sets: structure, limits and the trusted-sealer rules")
struct ARCValidatorTests {
    static var verifier: DKIMVerifier { DKIMVerifier(resolver: KeysFile(text: ""), now: 1_795_348_800) }

    static func validate(_ header: String) -> ARCValidation {
        ARCValidator.validate(Message(bytes: Array((header + "From: a@b.example\n\nbody\n").utf8)), verifier: verifier)
    }

    static func set(_ i: Int, cv: String = "none", sealer: String = "sealer.example") -> String {
        "ARC-Seal: i=\(i); a=rsa-sha256; cv=\(cv); d=\(sealer); s=arc; b=AAAA\n"
            + "ARC-Message-Signature: i=\(i); a=rsa-sha256; c=relaxed/relaxed; d=\(sealer); s=arc; h=from; bh=AAAA; b=AAAA\n"
            + "ARC-Authentication-Results: i=\(i); mx.\(sealer); dkim=pass header.d=b.example\n"
    }

    @Test("no ARC field: none, and nothing is read")
    func none() {
        #expect(Self.validate("Subject: x\n").result == .none)
        #expect(!ARCValidator.hasARCFields(Message(bytes: Array("From: a@b.example\n\nx\n".utf8))))
    }

    @Test(
        "an i= that is not 1 to 50 is malformed",
        arguments: ["i=0", "i=51", "i=x", "i=-1", "i=0001", ""])
    func malformedInstance(tag: String) {
        let result = Self.validate("ARC-Seal: \(tag); a=rsa-sha256; cv=none; d=s.example; s=arc; b=AAAA\n")
        #expect(result.result == .fail)
        #expect(result.code == .malformedField)
    }

    @Test("an incomplete or skipped instance, and a duplicated field, fail")
    func structure() {
        #expect(Self.validate("ARC-Seal: i=1; a=rsa-sha256; cv=none; d=s.example; s=arc; b=AAAA\n").code == .missingField)
        #expect(Self.validate(Self.set(2, cv: "pass")).code == .missingField, "instance 1 is missing")
        #expect(Self.validate(Self.set(1) + Self.set(1)).code == .duplicateField)
    }

    @Test("more than 50 instances' worth of fields, or a field over 16 KB, fail")
    func limits() {
        let many = (1...51).map { Self.set($0, cv: $0 == 1 ? "none" : "pass") }.joined()
        #expect(Self.validate(many).code == .tooManyInstances)
        let long = "ARC-Seal: i=1; a=rsa-sha256; cv=none; d=s.example; s=arc; b=" + String(repeating: "A", count: ARCLimits.maxFieldBytes) + "\n"
        #expect(Self.validate(long).code == .fieldTooLong)
    }

    @Test("cv= must be none on instance 1 and pass after; the latest cv=fail ends the chain")
    func chainValues() {
        #expect(Self.validate(Self.set(1, cv: "pass")).code == .wrongChainValue)
        #expect(Self.validate(Self.set(1) + Self.set(2, cv: "none")).code == .wrongChainValue)
        #expect(Self.validate(Self.set(1) + Self.set(2, cv: "fail")).code == .chainFailed)
        // The structure holds: the signatures are what fails (no key for them here).
        #expect(Self.validate(Self.set(1) + Self.set(2, cv: "pass")).code == .messageSignatureFailed)
    }

    @Test("ARC-Authentication-Results: i= then an RFC 8601 payload")
    func resultsValue() throws {
        let read = try #require(ARCValidator.resultsInstance(Array(" i=3 ; mx.example; dkim=pass header.d=a.example".utf8)[...]))
        #expect(read.instance == 3)
        #expect(read.payload?.authservID == "mx.example")
        #expect(read.payload?.results.first?.result == "pass")
        #expect(ARCValidator.resultsInstance(Array("mx.example; dkim=pass".utf8)[...]) == nil)
        #expect(ARCValidator.resultsInstance(Array("i=2 mx.example".utf8)[...]) == nil)
    }

    static func chain(_ sealers: [String], results: String = "dkim=pass header.d=b.example") -> ARCValidation {
        let instances = sealers.enumerated().map { offset, sealer in
            ARCInstance(
                instance: offset + 1, sealer: sealer, chainValidation: offset == 0 ? "none" : "pass",
                results: try? AuthenticationResultsPayload.parse("mx.\(sealer); " + results).get())
        }
        let signature = DKIMVerification(
            result: .pass, reason: "", domain: sealers.last ?? "", selector: "arc", algorithm: "rsa-sha256",
            signedHeaders: ["from", "content-type"])
        return ARCValidation(result: .pass, instances: instances, latestMessageSignature: signature)
    }

    static let policy = TrustPolicy(allowedDomains: ["b.example"], trustedARCSealers: ["provider.example", ".relay.example"])

    /// The original signature of b.example as a forwarder left it: its header hash broken (a
    /// subject tag), its tags readable.
    static func original(
        selector: String = "s1", bodyLength: Int? = nil, coversWholeBody: Bool = true, testing: Bool = false,
        code: DKIMVerification.Code = .signatureMismatch, signedHeaders: [String] = ["from", "subject"]
    ) -> DKIMVerification {
        DKIMVerification(
            result: .fail, code: code, reason: "", domain: "b.example", selector: selector, algorithm: "rsa-sha256",
            testing: testing, bodyLength: bodyLength, coversWholeBody: coversWholeBody, signedHeaders: signedHeaders,
            canonicalization: DKIMCanonicalization(tag: "relaxed/relaxed"))
    }

    @Test("the sealer's pass stands for the original signature's result only: its l=, key and h= still rule")
    func originalSignatureRules() {
        let message = Message(bytes: Array("From: a@b.example\nContent-Type: text/html\n\nx\n".utf8))
        let arc = Self.chain(["provider.example"], results: "dkim=pass header.d=b.example header.s=s1")
        func outcome(_ signatures: [DKIMVerification]) -> TrustDecision {
            Self.policy.decide(message, signatures: signatures, arc: arc).decision
        }
        let covered = Self.original(signedHeaders: ["from", "subject", "content-type"])
        #expect(outcome([covered]).trusted)
        #expect(outcome([]).refusals.last?.code == .arcOriginalNotFound)
        #expect(outcome([Self.original(selector: "s2", signedHeaders: ["from", "content-type"])]).refusals.last?.code == .arcOriginalNotFound)
        #expect(outcome([Self.original(signedHeaders: ["from"])]).refusals.last?.code == .unsignedStructure, "Content-Type not in h=")
        var partial = covered
        partial.bodyLength = 10
        partial.coversWholeBody = false
        #expect(outcome([partial]).refusals.last?.code == .partialBody)
        var unhashed = covered
        unhashed.bodyLength = 10
        unhashed.code = .keyNotFound
        #expect(outcome([unhashed]).refusals.last?.code == .partialBody, "l= with a body never hashed here")
        var whole = covered
        whole.bodyLength = 1
        #expect(outcome([whole]).trusted, "l= covering the whole body hashed here")
        var testing = covered
        testing.testing = true
        #expect(outcome([testing]).refusals.last?.code == .testingKey)
        var unreadable = covered
        unreadable.canonicalization = nil
        #expect(outcome([unreadable]).refusals.last?.code == .arcOriginalNotFound)
        #expect(!outcome([covered, partial]).trusted, "every field of the domain must allow it")
    }

    @Test("the first trusted instance and every later one sealed by trusted sealers, with an aligned pass")
    func trustedSealerRules() {
        let trusted = Self.policy.decide(
            Message(bytes: Array("From: a@b.example\n\nx\n".utf8)), signatures: [Self.original()],
            arc: Self.chain(["other.example", "provider.example"]))
        #expect(trusted.decision.trusted)
        #expect(trusted.decision.path == .arc(sealer: "provider.example", instance: 2))
        #expect(trusted.decision.vouchingDomain == "b.example")
        func refusal(_ arc: ARCValidation) -> TrustRefusal.Code? {
            Self.policy.decide(Message(bytes: Array("From: a@b.example\n\nx\n".utf8)), signatures: [], arc: arc).decision.refusals.last?.code
        }
        #expect(refusal(Self.chain(["provider.example", "other.example"])) == .arcSealerNotTrusted, "a later untrusted sealer")
        #expect(refusal(Self.chain(["other.example"])) == .arcSealerNotTrusted)
        #expect(refusal(Self.chain(["provider.example"], results: "dkim=pass header.d=evil.example")) == .arcNoAlignedPass)
        #expect(refusal(Self.chain(["provider.example"], results: "dkim=fail header.d=b.example")) == .arcNoAlignedPass)
        #expect(refusal(ARCValidation(result: .fail, code: .sealFailed)) == .arcNotValid)
        #expect(Self.policy.isTrustedSealer("mx.relay.example") && Self.policy.isTrustedSealer("relay.example"))
        #expect(!Self.policy.isTrustedSealer("evilrelay.example"))
        // Off by default: no sealer trusted, the chain is not read.
        let off = TrustPolicy(allowedDomains: ["b.example"]).decide(
            Message(bytes: Array("From: a@b.example\n\nx\n".utf8)), signatures: [], arc: Self.chain(["provider.example"]))
        #expect(!off.decision.trusted)
        #expect(off.decision.refusals.map(\.code) == [.noSignature])
    }
}
