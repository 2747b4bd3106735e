public import DKIM
public import Documents
public import EventStore
public import ICalendarReading
public import MIME
public import Mailbox
public import Markup
public import RailTicket
public import Reservations
public import Trust
public import WalletPass
public import Zip

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
    /// The messages attached to this one as `message/rfc822` parts (forwards), each analysed
    /// on its own (``ForwardedMessage``); empty for almost all mail.
    public var forwarded: [ForwardedMessage] = []
    /// Wallet passes read from the message (verified or not, reservations or not): their
    /// verdict depends on `--pass-ca` and `--allow-pass-type` even when nothing of them is listed.
    public var walletPasses = 0
    /// The analysis this report decided, kept for a message whose sender may wait as pending
    /// (``TrustDecision/pendingSenderDomain``): what a sender the person allowed is decided
    /// again from, without reading it again.
    public var analysis: MessageAnalysis?
    /// The message's bytes, kept only with ``analysis`` and for a message of at most
    /// ``PendingLimits/maxMessageBytes``: what waits as pending, and `reservoir allow` reads again.
    public var pendingMessage: [UInt8]? { analysis?.bytes }

    public var fromDomain: String? { from.count == 1 ? from.first?.domain : nil }
    /// Whether this reports a page or a document rather than mail (`reservoir add`): no From,
    /// no signatures, no headline subject.
    public var isDocument: Bool {
        if case .page = trust.path { return true }
        return trust.refusals.contains(.documentNoProof)
    }
    public var hasReservations: Bool { !items.isEmpty }
    /// Whether a message carries reservations the trust policy accepted: what the store records.
    /// Forwarded messages' trusted reservations count too.
    public var hasTrustedReservations: Bool {
        items.contains(where: isTrusted) || forwarded.contains { $0.report.hasTrustedReservations }
    }
    /// The sender domain whose markup reservations may wait as pending: a genuine, aligned
    /// signature whose only refusal is the domain (``TrustDecision/pendingSenderDomain``).
    public var pendingSenderDomain: String? {
        guard hasMarkupReservations || items.contains(where: \.awaitsAddressing), let domain = trust.pendingSenderDomain else { return nil }
        return domain
    }
    /// Whether a message carries reservations the store keeps: trusted ones, or pending ones.
    public var hasReservationsToKeep: Bool { hasTrustedReservations || pendingSenderDomain != nil }
    /// Whether any reservation is decided by the message's ``trust`` (markup, calendar parts);
    /// a pass decides on its own.
    public var hasMarkupReservations: Bool { items.contains { $0.source == .markup } }
    /// Markup reservations that trust refused while a DKIM key lookup failed for now
    /// (`dkim=temperror`): the same message may be trusted once DNS answers.
    public var untrustedForNow: Bool {
        hasMarkupReservations && !trust.trusted && signatures.contains { $0.result == .temperror }
    }

    /// Whether the policy accepted this reservation: the message's decision for markup and
    /// calendar parts, unless the item is refused on its own (an invitation's ORGANIZER); the
    /// document's own for a document that vouches for itself.
    public func isTrusted(_ item: ReportedReservation) -> Bool {
        switch item.source {
        case .markup: trust.trusted && item.refusal == nil
        case .document(let decision): decision.trusted
        }
    }
}

/// One reservation of a message, the event it maps to, and what happened in the store.
public struct ReportedReservation: Sendable {
    public var reservation: Reservation
    public var event: CalendarEvent
    /// Nil when nothing was stored: untrusted, or run without a store.
    public var change: EventChange?
    /// What a cancellation of a whole recurring invitation did to the other stored instances
    /// of its UID (those a RECURRENCE-ID moved or changed), RFC 5546 §3.2.5; empty otherwise.
    public var instanceChanges: [EventChange] = []
    /// Where it was read, which says what decides its trust.
    public var source: ReservationSource = .markup
    /// Why this reservation is not trusted in a message that is (an invitation's ORGANIZER not
    /// aligned with From); nil when the message's decision stands for it.
    public var refusal: TrustRefusal?

    public init(
        reservation: Reservation, event: CalendarEvent, change: EventChange?, source: ReservationSource = .markup,
        refusal: TrustRefusal? = nil
    ) {
        self.reservation = reservation
        self.event = event
        self.change = change
        self.source = source
        self.refusal = refusal
    }
}

extension MessageReport {
    /// Whether `item` waits for the person's choice of its sender (docs/USAGE.md, "Pending
    /// senders"): a genuine sender not allowed yet, not denied, and an item that would be taken
    /// once it is (markup not refused on its own, or a document refused for recipient binding
    /// alone). Said `(pending)` in the mail's fields rather than `(untrusted)`.
    public func waitsAsPending(_ item: ReportedReservation) -> Bool {
        guard pendingSenderDomain != nil, !isTrusted(item), !diagnostics.contains(where: { $0.code == .senderDenied }) else { return false }
        return (item.source == .markup && item.refusal == nil) || item.awaitsAddressing
    }
}

extension ReportedReservation {
    /// Whether a document's own proof trusts this reservation (a verified, allowed Wallet pass,
    /// a rail ticket its railway's key vouches for), whoever mailed it.
    var vouchesForItself: Bool {
        if case .document(let decision) = source { return decision.trusted }
        return false
    }

    /// Whether only recipient binding refuses this document's reservation
    /// (`document-not-addressed`): mail a genuine sender not allowed yet sent to the person may
    /// wait as pending with it, and `reservoir allow` binds it.
    var awaitsAddressing: Bool {
        if case .document(let decision) = source { return decision.refusal == .documentNotAddressed }
        return false
    }

    /// Refuses a self-vouching document's reservation for recipient binding; its proof stays.
    mutating func unbind() {
        guard case .document(var decision) = source else { return }
        decision.unbind()
        source = .document(decision)
    }
}

/// Where a reservation was read: the source decides which trust rule applies.
public enum ReservationSource: Sendable, Equatable {
    /// schema.org markup in the message's HTML, or a calendar part (RFC 5545), trusted by the
    /// message's ``TrustDecision`` (DKIM, allowed domain, recipient).
    case markup
    /// A document that vouches for itself, whoever sent the message: an Apple Wallet pass by
    /// its signature and pass type, a rail ticket's bar code (UIC 918.3) by its railway's
    /// signature (`--rail-keys`).
    case document(DocumentTrustDecision)
}

/// A note about the message for people and programs: a stable code and a sentence.
public struct ReportDiagnostic: Sendable, Equatable {
    public enum Stage: String, Sendable {
        case mime, dkim, markup, calendar, pass, document, reservations, trust, store
    }

    /// Every code a report carries: each stage's own, and the pipeline's. ``all`` is the
    /// registry docs/USAGE.md's table is checked against.
    public enum Code: Sendable, Hashable, CustomStringConvertible {
        case mime(MIMEDiagnostic.Code)
        case markup(MarkupDiagnostic.Code)
        /// A Wallet pass's archive could not be read whole.
        case zip(ZipDiagnostic.Code)
        /// A Wallet pass's content: not a reservation, unreadable, its bar code.
        case pass(PassDiagnostic.Code)
        /// A note of the calendar reader (RFC 5545 parts and `.ics` attachments).
        case calendar(ICalendarDiagnostic.Code)
        /// Calendar parts of a message whose markup describes its reservations: the markup is
        /// read, the calendar parts (the same booking told again) are not.
        case calendarNotRead
        /// A trusted invitation without ORGANIZER: nothing ties the event to the From domain but
        /// the DKIM signature of the message.
        case calendarNoOrganizer
        case reservations(ReservationDiagnostic.Code)
        /// The markup is not trusted; the first refusal's code.
        case untrusted(TrustRefusal.Code)
        /// A trusted message whose Subject the vouching signature does not cover.
        case unsignedSubject
        /// A large message's file could not be opened or read back.
        case unreadable
        /// A large message's header section is over ``MIME/Limits/maxStreamedHeaderBytes``.
        case headerTooLarge
        /// The store refused the change.
        case storeFailed
        /// A cancellation of a booking its owner never made here: kept without times, in no
        /// calendar, and another owner's booking of the same number is not its to cancel.
        case cancelNotBooked
        /// A genuine sender not chosen yet: the markup waits as pending (`reservoir pending`).
        case senderPending
        /// A sender the person denied (`reservoir deny`): refused without waiting.
        case senderDenied
        /// A PDF or image attachment whose bar codes were not all read (``DocumentReadFailure``).
        case document(DocumentReadFailure)
        /// A bar code of a document that is neither a boarding pass nor a rail ticket.
        case documentCodeNotRead
        /// A boarding pass bar code of a document that does not read (IATA Resolution 792).
        case documentBoardingPassInvalid
        /// A boarding pass of a document whose day of the year no signed date places: not stored.
        case documentYearUnsigned
        /// A note of the rail ticket reader (UIC 918.3, ERA FCB).
        case rail(RailDiagnostic.Code)
        /// An attached message nested deeper than ``ForwardLimits/maxDepth`` was not read.
        case forwardTooDeep
        /// More attached messages than ``ForwardLimits/maxMessages``; the rest were not read.
        case tooManyForwarded

        /// The stable name programs read (`--json`, the scan's summary, `--explain`).
        public var description: String {
            switch self {
            case .mime(let code): code.rawValue
            case .markup(let code): code.rawValue
            case .zip(let code): code.rawValue
            case .pass(let code): code.rawValue
            case .calendar(let code): code.rawValue
            case .calendarNotRead: "calendar-not-read"
            case .calendarNoOrganizer: "calendar-no-organizer"
            case .reservations(let code): code.rawValue
            case .untrusted(let code): "untrusted-" + code.rawValue
            case .unsignedSubject: "unsigned-subject"
            case .unreadable: "unreadable"
            case .headerTooLarge: "header-too-large"
            case .storeFailed: "store-failed"
            case .cancelNotBooked: "cancel-not-booked"
            case .senderPending: "sender-pending"
            case .senderDenied: "sender-denied"
            case .document(let failure): failure.rawValue
            case .documentCodeNotRead: "document-code-not-read"
            case .documentBoardingPassInvalid: "document-bcbp-invalid"
            case .documentYearUnsigned: "document-year-unsigned"
            case .rail(let code): code.rawValue
            case .forwardTooDeep: "forward-too-deep"
            case .tooManyForwarded: "too-many-forwarded"
            }
        }

        public var stage: Stage {
            switch self {
            case .mime, .unreadable, .headerTooLarge, .forwardTooDeep, .tooManyForwarded: .mime
            case .markup: .markup
            case .zip, .pass: .pass
            case .document, .documentCodeNotRead, .documentBoardingPassInvalid, .documentYearUnsigned, .rail: .document
            case .calendar, .calendarNotRead: .calendar
            case .calendarNoOrganizer: .trust
            case .reservations: .reservations
            case .untrusted, .unsignedSubject, .senderPending, .senderDenied, .cancelNotBooked: .trust
            case .storeFailed: .store
            }
        }

        /// The registry of every code.
        public static var all: [Code] {
            MIMEDiagnostic.Code.allCases.map(Code.mime) + MarkupDiagnostic.Code.allCases.map(Code.markup)
                + ZipDiagnostic.Code.allCases.map(Code.zip) + PassDiagnostic.Code.allCases.map(Code.pass)
                + ICalendarDiagnostic.Code.allCases.map(Code.calendar) + [.calendarNotRead, .calendarNoOrganizer]
                + ReservationDiagnostic.Code.allCases.map(Code.reservations) + TrustRefusal.Code.allCases.map(Code.untrusted)
                + [.unsignedSubject, .unreadable, .headerTooLarge, .storeFailed, .forwardTooDeep, .tooManyForwarded]
                + [.senderPending, .senderDenied, .cancelNotBooked]
                + DocumentReadFailure.allCases.map(Code.document) + [.documentCodeNotRead, .documentBoardingPassInvalid, .documentYearUnsigned]
                + RailDiagnostic.Code.allCases.map(Code.rail)
        }
    }

    public var code: Code
    public var message: String
    /// A stable word for programs beside the code (the repairs of `date-repaired`, the zone of
    /// `timezone-name`); nil when the code says it all.
    public var detail: String?
    public var stage: Stage { code.stage }

    public init(_ code: Code, message: String, detail: String? = nil) {
        self.code = code
        self.message = message
        self.detail = detail
    }
}

/// The reservations of one message regardless of trust, each with its verdict, and the notes of
/// every stage that read them (`reservoir extract`).
public struct MessageExtraction: Sendable {
    public var items: [ListedReservation]
    public var diagnostics: [ReportDiagnostic]

    public init(items: [ListedReservation], diagnostics: [ReportDiagnostic]) {
        self.items = items
        self.diagnostics = diagnostics
    }

    public var reservations: [Reservation] { items.map(\.reservation) }
}

/// What the reading of a message's parts found, before any trust decision.
struct ReservationReading: Sendable {
    var reservations: [Reservation]
    var diagnostics: [ReportDiagnostic]
}
