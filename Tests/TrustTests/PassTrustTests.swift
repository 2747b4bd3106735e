import ReservoirBase
import Testing
import Trust
import WalletPass

/// The pass type allow list and the decision on a pass: its own verification and type, nothing
/// of the message.
@Suite("Trust: Wallet passes")
struct PassTrustTests {
    static let signer = PassSigner(
        passTypeIdentifier: "pass.com.airline.example.boarding", teamIdentifier: "A1B2C3D4E5", organization: "Airline Example", signedAt: nil)

    @Test(
        "exact entries and prefix entries ending in .*",
        arguments: [
            (["pass.com.airline.example.boarding"], "pass.com.airline.example.boarding", true),
            (["pass.com.airline.example.*"], "pass.com.airline.example.boarding", true),
            (["pass.com.airline.example.*"], "pass.com.airline.example", false),
            (["pass.com.airline.example.*"], "pass.com.airline.examples.boarding", false),
            (["pass.com.airline.example.boarding"], "pass.com.airline.example.boarding.x", false),
            (["pass.com.airline.example.boarding"], "PASS.com.airline.example.boarding", false),
            ([], "pass.com.airline.example.boarding", false),
        ])
    func allowList(entries: [String], identifier: String, allowed: Bool) {
        #expect(TrustPolicy(allowedPassTypes: entries).isAllowed(passType: identifier) == allowed)
    }

    @Test("a verified pass of an allowed type is trusted with its signer; of another type, refused")
    func decision() {
        let policy = TrustPolicy(allowedPassTypes: ["pass.com.airline.example.*"])
        let trusted = policy.decide(pass: .verified(Self.signer))
        #expect(trusted.trusted && trusted.refusal == nil && trusted.passSigner == Self.signer)
        #expect(trusted.owner == .walletPass(passType: "pass.com.airline.example.boarding"))
        let other = TrustPolicy(allowedPassTypes: ["pass.com.rail.example.*"])
        #expect(other.decide(pass: .verified(Self.signer)).refusal == .passTypeNotAllowed("pass.com.airline.example.boarding"))
        #expect(policy.decide(pass: .failed(.signatureInvalid)).refusal?.code == .passSignatureInvalid)
    }

    @Test("the testing switches do not reach passes")
    func switches() {
        let policy = TrustPolicy(allowAnyDomain: true, allowUnverified: true)
        #expect(!policy.decide(pass: .failed(.noAnchors)).trusted)
        #expect(!policy.decide(pass: .verified(Self.signer)).trusted)
    }
}
