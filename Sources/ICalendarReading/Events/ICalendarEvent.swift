/// A calendar user address (RFC 5545 §3.3.3) of ORGANIZER: its URI read as a `mailto:` URI
/// (``MailtoURI``, RFC 6068), and its `CN`.
public struct ICalendarAddress: Sendable, Equatable {
    /// The one mail address the URI names; nil when it is no `mailto:` URI, does not read, or
    /// names none or several (``problem`` says which).
    public var email: String?
    /// Why ``email`` is nil; nil when the URI names exactly one address.
    public var problem: OrganizerProblem?
    /// The URI as written.
    public var uri: String
    public var commonName: String?

    public init(uri: String, commonName: String?) {
        self.uri = uri
        self.commonName = commonName
        switch MailtoURI.read(uri) {
        case .refused(.notMailto): problem = .notMailto
        case .refused(let reason): problem = .malformed(reason)
        case .uri(let mailto):
            switch mailto.singleAddress {
            case .one(let address): email = address
            case .notOne(let reason): problem = reason
            }
        }
    }

    /// The domain of ``email`` (after its `@`), lowercased; nil without one.
    public var domain: String? {
        guard let email, let at = email.lastIndex(of: "@") else { return nil }
        let domain = email[email.index(after: at)...].lowercased()
        return domain.isEmpty ? nil : domain
    }
}

/// One VEVENT (RFC 5545 §3.6.1) as a booking reads it: one occurrence, keyed by UID and
/// RECURRENCE-ID, ordered by SEQUENCE and DTSTAMP.
public struct ICalendarEvent: Sendable, Equatable {
    public var uid: String
    /// RECURRENCE-ID: which instance of a series this VEVENT overrides.
    public var recurrenceID: ICalendarTime?
    /// SEQUENCE (RFC 5545 §3.8.7.4), 0 when absent.
    public var sequence: Int
    /// DTSTAMP (RFC 5545 §3.8.7.2): when the object was made, as Unix seconds.
    public var stamp: Int64?
    public var summary: String?
    public var description: String?
    public var location: String?
    public var url: String?
    /// STATUS (RFC 5545 §3.8.1.11) upper-cased: `CONFIRMED`, `TENTATIVE`, `CANCELLED`.
    public var status: String?
    public var organizer: ICalendarAddress?
    /// How many ORGANIZER properties the VEVENT has; RFC 5545 §3.6.1 allows one, and
    /// ``organizer`` is the first.
    public var organizerCount: Int
    /// DTSTART; nil only for an event being cancelled, which RFC 5546 §3.2.5 lets go without.
    public var start: ICalendarTime?
    /// DTEND, else DTSTART plus DURATION, else (RFC 5545 §3.6.1) the next day for a DATE
    /// start and the start itself for a DATE-TIME; nil without a start.
    public var end: ICalendarTime?
    /// Whether the event has RRULE or RDATE: ``start`` is its first instance.
    public var isRecurring: Bool
    /// The JSON texts of its `X-APPLE-STRUCTURED-DATA` and `STRUCTURED-DATA` properties.
    public var structuredData: [String]
    /// The physical line of its BEGIN:VEVENT.
    public var line: Int

    /// Why the ORGANIZER names no single mail address: a second ORGANIZER, or its URI
    /// (``ICalendarAddress/problem``); nil when it names one, or when there is none.
    public var organizerProblem: OrganizerProblem? {
        if organizerCount > 1 { return .severalOrganizers(organizerCount) }
        return organizer?.problem
    }

    public init(
        uid: String, recurrenceID: ICalendarTime? = nil, sequence: Int = 0, stamp: Int64? = nil, summary: String? = nil,
        description: String? = nil, location: String? = nil, url: String? = nil, status: String? = nil,
        organizer: ICalendarAddress? = nil, organizerCount: Int? = nil, start: ICalendarTime?, end: ICalendarTime?, isRecurring: Bool = false,
        structuredData: [String] = [], line: Int = 0
    ) {
        self.uid = uid
        self.recurrenceID = recurrenceID
        self.sequence = sequence
        self.stamp = stamp
        self.summary = summary
        self.description = description
        self.location = location
        self.url = url
        self.status = status
        self.organizer = organizer
        self.organizerCount = organizerCount ?? (organizer == nil ? 0 : 1)
        self.start = start
        self.end = end
        self.isRecurring = isRecurring
        self.structuredData = structuredData
        self.line = line
    }
}

/// The events of one calendar object, with its iTIP method (RFC 5546 §1.4) and the notes of
/// every step.
public struct CalendarObject: Sendable {
    /// METHOD upper-cased (`PUBLISH`, `REQUEST`, `CANCEL`); nil when the object has none.
    public var method: String?
    public var events: [ICalendarEvent]
    public var diagnostics: [ICalendarDiagnostic]

    public init(method: String?, events: [ICalendarEvent], diagnostics: [ICalendarDiagnostic]) {
        self.method = method
        self.events = events
        self.diagnostics = diagnostics
    }

    /// Whether the object cancels its events (`METHOD:CANCEL`, RFC 5546 §3.2.5).
    public var isCancel: Bool { method == "CANCEL" }
}
