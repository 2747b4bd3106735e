public import EventStore
import JSON
import Markup
public import Reservations

// The one place a schema.org reservation becomes a calendar event: the store keeps events and
// knows nothing of schema.org, the reservation reader knows nothing of calendars.

extension EventTime {
    /// The time as the reservation wrote it; a date without time becomes midnight, floating.
    public init(_ value: DateTimeValue) {
        self.init(text: value.text, local: value.local, offsetSeconds: value.offsetSeconds, epochSeconds: value.epochSeconds)
    }
}

extension EventStatus {
    /// RFC 5545 §3.8.1.11 has no "on hold": pending and held bookings are TENTATIVE.
    public init(_ status: ReservationStatus) {
        switch status {
        case .confirmed: self = .confirmed
        case .pending, .hold: self = .tentative
        case .cancelled: self = .cancelled
        }
    }
}

extension EventCategory {
    /// One event category per reservation category, stored under the same word.
    public init(_ category: ReservationCategory) {
        switch category {
        case .food: self = .food
        case .lodging: self = .lodging
        case .rentalCar: self = .rentalCar
        case .flight: self = .flight
        case .train: self = .train
        case .bus: self = .bus
        case .boat: self = .boat
        case .event: self = .event
        case .taxi: self = .taxi
        }
    }
}

extension CalendarEvent {
    /// The calendar event of one reservation item: keyed by (reservationID, itemID), details
    /// as `Label: value` lines in the notes, the normalized JSON-LD kept for output.
    public init(_ reservation: Reservation) {
        self.init(
            key: EventKey(container: reservation.reservationID, item: reservation.itemID),
            category: EventCategory(reservation.category),
            title: reservation.title,
            start: reservation.start.map(EventTime.init),
            end: reservation.end.map(EventTime.init),
            location: reservation.location,
            notes: reservation.details.map { "\($0.label): \($0.value)" }.joined(separator: "\n"),
            url: reservation.url ?? reservation.checkinURL,
            status: EventStatus(reservation.status),
            checkinOpens: Self.checkinOpens(reservation),
            checkinCloses: reservation.checkinURL == nil ? nil : reservation.start?.epochSeconds,
            reservationJSON: reservation.json.serialized())
    }

    /// Online check-in opens at the flight's `webCheckinTime` (schema.org Flight) when the
    /// reservation has a check-in link and the time has a UTC offset; it closes, at the
    /// latest, at departure.
    static func checkinOpens(_ reservation: Reservation) -> Int64? {
        guard reservation.checkinURL != nil,
            case .object(let json) = reservation.json,
            case .object(let trip)? = json["reservationFor"],
            let text = trip["webCheckinTime"]?.stringValue
        else { return nil }
        return DateTimeValue(parsing: text)?.epochSeconds
    }
}
