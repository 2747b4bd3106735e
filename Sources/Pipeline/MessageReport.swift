public import Mailbox
public import MIME
public import DKIM
public import Reservations
public import EventStore
public import Trust

/// Everything Reservoir learned about one message: what it is, who vouched for it, which
/// reservations it carries, and what they did to the store.
public struct MessageReport: Sendable {
    public var origin: MessageOrigin
    /// Size of the message in bytes.
    public var size: Int
    public var subject: String?
    /// Whether the vouching signature covers the Subject; nil when no signature vouched.
    public var subjectSigned: Bool?
    /// The From addresses (more than one is suspicious and never trusted).
    public var from: [MailboxAddress]
    public var messageID: String?
    /// The `Date:` field as Unix seconds.
    public var date: Int64?
    /// When the message was sent by the evidence the store may order versions by: the signed
    /// Date (else the signature's `t=`) of a vouched message, the Date of one trusted by
    /// `--allow-unverified`; nil when nothing signed says.
    public var orderingDate: Int64?
    public var signatures: [DKIMVerification]
    public var trust: TrustDecision
    public var items: [ReportedReservation]
    public var diagnostics: [ReportDiagnostic]

    public var fromDomain: String? { from.count == 1 ? from.first?.domain : nil }
    public var hasReservations: Bool { !items.isEmpty }
    /// Reservations the trust policy accepted: what the store records.
    public var hasTrustedReservations: Bool { trust.trusted && !items.isEmpty }
}

/// One reservation of a message, the event it maps to, and what happened in the store.
public struct ReportedReservation: Sendable {
    public var reservation: Reservation
    public var event: CalendarEvent
    /// Nil when nothing was stored: untrusted, or run without a store.
    public var change: EventChange?
}

/// A note about the message for people and programs: a stable code and a sentence.
public struct ReportDiagnostic: Sendable, Equatable {
    public enum Stage: String, Sendable {
        case mime, dkim, markup, reservations, trust, store
    }

    public var stage: Stage
    public var code: String
    public var message: String

    public init(stage: Stage, code: String, message: String) {
        self.stage = stage
        self.code = code
        self.message = message
    }
}
