public import ReservoirBase
public import WalletPass

/// Who signed a document that vouches for itself, once its signature verified.
public enum DocumentSigner: Sendable, Equatable {
    /// A Wallet pass's CMS signer: the pass type, team and organisation of its certificate, and
    /// its signing time.
    case walletPass(PassSigner)
    /// A railway's signature on a rail ticket's bar code (UIC 918.3): its RICS code and name, and
    /// the id of the UIC key list's key that verified it.
    case railway(rics: String, name: String?, keyID: String)
}

/// The verdict on a document that vouches for itself, whoever mailed it: a Wallet pass, a rail
/// ticket, and the kinds to come. One shape for every kind, so that what follows a verdict is
/// said once: whether its reservations are trusted, why not, who signed it, who owns its
/// bookings and what orders their versions (docs/SECURITY.md, "Wallet passes", "Rail
/// tickets"). A new kind is a reader that verifies it, a ``Kind`` and a ``DocumentSigner``
/// case, and the policy's decision on it.
public struct DocumentTrustDecision: Sendable, Equatable {
    /// What the document is.
    public enum Kind: String, Sendable, CaseIterable {
        case walletPass = "pass"
        case railTicket = "rail-ticket"
    }

    public var kind: Kind
    public var trusted: Bool
    /// Who signed it; nil when the signature did not verify, or the key that verified it may
    /// not vouch for it.
    public var signer: DocumentSigner?
    /// Why it is not trusted; nil when it is.
    public var refusal: TrustRefusal?
    /// The owner of its bookings, decided by its signer (``TrustPolicy/passOwner(_:)``,
    /// ``TrustPolicy/railOwner(_:)``); nil without a signer.
    public var owner: BookingOwner?
    /// When its issuer signed it, by its own signed evidence (a pass's CMS signing time, a
    /// ticket's issuing time): what orders its bookings' versions, never the mail's Date.
    public var signedAt: Int64?

    public init(
        _ kind: Kind, trusted: Bool, signer: DocumentSigner? = nil, refusal: TrustRefusal?, owner: BookingOwner? = nil,
        signedAt: Int64? = nil
    ) {
        self.kind = kind
        self.trusted = trusted
        self.signer = signer
        self.refusal = refusal
        self.owner = owner
        self.signedAt = signedAt
    }

    /// The Wallet pass's signer, when a pass's signature verified.
    public var passSigner: PassSigner? {
        if case .walletPass(let signer) = signer { return signer }
        return nil
    }

    /// Refused for recipient binding (`document-not-addressed`): the document still vouches for
    /// the booking, not for whose calendar it belongs in.
    public mutating func unbind() {
        trusted = false
        refusal = .documentNotAddressed
    }
}
