import JSON
import Markup

/// An item found to be a reservation, with the category its type says.
struct ReservationCandidate {
    var node: SchemaNode
    var category: ReservationCategory
    /// Local name of the type that made it a reservation (`FlightReservation`, `Reservation`).
    var schemaType: String
}

/// What a category reader makes of the category-specific properties.
struct ReservationDraft {
    var title: String
    var start: DateTimeValue?
    var end: DateTimeValue?
    var location: String?
    var details: [ReservationDetail] = []
    /// The part of the booking; `1` for single-item categories.
    var itemID = "1"

    mutating func add(_ label: String, _ value: String?) {
        guard let value, !value.isEmpty else { return }
        details.append(ReservationDetail(label: label, value: value))
    }
}

/// Turns one reservation item into a ``Reservation``: the category reader for title, times,
/// place and details, then what every reservation has (booking number, status, links, guest).
/// Records a diagnostic for every repair and every reason to drop the item.
struct ReservationInterpreter {
    let candidate: ReservationCandidate
    /// The item as it will be written out, with repairs applied.
    var repaired: JSONObject
    var diagnostics: [ReservationDiagnostic] = []

    init(_ candidate: ReservationCandidate) {
        self.candidate = candidate
        self.repaired = candidate.node.object
    }

    var node: SchemaNode { candidate.node }
    var category: ReservationCategory { candidate.category }

    /// How messages name this item: `FlightReservation K7Q2PX`.
    var label: String {
        let number = node.text("reservationId", "reservationNumber")
        return number.map { "\(candidate.schemaType) \($0)" } ?? candidate.schemaType
    }

    mutating func note(_ code: ReservationDiagnostic.Code, _ message: String) {
        diagnostics.append(ReservationDiagnostic(code: code, message: "\(label): \(message)"))
    }

    /// The reservation, or nil when it lacks what a calendar event needs (see diagnostics).
    mutating func interpret() -> Reservation? {
        let draft: ReservationDraft?
        switch category {
        case .food: draft = readFood()
        case .lodging: draft = readLodging()
        case .rentalCar: draft = readRentalCar()
        case .flight: draft = readFlight()
        case .train, .bus, .boat: draft = readGroundTrip()
        case .event: draft = readEvent()
        case .taxi: draft = readTaxi()
        }
        guard var draft else { return nil }

        let status = readStatus()
        if draft.start == nil {
            // A cancellation only needs the key to cancel what is stored; anything else
            // without a start cannot be placed in a calendar.
            guard status == .cancelled else {
                note(.missingRequiredProperty, "no start time (\(startProperty)); a calendar event needs one, item dropped")
                return nil
            }
        }

        if let start = draft.start, let end = draft.end, Self.instant(end, isBefore: start) {
            note(.invalidValue, "end \(end.text) is before start \(start.text); end ignored")
            draft.end = nil
        }

        addCommonDetails(to: &draft)
        let reservationID = readReservationID(draft)
        let url = node.text("modifyReservationUrl") ?? actionTarget("EditAction") ?? node.text("url")
        let checkinURL = node.text("checkinUrl", "checkInUrl") ?? actionTarget("CheckInAction")

        return Reservation(
            category: category, schemaType: candidate.schemaType, reservationID: reservationID,
            itemID: draft.itemID, status: status, title: draft.title, start: draft.start, end: draft.end,
            location: draft.location, details: draft.details, url: url, checkinURL: checkinURL,
            json: NormalizedJSON.reservation(repaired, status: status))
    }

    /// True when both times are instants, or both wall-clock, and `a` is earlier.
    static func instant(_ a: DateTimeValue, isBefore b: DateTimeValue) -> Bool {
        switch (a.epochSeconds, b.epochSeconds) {
        case (let x?, let y?): x < y
        case (nil, nil): a.localEpochSeconds < b.localEpochSeconds
        default: false
        }
    }

    /// Where the start time belongs, for messages.
    var startProperty: String {
        switch category {
        case .food: "startTime"
        case .lodging: "checkinDate"
        case .rentalCar, .taxi: "pickupTime"
        case .flight, .train, .bus, .boat: "reservationFor.departureTime"
        case .event: "reservationFor.startDate"
        }
    }

    // MARK: - Common properties

    /// `reservationStatus`; missing means confirmed (Google: confirmation mails carry
    /// `ReservationConfirmed`; Apple treats a reservation without status as confirmed).
    mutating func readStatus() -> ReservationStatus {
        guard let raw = node.text("reservationStatus") else {
            note(.missingStatus, "no reservationStatus; read as confirmed (add https://schema.org/ReservationConfirmed)")
            return .confirmed
        }
        if let status = SchemaVocabulary.status(raw) { return status }
        note(.invalidValue, "reservationStatus \"\(raw)\" is not a ReservationStatusType; read as confirmed")
        return .confirmed
    }

    /// `reservationId` (Apple's required key), else `reservationNumber` (Google's), else the
    /// item's `@id`. Without any, a key derived from category, title and start date keeps one
    /// booking on one event across identical resends; it changes when those change.
    mutating func readReservationID(_ draft: ReservationDraft) -> String {
        if let id = node.text("reservationId", "reservationNumber", "@id") { return id }
        let basis = [category.rawValue, draft.title, draft.start?.date ?? ""].joined(separator: "\u{1F}")
        let derived = "derived-" + Self.fnv1a(basis)
        note(
            .missingReservationID,
            "no reservationId or reservationNumber; using \(derived) from the title and date, so a changed title or date will look like a new booking"
        )
        return derived
    }

    /// The `target` of a Gmail action in `potentialAction` (`EditAction`, `CheckInAction`):
    /// a URL, or an EntryPoint with `urlTemplate` / `url`.
    func actionTarget(_ type: String) -> String? {
        for action in node.nodes("potentialAction") where action.types.contains(type) {
            if let url = action.node("target")?.text("urlTemplate", "url") ?? action.text("target") { return url }
        }
        return nil
    }

    /// FNV-1a 64-bit, hex: a stable short digest (not for security).
    static func fnv1a(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// Guest, booking reference, tickets, price, check-in link: what every reservation may carry.
    func addCommonDetails(to draft: inout ReservationDraft) {
        var guests: [String] = []
        for value in node.values("underName") {
            if let name = SchemaNode(value)?.text("name") ?? SchemaNode.text(of: value), !guests.contains(name) {
                guests.append(name)
            }
        }
        draft.add(guests.count > 1 ? "Guests" : "Guest", guests.isEmpty ? nil : guests.joined(separator: ", "))
        draft.add("Booking reference", node.text("reservationNumber", "reservationId"))
        // Gmail's flight markup puts ticketNumber on the reservation; schema.org on the Ticket.
        draft.add("Ticket number", node.text("ticketNumber"))
        for ticket in node.nodes("reservedTicket") {
            draft.add("Ticket number", ticket.text("ticketNumber"))
            if !draft.details.contains(where: { $0.label == "Seat" }) {
                draft.add("Seat", Self.seat(ticket.node("ticketedSeat")))
            }
        }
        if let price = node.text("totalPrice") ?? node.node("totalPrice")?.text("price") {
            let currency = node.text("priceCurrency") ?? node.node("totalPrice")?.text("priceCurrency")
            draft.add("Total price", currency.map { "\(price) \($0)" } ?? price)
        }
        if let membership = node.node("programMembershipUsed") ?? node.node("programMembership"),
            let number = membership.text("membershipNumber", "memberNumber")
        {
            let program = membership.text("programName") ?? membership.name(of: "program") ?? membership.name(of: "hostingOrganization")
            draft.add("Membership", program.map { "\($0) \(number)" } ?? number)
        }
        draft.add("Check-in URL", node.text("checkinUrl", "checkInUrl") ?? actionTarget("CheckInAction"))
    }

    /// schema.org `Seat`: section, row, number, seating type (`Wagen 12, Row 3, Seat 47, 1. Klasse`).
    static func seat(_ seat: SchemaNode?) -> String? {
        guard let seat else { return nil }
        var parts: [String] = []
        if let section = seat.text("seatSection") { parts.append(section) }
        if let row = seat.text("seatRow") { parts.append("Row \(row)") }
        if let number = seat.text("seatNumber") { parts.append("Seat \(number)") }
        if let type = seat.name(of: "seatingType") { parts.append(type) }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }

    // MARK: - Times

    /// The first of `keys` on `owner` as a date-time. Unreadable text is `invalid-value`; a
    /// date-time without offset is kept as wall-clock time with `missing-timezone` (Apple Mail
    /// ignores such times; we keep them so the booking is not lost, and say so).
    mutating func time(_ owner: SchemaNode?, _ keys: [String], path: String = "") -> DateTimeValue? {
        guard let owner else { return nil }
        for key in keys {
            guard let raw = owner.text(key) else { continue }
            guard let value = DateTimeValue(parsing: raw) else {
                note(.invalidValue, "\(path)\(key) \"\(raw)\" is not an ISO 8601 date or date-time; ignored")
                continue
            }
            if value.offsetSeconds == nil, !value.isDateOnly {
                note(.missingTimeZone, "\(path)\(key) \(raw) has no UTC offset; kept as wall-clock (floating) time")
            }
            return value
        }
        return nil
    }

    /// `reservationFor`, or nil with a `missing-required-property` diagnostic.
    /// Text where a Thing belongs (`"reservationFor": "EPIC Steak"`) is read as its name.
    mutating func requiredReservationFor() -> SchemaNode? {
        if let thing = node.node("reservationFor") { return thing }
        if let name = node.text("reservationFor") {
            note(.repaired, "reservationFor is text (\"\(name)\"); read as the name of the \(category.displayName.lowercased())")
            return SchemaNode(JSONObject(pairs: [("name", .string(name))]))
        }
        note(.missingRequiredProperty, "no reservationFor object (the \(category.displayName.lowercased()) being booked); item dropped")
        return nil
    }
}
