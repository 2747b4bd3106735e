/// Something the reader dropped, repaired or doubts: a stable code and a sentence saying why.
public struct ReservationDiagnostic: Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable, Equatable, CaseIterable {
        /// A date-time without an offset: kept as wall-clock (floating) time.
        case missingTimeZone = "missing-timezone"
        /// The reservation ended before `now`; dropped.
        case ended
        /// A second item with the same container and item reference as one already seen in the
        /// message; dropped.
        case duplicateItemReference = "duplicate-item-reference"
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
        case invalidValue = "invalid-value"
        /// More items or deeper nesting than the reader accepts; the rest is ignored.
        case limitExceeded = "limit-exceeded"
    }

    public var code: Code
    public var message: String

    public init(code: Code, message: String) {
        self.code = code
        self.message = message
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
