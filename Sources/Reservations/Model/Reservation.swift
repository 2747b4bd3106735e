public import JSON
import Markup

/// One line of what a booking says beyond title, time and place, for people
/// (`Party size: 2`, `Seat: 14A`).
public struct ReservationDetail: Sendable, Equatable, CustomStringConvertible {
    public var label: String
    public var value: String
    /// The schema.org property the value was read from (`partySize`, `airplaneSeat`, a
    /// `potentialAction` type): the stable key programs read (`--json`'s `details`).
    public var property: String

    public init(label: String, value: String, property: String? = nil) {
        self.label = label
        self.value = value
        self.property = property ?? Self.properties[label] ?? label
    }

    /// The property each label shows where one label always reads one property; a reader whose
    /// label reads another (a flight's `Seat` is `airplaneSeat`) names it.
    static let properties: [String: String] = [
        "Guest": "underName", "Guests": "underName", "Booking reference": "reservationNumber",
        "Ticket number": "ticketNumber", "Ticket code": "ticketToken", "Seat": "ticketedSeat", "Ticket holder": "ticketHolder",
        "Total price": "totalPrice", "Frequent flyer": "programMembershipUsed", "Membership": "programMembershipUsed",
        "Check-in URL": "checkinUrl", "Manage booking": "modifyReservationUrl", "Confirm booking": "ConfirmAction",
        "Cancel booking": "CancelAction", "View": "ViewAction", "Movie": "workPresented", "Performer": "performer",
        "Seats": "numSeats", "Class": "airplaneSeatClass", "Boarding group": "boardingGroup", "Terminal": "departureTerminal",
        "Gate": "departureGate", "Boarding time": "boardingTime", "Operated by": "operatedBy", "Party size": "partySize",
        "Car": "reservationFor", "Drop-off": "dropoffLocation", "Room": "lodgingUnitDescription", "Phone": "telephone",
        "Platform": "departurePlatform", "Arrival": "arrivalAirport",
    ]

    public var description: String { "\(label): \(value)" }
}

/// One reservation item as a calendar shows it: a table, a stay, one flight leg.
public struct Reservation: Sendable, Equatable {
    public var category: ReservationCategory
    /// The schema.org type as read, local name (`FlightReservation`).
    public var schemaType: String
    /// The booking (container): `reservationId`, else `reservationNumber`, else `@id`, else a
    /// key derived from the content (see ``ReservationReader``).
    public var reservationID: String
    /// The part of the booking: a per-leg key for trips (`C7412-SFO-2031-06-03`), `1` otherwise.
    public var itemID: String
    public var status: ReservationStatus
    /// `EPIC Steak`, `Cascadia Air C7 412 SFO → SEA`.
    public var title: String
    public var start: DateTimeValue?
    public var end: DateTimeValue?
    /// Place name and postal address on one line; the departure place for trips.
    public var location: String?
    public var details: [ReservationDetail]
    /// Where to manage the booking (`modifyReservationUrl`, else `url`).
    public var url: String?
    /// Online check-in (`checkinUrl`).
    public var checkinURL: String?
    /// The reservation as normalized schema.org JSON-LD (`@context` https://schema.org, bare
    /// `@type` names, repairs applied).
    public var json: JSONValue
    /// Why the reservation is listed but not made an event; empty for one that can be stored.
    public var marks: [ReservationMark]
    /// When the sender last changed the booking (`modifiedTime`); nil when absent or unreadable.
    public var modifiedTime: DateTimeValue?
    /// For an event read from a calendar object (``InvitationReader``): its iTIP ordering
    /// evidence and ORGANIZER; nil for markup.
    public var invitation: InvitationEvidence?

    public init(
        category: ReservationCategory, schemaType: String, reservationID: String, itemID: String,
        status: ReservationStatus, title: String, start: DateTimeValue?, end: DateTimeValue?,
        location: String?, details: [ReservationDetail], url: String?, checkinURL: String?, json: JSONValue,
        marks: [ReservationMark] = [], modifiedTime: DateTimeValue? = nil, invitation: InvitationEvidence? = nil
    ) {
        self.category = category
        self.schemaType = schemaType
        self.reservationID = reservationID
        self.itemID = itemID
        self.status = status
        self.title = title
        self.start = start
        self.end = end
        self.location = location
        self.details = details
        self.url = url
        self.checkinURL = checkinURL
        self.json = json
        self.marks = marks
        self.modifiedTime = modifiedTime
        self.invitation = invitation
    }
}

/// Why `extract` lists a reservation that is not stored.
public enum ReservationMark: String, Sendable, Equatable {
    /// It ended (or, without an end, started) before the clock.
    case ended
    /// Its start's day and month order could not be decided: no date, so no event.
    case dateAmbiguous = "date-ambiguous"
    /// A boarding pass's day of the year placed in a year by the clock alone: nothing the
    /// issuer signed dates it, so the year is a guess that a pass mailed again later would move.
    case yearUnsigned = "year-unsigned"
}
