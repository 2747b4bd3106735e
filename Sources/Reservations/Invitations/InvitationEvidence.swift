public import ICalendarReading

/// What an event read from a calendar object (RFC 5545) says about where it stands among the
/// versions of its booking and who sent it: the iTIP ordering evidence (RFC 5546 §2.1.5) and
/// the ORGANIZER, which the trust policy checks against the From domain.
public struct InvitationEvidence: Sendable, Equatable {
    /// The iTIP method of the object (`PUBLISH`, `REQUEST`, `CANCEL`); nil when it has none.
    public var method: String?
    public var uid: String
    /// SEQUENCE: a higher one is a newer version of the event.
    public var sequence: Int
    /// DTSTAMP as Unix seconds: among equal SEQUENCEs, the later one is newer.
    public var stamp: Int64?
    /// The one mail address the ORGANIZER's `mailto:` URI names (RFC 6068); nil when the event
    /// has no ORGANIZER or it names no single address (``organizerProblem``).
    public var organizer: String?
    /// The ORGANIZER's URI as written (a non-`mailto:` one included); nil without ORGANIZER.
    public var organizerURI: String?
    /// Why the ORGANIZER names no single mail address (two ORGANIZERs, several addresses, a
    /// URI that does not read); nil when it names one or there is none.
    public var organizerProblem: OrganizerProblem?
    /// RECURRENCE-ID as written: the one instance of a series this event is about; nil for
    /// the event as a whole, every instance of a recurring one (RFC 5546 §3.2.5).
    public var recurrenceID: String?

    public init(
        method: String?, uid: String, sequence: Int, stamp: Int64?, organizer: String?, organizerURI: String?,
        organizerProblem: OrganizerProblem? = nil, recurrenceID: String? = nil
    ) {
        self.method = method
        self.uid = uid
        self.sequence = sequence
        self.stamp = stamp
        self.organizer = organizer
        self.organizerURI = organizerURI
        self.organizerProblem = organizerProblem
        self.recurrenceID = recurrenceID
    }

    /// The evidence of `event` in an object whose METHOD is `method`.
    public init(_ event: ICalendarEvent, method: String?) {
        self.init(
            method: method, uid: event.uid, sequence: event.sequence, stamp: event.stamp, organizer: event.organizer?.email,
            organizerURI: event.organizer?.uri, organizerProblem: event.organizerProblem, recurrenceID: event.recurrenceID?.text)
    }

    /// Whether the event names an ORGANIZER at all.
    public var hasOrganizer: Bool { organizerURI != nil }

    /// The domain of ``organizer``, lowercased.
    public var organizerDomain: String? {
        guard let organizer, let at = organizer.lastIndex(of: "@") else { return nil }
        let domain = organizer[organizer.index(after: at)...].lowercased()
        return domain.isEmpty ? nil : domain
    }

    /// RFC 5546 §2.1.5: whether this version is older than `other` — a lower SEQUENCE, or the
    /// same SEQUENCE with an earlier DTSTAMP.
    public func isOlder(than other: Self) -> Bool {
        if sequence != other.sequence { return sequence < other.sequence }
        guard let stamp, let otherStamp = other.stamp else { return false }
        return stamp < otherStamp
    }
}
