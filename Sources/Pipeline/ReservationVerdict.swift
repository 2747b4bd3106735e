import EventStore
public import Reservations
public import ReservoirBase
public import Trust
import WalletPass

/// The verdict on one reservation, whatever carried it: trusted or not, why not, the proof of
/// origin it rests on, who owns its booking and what orders its versions. A message can carry a trusted pass beside untrusted markup, or a
/// trusted invitation beside a refused one; each reservation says its own, so a program never
/// combines the message's DKIM decision with hints of the item (`--json`'s `trusted`,
/// `refusal`, `proof`).
public struct ReservationVerdict: Sendable, Equatable {
    /// Whether the reservation may become an event (``MessageReport/isTrusted(_:)``).
    public var trusted: Bool
    /// Why not; nil when trusted.
    public var refusal: TrustRefusal?
    /// The proof of origin the reservation has, trusted or not (a valid signature of a domain
    /// that is not allowed is still a proof); nil when there is none.
    public var proof: ReservationProof?
    /// Whose booking it is (docs/SECURITY.md, "Ownership of a booking"): the proof's owner, never
    /// a name the message chose.
    public var owner: BookingOwner
    /// When its sender or issuer sent it, by signed evidence only: what the store orders the
    /// booking's versions by; nil when nothing signed says.
    public var orderedBy: Int64?

    public init(trusted: Bool, refusal: TrustRefusal?, proof: ReservationProof?, owner: BookingOwner = .unproven, orderedBy: Int64? = nil) {
        self.trusted = trusted
        self.refusal = refusal
        self.proof = proof
        self.owner = owner
        self.orderedBy = orderedBy
    }
}

extension MessageReport {
    /// The verdict on one of the message's own reservations: for markup and calendar parts the
    /// message's decision, unless the item is refused on its own (an invitation's ORGANIZER);
    /// for a Wallet pass its own decision.
    public func verdict(of item: ReportedReservation) -> ReservationVerdict {
        let trusted = isTrusted(item)
        switch item.source {
        case .document(let decision):
            // Owned by its signer and ordered by its own signed time, never by the message's
            // Date, which nothing signs here.
            return ReservationVerdict(
                trusted: trusted, refusal: trusted ? nil : decision.refusal, proof: decision.proof,
                owner: decision.owner ?? .unproven, orderedBy: decision.signedAt)
        case .markup:
            // Every untrusted message has a refusal; no-signature stands in should one be missing.
            let refusal = trusted ? nil : item.refusal ?? trust.refusal ?? .noSignature
            return ReservationVerdict(
                trusted: trusted, refusal: refusal, proof: trust.proof, owner: trust.vouchingDomain.map(BookingOwner.domain) ?? .unproven,
                orderedBy: orderingDate)
        }
    }
}

extension EventProof {
    /// The proof stored with an event: the kind of proof shown, and what names it (the sealer,
    /// the pass type, the page's domain, the railway). Nil for no proof (`--allow-unverified`).
    init?(_ proof: ReservationProof) {
        switch proof {
        case .dkim: self = .signedMail
        case .arc(let sealer, _, _): self = .arc(sealer: sealer)
        case .pass(let signer): self = .signedPass(passType: signer.passTypeIdentifier)
        case .forward(_, _, let message): self.init(message)
        case .page(_, let domain): self = .page(domain: domain)
        case .railTicket(let railway, _, _): self = .signedRailTicket(railway: railway)
        case .unverified: return nil
        }
    }
}

extension ForwardedMessage {
    /// The verdict on a reservation of the attached message: its own report's verdict (which
    /// holds the forwarder's refusal), with markup's proof wrapped in the forward's. A pass keeps
    /// its own proof: it does not depend on who forwarded it.
    public func verdict(of item: ReportedReservation) -> ReservationVerdict {
        var verdict = report.verdict(of: item)
        if case .markup = item.source, let proof = verdict.proof, proof != .unverified {
            verdict.proof = .forward(forwarder: forwarder.forwarder, vouch: forwarder.vouch, message: proof)
        }
        return verdict
    }
}

/// A reservation listed by `extract`, with its verdict.
public struct ListedReservation: Sendable {
    public var reservation: Reservation
    public var verdict: ReservationVerdict

    public init(reservation: Reservation, verdict: ReservationVerdict) {
        self.reservation = reservation
        self.verdict = verdict
    }
}
