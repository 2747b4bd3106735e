public import EventStore
import JSON
import Markup
public import Reservations
import ReservoirBase

// The one place a schema.org reservation becomes a calendar event: the store keeps events and
// knows nothing of schema.org, the reservation reader knows nothing of calendars.

extension EventTime {
    /// The time as the reservation wrote it, with the zone it was read in when one was found,
    /// or, for a time with its own offset, the zone of its place that shows that offset
    /// (``DateTimeValue/agreeingZone``); a date without time becomes midnight, floating.
    public init(_ value: DateTimeValue) {
        self.init(
            text: value.text, local: value.local, offsetSeconds: value.offsetSeconds, epochSeconds: value.epochSeconds,
            zone: value.placement?.zone ?? value.agreeingZone)
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
    /// The calendar event of one reservation item: keyed by (reservationID, itemID) — the owner
    /// is set when it is recorded, from the proof that vouched for it — titled
    /// as Apple's event suggestions title it (``eventTitle(_:)``), details as `Label: value`
    /// lines in the notes (a check-in link as `Check-in URL: …`), the normalized
    /// JSON-LD kept for output.
    public init(_ reservation: Reservation) {
        self.init(
            key: EventKey(owner: .unproven, container: reservation.reservationID, item: reservation.itemID),
            category: EventCategory(reservation.category),
            title: Self.eventTitle(reservation),
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

extension CalendarEvent {
    /// The title a calendar shows, from the reservation's details only (never its prose), as
    /// Siri Event Suggestions titles them: `Reservation: EPIC Steak`, `Flight: UA 123 from SFO
    /// to EWR`, `Train: EC 15 from Zürich HB to Milano Centrale`, `Hotel: Harborview Hotel
    /// Boston`, `Car rental: …`, `Taxi: …`, `Bus: …`, `Boat: …`; an event ticket is titled by
    /// the event's name, a movie ticket by the film's. The same reservation always gives the
    /// same title, so replaying a message changes nothing.
    public static func eventTitle(_ reservation: Reservation) -> String {
        let json: JSONObject? = if case .object(let o) = reservation.json { o } else { nil }
        let trip: JSONObject? = if case .object(let o)? = json?["reservationFor"] { o } else { nil }
        switch reservation.category {
        case .food: return "Reservation: \(reservation.title)"
        case .lodging: return "Hotel: \(reservation.title)"
        case .rentalCar:
            let company = name(trip?["rentalCompany"]) ?? name(json?["provider"]) ?? name(trip?["brand"])
            let pickup = name(json?["pickupLocation"])
            return placeTitle(reservation, company: company, place: pickup, preposition: "at")
        case .taxi:
            let company = name(json?["provider"]) ?? name(trip?["provider"])
            return placeTitle(reservation, company: company, place: name(json?["pickupLocation"]), preposition: "from")
        case .event:
            // A movie ticket is titled by the film (schema.org ScreeningEvent `workPresented`).
            if case .object(let work)? = trip?["workPresented"], let film = text(work["name"]) { return film }
            return reservation.title
        case .flight:
            let airline: JSONObject? = if case .object(let o)? = trip?["airline"] { o } else { nil }
            let code = text(airline?["iataCode"])
            var designator = text(trip?["flightNumber"])
            if let number = designator, let code {
                designator = number.hasPrefix(code) ? "\(code) \(number.dropFirst(code.count).drop(while: \.isWhitespace))" : "\(code) \(number)"
            }
            return tripTitle(
                reservation, designator: designator ?? text(airline?["name"]),
                from: place(trip?["departureAirport"]), to: place(trip?["arrivalAirport"]))
        case .train, .bus, .boat:
            let words: (number: String, name: String, from: String, to: String) =
                switch reservation.category {
                case .train: ("trainNumber", "trainName", "departureStation", "arrivalStation")
                case .bus: ("busNumber", "busName", "departureBusStop", "arrivalBusStop")
                default: ("boatNumber", "boatName", "departureBoatTerminal", "arrivalBoatTerminal")
                }
            let company = name(trip?["provider"]) ?? name(trip?["trainCompany"]) ?? name(json?["provider"])
            return tripTitle(
                reservation, designator: text(trip?[words.number]) ?? text(trip?[words.name]) ?? company,
                from: place(trip?[words.from]), to: place(trip?[words.to]))
        }
    }

    /// `Taxi: Yellow Cab from Harborview Hotel Boston`, `Car rental: Hertz at SFO`; the
    /// reservation's own title after the category word when the markup names neither.
    static func placeTitle(_ reservation: Reservation, company: String?, place: String?, preposition: String) -> String {
        let word = reservation.category.displayName
        switch (company, place) {
        case (let company?, let place?): return "\(word): \(company) \(preposition) \(place)"
        case (let company?, nil): return "\(word): \(company)"
        case (nil, let place?): return "\(word): \(preposition) \(place)"
        case (nil, nil): return "\(word): \(reservation.title)"
        }
    }

    /// The `name` of an object (an Organization, a Place), or the text itself.
    static func name(_ value: JSONValue?) -> String? {
        if case .object(let object)? = value { return text(object["name"]) }
        return text(value)
    }

    /// `Flight: UA 123 from SFO to EWR`; the reservation's own title after the category word
    /// when the markup names neither the vehicle nor both ends.
    static func tripTitle(_ reservation: Reservation, designator: String?, from: String?, to: String?) -> String {
        let word = reservation.category.displayName
        guard let designator, from != nil || to != nil else { return "\(word): \(reservation.title)" }
        var title = "\(word): \(designator)"
        if let from { title += " from \(from)" }
        if let to { title += " to \(to)" }
        return title
    }

    /// A place as a title names it: its IATA code, else its name, else the text itself.
    static func place(_ value: JSONValue?) -> String? {
        if case .object(let place)? = value { return text(place["iataCode"]) ?? text(place["name"]) }
        return text(value)
    }

    /// A non-empty string with its spaces trimmed, a number as written; nil otherwise.
    static func text(_ value: JSONValue?) -> String? {
        let string: String? =
            switch value {
            case .string(let s)?: s
            case .number(let n)?: n == n.rounded() && abs(n) < 1e15 ? String(Int64(n)) : String(n)
            default: nil
            }
        guard let string else { return nil }
        let trimmed = string.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed()
        return trimmed.isEmpty ? nil : String(trimmed)
    }
}
