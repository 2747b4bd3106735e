public import WalletPass

/// What vouches for where a reservation comes from.
public indirect enum ReservationProof: Sendable, Equatable {
    /// A DKIM signature of the message, verified here and aligned with its From: `d=`.
    case dkim(domain: String)
    /// The DKIM pass of `domain` an ARC sealer recorded (`--trust-arc-sealer`, RFC 8617): the
    /// sealer's word, in instance `instance`.
    case arc(sealer: String, instance: Int, domain: String)
    /// A Wallet pass's CMS signature: its signer (pass type, team, organisation, signing time).
    case pass(PassSigner)
    /// A message forwarded as an attachment: the attached message's own proof, and who
    /// forwarded it and how that was shown to be the user (nil `vouch` when it was not).
    case forward(forwarder: String?, vouch: ForwarderVouch?, message: ReservationProof)
    /// A page fetched over verified https from `url`, vouched for by the host's registered `domain`.
    case page(url: String, domain: String)
    /// A rail ticket's bar code signed by `railway` (its RICS code), key `keyID` of the UIC key list.
    case railTicket(railway: String, name: String?, keyID: String)
    /// No proof: `--allow-unverified` took the markup without one.
    case unverified
}

extension ReservationProof {
    /// The proof a document's signer gives.
    public init(_ signer: DocumentSigner) {
        switch signer {
        case .walletPass(let signer): self = .pass(signer)
        case .railway(let rics, let name, let keyID): self = .railTicket(railway: rics, name: name, keyID: keyID)
        }
    }
}

extension TrustDecision {
    /// The proof the message's decision rests on: the vouching signature's domain, by DKIM or
    /// by ARC, or the page's registered domain; `unverified` when only `--allow-unverified`
    /// trusted it; nil when nothing vouched.
    public var proof: ReservationProof? {
        guard let domain = vouchingDomain else { return trusted ? .unverified : nil }
        switch path {
        case .dkim: return .dkim(domain: domain)
        case .arc(let sealer, let instance): return .arc(sealer: sealer, instance: instance, domain: domain)
        case .page(let url, _): return .page(url: url, domain: domain)
        }
    }
}

extension DocumentTrustDecision {
    /// The proof the document's own signature gives; nil when none verified.
    public var proof: ReservationProof? { signer.map(ReservationProof.init) }
}
