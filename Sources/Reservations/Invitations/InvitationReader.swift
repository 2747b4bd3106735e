public import ICalendarReading
public import JSON
import ReservoirBase
import TimeZones

/// Makes bookings of a calendar object's events (RFC 5545 VEVENTs in a `text/calendar` part or
/// an `.ics` attachment): each event is an `EventReservation` keyed by its UID (the booking)
/// and its RECURRENCE-ID (the item, `1` without one), with its iTIP evidence
/// (``InvitationEvidence``) for the store's ordering and the ORGANIZER check.
///
/// - `METHOD:CANCEL` or `STATUS:CANCELLED` cancels (RFC 5546 §3.2.5); `STATUS:TENTATIVE` is a
///   pending booking; anything else is confirmed.
/// - The title is SUMMARY (else `Event`); LOCATION, URL (http and https only) and the
///   ORGANIZER and DESCRIPTION as details.
/// - Ended events are dropped, or kept marked with `keepEnded`, as markup's are.
public enum InvitationReader {
    public static func read(_ object: CalendarObject, now: Int64?, keepEnded: Bool = false) -> ReservationExtraction {
        var reservations: [Reservation] = []
        var diagnostics: [ReservationDiagnostic] = []
        var seen: Set<String> = []
        for event in object.events {
            var reservation = reservation(event, method: object.method, diagnostics: &diagnostics)
            let key = reservation.reservationID + "\u{0}" + reservation.itemID
            guard seen.insert(key).inserted else {
                diagnostics.append(
                    ReservationDiagnostic(
                        code: .duplicateItemReference, message: "event \(event.uid) appears again in the calendar object; the first is kept"))
                continue
            }
            guard
                ReservationReader.keepIfNotEnded(
                    &reservation, now: now, keepEnded: keepEnded, label: "event \(event.uid)", diagnostics: &diagnostics)
            else { continue }
            guard ReservationReader.hasRoom(after: reservations.count, diagnostics: &diagnostics) else { break }
            reservations.append(reservation)
        }
        return ReservationExtraction(reservations: reservations, diagnostics: diagnostics)
    }

    static func reservation(_ event: ICalendarEvent, method: String?, diagnostics: inout [ReservationDiagnostic]) -> Reservation {
        let status: ReservationStatus =
            method == "CANCEL" || event.status == "CANCELLED" ? .cancelled : event.status == "TENTATIVE" ? .pending : .confirmed
        let title = event.summary ?? "Event"
        let start = event.start.map(dateTime)
        let end = event.end.map(dateTime)
        var details: [ReservationDetail] = []
        if let organizer = event.organizer {
            let who = [organizer.commonName, organizer.email.map { "<\($0)>" } ?? organizer.uri].compactMap { $0 }.joined(separator: " ")
            details.append(ReservationDetail(label: "Organizer", value: who))
        }
        if let description = event.description {
            // A detail is one line; the JSON-LD keeps the text as written.
            let line = description.split(whereSeparator: \.isNewline).joined(separator: " ")
            details.append(ReservationDetail(label: "Description", value: line))
        }
        var url: String?
        if let link = event.url {
            if ReservationInterpreter.isWebURL(link) {
                url = link
            } else {
                diagnostics.append(
                    ReservationDiagnostic(
                        code: .unsafeURL, message: "URL of event \(event.uid) is not an http(s) URL; not put in the calendar",
                        detail: ReservationInterpreter.scheme(of: link)))
            }
        }
        let evidence = InvitationEvidence(event, method: method)
        return Reservation(
            category: .event, schemaType: "EventReservation", reservationID: event.uid, itemID: event.recurrenceID?.text ?? "1",
            status: status, title: title, start: start, end: end, location: event.location, details: details, url: url, checkinURL: nil,
            json: json(event, status: status, start: start, end: end, url: url), modifiedTime: nil,
            invitation: evidence)
    }

    /// The value as markup's dates are kept: ISO 8601 text, the instant when placed, the IANA
    /// zone of its TZID as the placement.
    static func dateTime(_ time: ICalendarTime) -> DateTimeValue {
        let l = time.local
        let civil = DateTimeValue.CivilFields(year: l.year, month: l.month, day: l.day, hour: l.hour, minute: l.minute, second: l.second)
        let date = CivilTime.pad(l.year, 4) + "-" + CivilTime.pad(l.month, 2) + "-" + CivilTime.pad(l.day, 2)
        if time.isDate {
            return DateTimeValue(text: date, civil: civil, offset: nil, dateOnly: true, repairs: [], zoneName: nil)
        }
        var text = date + "T" + CivilTime.pad(l.hour, 2) + ":" + CivilTime.pad(l.minute, 2) + ":" + CivilTime.pad(l.second, 2)
        if let offset = time.offsetSeconds { text += offset == 0 && time.zone == nil ? "Z" : offsetText(offset) }
        var value = DateTimeValue(text: text, civil: civil, offset: time.offsetSeconds, dateOnly: false, repairs: [], zoneName: time.zone)
        if let zone = time.zone { value.placement = TimeZonePlacement(zone: zone, evidence: .property("TZID")) }
        return value
    }

    /// The event as schema.org JSON-LD: an `EventReservation` for an `Event`, with the iTIP
    /// evidence as `identifier` values (`UID`, `SEQUENCE`) and DTSTAMP as `modifiedTime`.
    static func json(
        _ event: ICalendarEvent, status: ReservationStatus, start: DateTimeValue?, end: DateTimeValue?, url: String?
    ) -> JSONValue {
        var place: [(String, JSONValue)] = []
        if let location = event.location { place = [("@type", .string("Place")), ("name", .string(location))] }
        var trip: [(String, JSONValue)] = [("@type", .string("Event")), ("name", .string(event.summary ?? "Event"))]
        if let start { trip.append(("startDate", .string(start.text))) }
        if let end { trip.append(("endDate", .string(end.text))) }
        if !place.isEmpty { trip.append(("location", .object(JSONObject(pairs: place)))) }
        if let organizer = event.organizer {
            var who: [(String, JSONValue)] = [("@type", .string("Organization"))]
            if let name = organizer.commonName { who.append(("name", .string(name))) }
            if let email = organizer.email { who.append(("email", .string(email))) }
            trip.append(("organizer", .object(JSONObject(pairs: who))))
        }
        if let description = event.description { trip.append(("description", .string(description))) }
        var reservation: [(String, JSONValue)] = [
            ("@context", .string("https://schema.org")), ("@type", .string("EventReservation")), ("reservationId", .string(event.uid)),
            ("reservationStatus", .string("https://schema.org/" + schemaName(status))),
            (
                "identifier",
                .array([
                    .object(JSONObject(pairs: [("@type", .string("PropertyValue")), ("propertyID", .string("UID")), ("value", .string(event.uid))])),
                    .object(
                        JSONObject(pairs: [
                            ("@type", .string("PropertyValue")), ("propertyID", .string("SEQUENCE")), ("value", .number(Double(event.sequence))),
                        ])),
                ])
            ),
            ("reservationFor", .object(JSONObject(pairs: trip))),
        ]
        if let stamp = event.stamp { reservation.append(("modifiedTime", .string(CivilTime.iso8601UTC(stamp)))) }
        if let url { reservation.append(("url", .string(url))) }
        return .object(JSONObject(pairs: reservation))
    }

    /// `+02:00`, `-03:30`: ISO 8601's offset.
    static func offsetText(_ seconds: Int) -> String {
        let magnitude = abs(seconds)
        return (seconds < 0 ? "-" : "+") + CivilTime.pad(magnitude / 3600, 2) + ":" + CivilTime.pad(magnitude / 60 % 60, 2)
    }

    /// schema.org's ReservationStatusType member of a status.
    static func schemaName(_ status: ReservationStatus) -> String {
        switch status {
        case .confirmed: "ReservationConfirmed"
        case .pending: "ReservationPending"
        case .hold: "ReservationHold"
        case .cancelled: "ReservationCancelled"
        }
    }

    /// The stored JSON-LD of an event as `evidence`'s cancellation leaves it (RFC 5546 §3.2.5:
    /// a cancellation changes the status, not what it does not restate): its
    /// `reservationStatus` cancelled and, for the same UID's event, the cancellation's SEQUENCE
    /// and DTSTAMP as the ordering evidence unless the stored ones are newer. Everything else,
    /// the times, place and title included, stays as stored.
    public static func cancelled(_ json: JSONValue, by evidence: InvitationEvidence) -> JSONValue {
        guard case .object(var object) = json else { return json }
        object["reservationStatus"] = .string("https://schema.org/" + schemaName(.cancelled))
        if let stored = storedEvidence(json), stored.uid == evidence.uid, !evidence.isOlder(than: stored),
            case .array(var identifiers)? = object["identifier"]
        {
            for index in identifiers.indices {
                guard case .object(var value) = identifiers[index], value["propertyID"]?.stringValue == "SEQUENCE" else { continue }
                value["value"] = .number(Double(evidence.sequence))
                identifiers[index] = .object(value)
            }
            object["identifier"] = .array(identifiers)
            object["modifiedTime"] = evidence.stamp.map { .string(CivilTime.iso8601UTC($0)) }
        }
        return .object(object)
    }

    /// The evidence kept in an event's JSON-LD (``json(_:status:start:end:url:)``):
    /// how the store compares a stored version with a new one. Nil for JSON of other sources.
    public static func storedEvidence(_ json: JSONValue) -> InvitationEvidence? {
        guard case .object(let object) = json, object["@type"]?.stringValue == "EventReservation",
            case .array(let identifiers)? = object["identifier"]
        else { return nil }
        var uid: String?
        var sequence: Int?
        for case .object(let value) in identifiers {
            switch value["propertyID"]?.stringValue {
            case "UID": uid = value["value"]?.stringValue
            case "SEQUENCE":
                if case .number(let n)? = value["value"], n >= 0, n < 1e15 { sequence = Int(n) }
            default: continue
            }
        }
        guard let uid, let sequence else { return nil }
        let stamp = object["modifiedTime"]?.stringValue.flatMap { DateTimeValue(parsing: $0)?.epochSeconds }
        return InvitationEvidence(method: nil, uid: uid, sequence: sequence, stamp: stamp, organizer: nil, organizerURI: nil)
    }
}
