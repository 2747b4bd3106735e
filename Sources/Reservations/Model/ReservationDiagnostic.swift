/// Something the reader dropped, repaired or doubts: a stable code and a sentence saying why.
public struct ReservationDiagnostic: Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable, Equatable, CaseIterable {
        /// A date-time without an offset and without evidence of its zone: kept as wall-clock
        /// (floating) time.
        case missingTimeZone = "missing-timezone"
        /// The reservation ended before `now`: dropped where reservations are stored, listed
        /// (marked ``ReservationMark/ended``) by `extract`.
        case ended
        /// A second item with the same container and item reference as one already seen in the
        /// message; dropped.
        case duplicateItemReference = "duplicate-item-reference"
        /// One item described both in JSON-LD and in Microdata: read as one, the JSON-LD
        /// preferred, gaps filled from the Microdata; detail: the properties where they disagree.
        case descriptionsMerged = "descriptions-merged"
        /// An item that is not a reservation kind we know; ignored.
        case unsupportedType = "unsupported-type"
        /// A property a calendar event needs is absent (start, `reservationFor`); item dropped.
        case missingRequiredProperty = "missing-required-property"
        /// Neither `reservationId` nor `reservationNumber`: a key is derived from title and date.
        case missingReservationID = "missing-reservation-id"
        /// No `reservationStatus`: read as confirmed, as Apple and Google do.
        case missingStatus = "missing-status"
        /// A property was recovered from the wrong place (Apple's `startDate` on the restaurant).
        case repaired
        /// A property is present but unreadable (a date that is not ISO 8601, an unknown status).
        /// For a date, the detail is the ``DateTimeRefusal``.
        case invalidValue = "invalid-value"
        /// A date written in a form other than ISO 8601 was read; the detail lists the
        /// ``DateTimeRepair``s, the evidence for a day and month order among them.
        case dateRepaired = "date-repaired"
        /// A date whose day and month order nothing in the message decides: left unknown, and
        /// an item without a start is listed by `extract` but never becomes an event.
        case dateAmbiguous = "date-ambiguous"
        /// A time followed by an IANA zone name (detail) that is not applied: an offset beside
        /// it is kept, or the system has no zone by that name.
        case timeZoneName = "timezone-name"
        /// A time without offset read in the zone written after it (detail: the zone).
        case timeZoneFromName = "timezone-from-name"
        /// A time without offset read in the zone a `timeZone` property of its place names.
        case timeZoneFromProperty = "timezone-from-property"
        /// A time without offset read in the zone of its airport's IATA code (detail: the zone).
        case timeZoneFromAirport = "timezone-from-airport"
        /// A time without offset read in the zone of the airports near its place's `geo` point
        /// (detail: the zone).
        case timeZoneFromCoordinates = "timezone-from-coordinates"
        /// A time without offset read in its place's country's zone, the one it has or the first of several that agree then (detail: the zone).
        case timeZoneFromCountry = "timezone-from-country"
        /// A wall time the zone's clocks skip (spring forward): read past the gap, RFC 5545 §3.3.5.
        case timeInDSTGap = "time-in-dst-gap"
        /// A wall time the zone's clocks show twice (fall back): the first is taken, RFC 5545 §3.3.5.
        case timeAmbiguous = "time-ambiguous"
        /// A written offset another than the airport's zone shows at that instant; the offset is kept.
        case offsetDisagreesWithZone = "offset-disagrees-with-zone"
        /// A time followed by a zone abbreviation (detail) several zones share: floating time.
        case timeZoneAbbreviation = "timezone-abbreviation"
        /// A link that is not an http(s) URL (`javascript:`, `data:`; detail: the scheme) in
        /// `potentialAction`, `checkinUrl`, `modifyReservationUrl`, `url` or a ticket: not put in
        /// the calendar.
        case unsafeURL = "unsafe-url"
        /// More items or deeper nesting than the reader accepts; the rest is ignored.
        case limitExceeded = "limit-exceeded"
    }

    public var code: Code
    public var message: String
    /// A stable word for programs beside the code: the repairs of `date-repaired`, the refusal
    /// of a date's `invalid-value`, the zone of `timezone-name`; nil when the code says it all.
    public var detail: String?

    public init(code: Code, message: String, detail: String? = nil) {
        self.code = code
        self.message = message
        self.detail = detail
    }

    public var description: String { "\(code.rawValue): \(message)" }
}

/// What the reservations stage makes of one message's structured items.
public struct ReservationExtraction: Sendable {
    public var reservations: [Reservation]
    public var diagnostics: [ReservationDiagnostic]

    public init(reservations: [Reservation] = [], diagnostics: [ReservationDiagnostic] = []) {
        self.reservations = reservations
        self.diagnostics = diagnostics
    }
}
