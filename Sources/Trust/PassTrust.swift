public import WalletPass

/// The verdict on one Wallet pass: trusted or not, who issued it, and why not. A pass vouches
/// for itself, through its issuer's signature, whoever sent or forwarded the message; DKIM and
/// the allowed domains play no part.
public struct PassTrustDecision: Sendable, Equatable {
    public var trusted: Bool
    /// The verified signer: the pass type, team and organisation of its certificate. Nil when
    /// the signature did not verify.
    public var signer: PassSigner?
    /// Why the pass is not trusted; nil when it is.
    public var refusal: TrustRefusal?

    public init(trusted: Bool, signer: PassSigner?, refusal: TrustRefusal?) {
        self.trusted = trusted
        self.signer = signer
        self.refusal = refusal
    }
}

extension TrustPolicy {
    /// A pass is trusted when it verified (every file as its manifest says, the manifest signed
    /// by a certificate chaining to a `--pass-ca` anchor, pass.json naming that certificate's
    /// pass type and team) and its pass type identifier is allowed.
    public func decide(pass verification: PassVerification) -> PassTrustDecision {
        switch verification {
        case .failed(let failure):
            return PassTrustDecision(trusted: false, signer: nil, refusal: .passNotVerified(failure))
        case .verified(let signer):
            guard isAllowed(passType: signer.passTypeIdentifier) else {
                return PassTrustDecision(trusted: false, signer: signer, refusal: .passTypeNotAllowed(signer.passTypeIdentifier))
            }
            return PassTrustDecision(trusted: true, signer: signer, refusal: nil)
        }
    }

    /// Whether `--allow-pass-type` lists the identifier: equal, or under an entry ending in
    /// `.*` (`pass.com.airline.example.*` allows `pass.com.airline.example.boarding`, not
    /// `pass.com.airline.example` itself nor `pass.com.airline.examples.x`). Identifiers are
    /// compared as written: Apple's are case-sensitive reverse-DNS strings.
    public func isAllowed(passType: String) -> Bool {
        allowedPassTypes.contains { entry in
            if entry.hasSuffix(".*") {
                let prefix = entry.dropLast()
                return passType.count > prefix.count && passType.hasPrefix(prefix)
            }
            return entry == passType
        }
    }
}
