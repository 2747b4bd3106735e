import EventStore
import ICalendarReading
import JSON
public import MIME
import Markup
import Reservations
import Trust

// Calendar objects in mail (RFC 6047 iMIP): `text/calendar` parts and `.ics` attachments, read
// as another source of reservations next to the HTML parts' markup.

extension Message {
    /// The leaves of this message's own body that hold a calendar object: `text/calendar`,
    /// `application/ics`, or `application/octet-stream` named `*.ics`, in document order;
    /// parts inside an attached message/rfc822 are not included. Only media types are looked
    /// at: nothing is decoded.
    public var calendarParts: [MIMEPart] {
        var result: [MIMEPart] = []
        func walk(_ part: MIMEPart) {
            if part.contentType.type == "message", part.depth > 0 { return }
            if part.contentType.isMultipart {
                for child in part.children { walk(child) }
            } else if Self.isCalendar(part) {
                result.append(part)
            }
        }
        walk(root)
        return result
    }

    static func isCalendar(_ part: MIMEPart) -> Bool {
        switch part.contentType.mediaType {
        case "text/calendar", "application/ics": return true
        case "application/octet-stream":
            guard let name = part.filename else { return false }
            return name.lowercased().hasSuffix(".ics")
        default: return false
        }
    }

    /// The calendar object of a part as bytes: text/calendar decoded from its charset (RFC 5545
    /// §3.1.4's default is UTF-8), an attachment transfer-decoded only.
    func calendarBytes(_ part: MIMEPart) -> [UInt8] {
        part.contentType.mediaType == "text/calendar" ? Array(text(of: part).utf8) : decodedBody(of: part)
    }
}

extension ReservationPipeline {
    /// The reservations of a message's calendar parts: each VEVENT an `EventReservation`
    /// (``InvitationReader``), or what its structured data (`X-APPLE-STRUCTURED-DATA`, RFC 9073
    /// `STRUCTURED-DATA`) describes as schema.org markup when that yields reservations. An
    /// event told again in another part (iMIP mail often carries the object inline and as an
    /// attachment) is taken once.
    func readCalendars(_ message: Message, parts: [MIMEPart], listing: Bool) -> ReservationReading {
        var reservations: [Reservation] = []
        var diagnostics: [ReportDiagnostic] = []
        var seen: Set<String> = []
        let now = readingClock(listing: listing)
        for part in parts {
            let object = ICalendarReader.read(message.calendarBytes(part))
            diagnostics += object.diagnostics.map { note in
                ReportDiagnostic(
                    .calendar(note.code), message: (note.line.map { "line \($0) of \(part.filename ?? "the calendar part"): " } ?? "") + note.message)
            }
            var plain: [ICalendarEvent] = []
            for event in object.events {
                let described = structuredReservations(event, object: object, now: now, listing: listing, message: message)
                diagnostics += described.diagnostics
                guard !described.reservations.isEmpty else {
                    plain.append(event)
                    continue
                }
                reservations += described.reservations
            }
            let read = InvitationReader.read(
                CalendarObject(method: object.method, events: plain, diagnostics: []), now: now, keepEnded: listing)
            diagnostics += read.diagnostics.map { ReportDiagnostic(.reservations($0.code), message: $0.message, detail: $0.detail) }
            reservations += read.reservations
        }
        reservations = reservations.filter { seen.insert($0.reservationID + "\u{0}" + $0.itemID).inserted }
        return ReservationReading(reservations: reservations, diagnostics: diagnostics)
    }

    /// The reservations the structured data of an event describes, read as markup is, each
    /// carrying the event's evidence (its ORGANIZER is checked as the event's would be).
    private func structuredReservations(
        _ event: ICalendarEvent, object: CalendarObject, now: Int64?, listing: Bool, message: Message
    ) -> ReservationReading {
        guard !event.structuredData.isEmpty else { return ReservationReading(reservations: [], diagnostics: []) }
        var items: [StructuredItem] = []
        var diagnostics: [ReportDiagnostic] = []
        for text in event.structuredData {
            let json = TolerantJSONReader.read(Array(text.utf8))
            diagnostics += json.diagnostics.map { ReportDiagnostic(.markup(MarkupDiagnostic($0).code), message: $0.message) }
            items += json.values.map { StructuredItem(value: $0, source: .jsonLD) }
        }
        let read = ReservationReader.read(items, now: now, messageDate: message.date?.epochSeconds, keepEnded: listing)
        diagnostics += read.diagnostics.map { ReportDiagnostic(.reservations($0.code), message: $0.message, detail: $0.detail) }
        let evidence = InvitationEvidence(event, method: object.method)
        return ReservationReading(
            reservations: read.reservations.map { reservation in
                var reservation = reservation
                reservation.invitation = evidence
                if object.isCancel { reservation.status = .cancelled }
                return reservation
            }, diagnostics: diagnostics)
    }

    /// The ORGANIZER rule on the reservations of a trusted message: an invitation whose
    /// ORGANIZER does not name exactly one address, or one not aligned with the From domain, is
    /// shown but not trusted; one without
    /// ORGANIZER rests on the message's DKIM signature alone, noted once.
    func checkOrganizers(_ items: inout [ReportedReservation], fromDomain: String?, diagnostics: inout [ReportDiagnostic]) {
        guard let fromDomain else { return }
        var notedMissing = false
        for index in items.indices {
            guard let evidence = items[index].reservation.invitation else { continue }
            guard let uri = evidence.organizerURI else {
                if !notedMissing {
                    diagnostics.append(
                        ReportDiagnostic(
                            .calendarNoOrganizer,
                            message: "event \(evidence.uid) has no ORGANIZER; it is trusted on the DKIM signature of \(fromDomain) alone"))
                    notedMissing = true
                }
                continue
            }
            let notOne = evidence.organizerProblem.flatMap(OrganizerAddressReason.init)
            if let refusal = policy.organizerRefusal(organizer: evidence.organizer, organizerURI: uri, notOneAddress: notOne, fromDomain: fromDomain)
            {
                items[index].refusal = refusal
                diagnostics.append(ReportDiagnostic(.untrusted(refusal.code), message: refusal.sentence))
            }
        }
    }

    /// RFC 5546 §2.1.5 before the store's own rules: an invitation whose SEQUENCE (then DTSTAMP)
    /// is lower than the stored version's is older, whatever its message's date; nil when the
    /// store decides.
    func olderInvitation(_ item: ReportedReservation, in store: any EventStore) throws(EventStoreError) -> EventChange? {
        guard let evidence = item.reservation.invitation, let stored = try store.event(item.event.key) else { return nil }
        let json = TolerantJSONReader.read(Array(stored.event.reservationJSON.utf8))
        guard let value = json.values.first, let previous = InvitationReader.storedEvidence(value),
            evidence.isOlder(than: previous)
        else { return nil }
        return .olderThanStored(stored)
    }
}

extension ReservationPipeline {
    /// Applies an invitation's cancellation (`METHOD:CANCEL`, or `STATUS:CANCELLED`). RFC 5546
    /// §3.2.5: a CANCEL cancels, it is not an update, and it may carry no more than UID,
    /// DTSTAMP, ORGANIZER and SEQUENCE. So a stored event keeps its title, times, place and
    /// details, and takes the cancelled status and the cancellation's ordering evidence
    /// (``InvitationReader/cancelled(_:by:)``), decided inside the store's transaction.
    ///
    /// Without RECURRENCE-ID it cancels every instance of the UID, the overrides a
    /// RECURRENCE-ID moved included; with one, that instance alone. A cancellation applies only
    /// to what its owner booked: when the owner holds none of the events it names, it is kept
    /// as ``unbookedCancellation(_:)`` (docs/SECURITY.md, "Ownership of a booking") and
    /// `booked` is false.
    func applyCancellation(
        _ item: ReportedReservation, evidence: InvitationEvidence, from provenance: MessageProvenance, in store: any EventStore
    ) throws(EventStoreError) -> (change: EventChange, instances: [EventChange], booked: Bool) {
        let read = item.event
        func cancel(_ stored: StoredEvent?) -> CalendarEvent {
            // Nothing of its owner's to cancel: kept without times, in no calendar, so that the
            // invitation it cancels, arriving late, is older.
            guard let stored else { return Self.unbookedCancellation(read) }
            var event = stored.event
            event.status = .cancelled
            if let json = TolerantJSONReader.read(Array(stored.event.reservationJSON.utf8)).values.first {
                event.reservationJSON = InvitationReader.cancelled(json, by: evidence).serialized()
            }
            return event
        }
        var booked = false
        let change = try store.apply(read.key, from: provenance) { stored in
            booked = stored != nil
            return cancel(stored)
        }
        // Only an event keyed by its UID is a series; structured data is keyed by its booking.
        guard evidence.recurrenceID == nil, read.key.container == evidence.uid else { return (change, [], booked) }
        var instances: [EventChange] = []
        for instance in try store.events(inBooking: evidence.uid, ownedBy: provenance.owner) where instance.event.key.item != read.key.item {
            instances.append(try store.apply(instance.event.key, from: provenance, revising: cancel))
        }
        return (change, instances, booked || !instances.isEmpty)
    }

    /// A cancellation of a booking its owner never stored, as the store keeps it: cancelled,
    /// without start, end or place, so that it reaches no calendar, feed or page (an event
    /// without a start is never exported, RFC 5545 §3.6.1) — not a cancelled twin beside
    /// another owner's booking of that number — while its ordering evidence (an invitation's
    /// SEQUENCE and DTSTAMP, the message's signed date) keeps a late older version out.
    static func unbookedCancellation(_ event: CalendarEvent) -> CalendarEvent {
        var event = event
        event.status = .cancelled
        event.start = nil
        event.end = nil
        event.location = nil
        return event
    }
}

extension OrganizerAddressReason {
    /// The trust rule's reason for an ORGANIZER that names no single address; nil for a URI
    /// that is no `mailto:` URI, which the alignment rule refuses as naming no domain.
    init?(_ problem: OrganizerProblem) {
        switch problem {
        case .severalOrganizers: self = .severalOrganizers
        case .notMailto: return nil
        case .malformed: self = .malformed
        case .noAddress: self = .noAddress
        case .severalAddresses: self = .severalAddresses
        case .fragment: self = .fragment
        }
    }
}
