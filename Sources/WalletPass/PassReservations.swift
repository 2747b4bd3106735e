import BCBP
public import JSON
import ReservoirBase

/// A pass's content as schema.org reservations, for the same reader as markup: a boarding pass
/// becomes a `FlightReservation`, `TrainReservation`, `BusReservation` or `BoatReservation` (by
/// `transitType`), an event ticket an `EventReservation`; coupons, store cards, generic passes
/// and generic transit are not reservations.
///
/// Where a value comes from, first found wins: the bar code when it is an IATA boarding pass
/// (one reservation per leg: passenger, PNR, airports, carrier, flight, day, seat), iOS's
/// `semantics` tags, fields by their usual keys (`origin`, `destination`, `flight`, `seat`,
/// `passenger`, `confirmationCode`…; an airport code is the field's value), then `relevantDate`
/// for the departure or start. The booking number is the PNR or confirmation code, else the
/// pass's `serialNumber`. A voided pass is a cancelled reservation.
public struct PassReservations: Sendable {
    public var items: [JSONValue] = []
    public var diagnostics: [PassDiagnostic] = []

    static let originKeys = ["origin", "from", "depart", "departure", "departureairport", "departurestation", "origincity"]
    static let destinationKeys = ["destination", "to", "arrive", "arrival", "arrivalairport", "arrivalstation", "destinationcity"]
    static let confirmationKeys = [
        "confirmationcode", "confirmation", "pnr", "bookingreference", "bookingcode", "recordlocator", "reservation", "reservationnumber",
    ]
    static let passengerKeys = ["passenger", "passengername", "name", "traveler", "traveller", "attendee", "guest"]
    static let departureTimeKeys = ["departuretime", "departuredate", "departs", "date", "boardingtime", "eventdate", "start", "doors"]

    /// Whether a bar code's day of the year was placed in a year by the clock alone
    /// (``FlightYearEvidence/clock``): nothing signed in the pass dates it, so its reservations
    /// are listed, never stored.
    public var unsignedYear = false

    /// The reservations of `content`. `signedAt` is the verified signature's signing time (nil
    /// when it has none or did not verify) and `now` the clock: evidence for a bar code's year,
    /// after the pass's own dates (``yearEvidence(_:pass:signedAt:now:)``). Nothing of the mail
    /// around the pass is: anyone can write its `Date:`.
    public init(_ content: PassContent, signedAt: Int64?, now: Int64) {
        switch content.style {
        case .boardingPass:
            switch content.transitType {
            case "PKTransitTypeAir": flights(content, signedAt: signedAt, now: now)
            case "PKTransitTypeTrain": groundTrip(content, type: "TrainReservation", trip: "TrainTrip", words: .train)
            case "PKTransitTypeBus": groundTrip(content, type: "BusReservation", trip: "BusTrip", words: .bus)
            case "PKTransitTypeBoat": groundTrip(content, type: "BoatReservation", trip: "BoatTrip", words: .boat)
            default:
                diagnostics.append(
                    PassDiagnostic(
                        .passNotReservation, "a boarding pass of transit type \(content.transitType ?? "(none)") is not read as a reservation",
                        detail: content.transitType))
            }
        case .eventTicket: event(content)
        case .coupon, .storeCard, .generic:
            let style = content.style?.rawValue ?? ""
            diagnostics.append(PassDiagnostic(.passNotReservation, "a \(style) pass is not a reservation; ignored", detail: style))
        case nil:
            diagnostics.append(PassDiagnostic(.passUnreadable, "pass.json has no pass style (boardingPass, eventTicket, …)"))
        }
    }

    // MARK: Flights

    private mutating func flights(_ content: PassContent, signedAt: Int64?, now: Int64) {
        for message in content.barcodeMessages where message.hasPrefix("M") {
            switch BCBPReader.read(message) {
            case .success(let pass):
                for leg in pass.legs { items.append(flight(content, pass: pass, leg: leg, signedAt: signedAt, now: now)) }
                return
            case .failure(let refusal):
                diagnostics.append(
                    PassDiagnostic(.bcbpInvalid, "the bar code looks like an IATA boarding pass but does not read: \(refusal)", detail: "\(refusal)"))
            }
        }
        items.append(flightFromFields(content))
    }

    private mutating func flight(_ content: PassContent, pass: BoardingPass, leg: BoardingPassLeg, signedAt: Int64?, now: Int64) -> JSONValue {
        var start: String?
        if let day = leg.dayOfYear {
            let evidence = Self.yearEvidence(content, pass: pass, signedAt: signedAt, now: now)
            if let date = FlightDate.resolve(dayOfYear: day, near: evidence.instant) {
                let text = Self.dateText(date)
                if evidence.kind == .clock { unsignedYear = true }
                diagnostics.append(
                    PassDiagnostic(
                        .bcbpYear, "the bar code gives day \(day) of the year; \(Self.evidenceWords(evidence.kind, year: date.year))",
                        detail: evidence.kind.rawValue))
                // relevantDate is the departure (or boarding) time when it falls on the flight's day.
                start = content.relevantDate.map { $0.hasPrefix(text) ? $0 : text } ?? text
            }
        }
        let fieldNumber = content.field(["flight", "flightnumber", "flightno"]).map(Self.flightParts)
        let airlineName = content.organizationName
        return Self.object([
            ("@type", .string("FlightReservation")),
            ("reservationNumber", .string(leg.bookingReference.isEmpty ? content.serialNumber ?? "" : leg.bookingReference)),
            ("reservationStatus", Self.status(content)),
            ("underName", Self.person(Self.displayName(pass.passengerName))),
            ("airplaneSeat", leg.seat.isEmpty ? nil : .string(leg.seat)),
            ("reservedTicket", Self.ticket(content, number: leg.ticketNumber)),
            (
                "reservationFor",
                Self.object([
                    ("@type", .string("Flight")),
                    ("flightNumber", .string(leg.flightNumber)),
                    (
                        "airline",
                        Self.object([
                            ("@type", .string("Airline")), ("iataCode", .string(leg.carrier)),
                            ("name", fieldNumber?.airline == leg.carrier || fieldNumber == nil ? airlineName.map(JSONValue.string) : nil),
                        ])
                    ),
                    ("departureAirport", Self.airport(code: leg.from, content.fieldEntry(Self.originKeys))),
                    ("arrivalAirport", Self.airport(code: leg.to, content.fieldEntry(Self.destinationKeys))),
                    ("departureTime", start.map(JSONValue.string)),
                    ("departureGate", content.field(["gate"]).map(JSONValue.string)),
                    ("boardingTime", content.field(["boardingtime", "boarding"]).map(JSONValue.string)),
                ])
            ),
        ])
    }

    private func flightFromFields(_ content: PassContent) -> JSONValue {
        let number =
            content.semantic("flightCode").map(Self.flightParts) ?? content.field(["flight", "flightnumber", "flightno"]).map(Self.flightParts)
        let airlineCode = content.semantic("airlineCode") ?? number?.airline
        let from = content.semantic("departureAirportCode") ?? content.field(Self.originKeys)
        let to = content.semantic("destinationAirportCode") ?? content.field(Self.destinationKeys)
        let departure =
            content.semantic("currentDepartureDate") ?? content.semantic("originalDepartureDate")
            ?? Self.isoField(content, Self.departureTimeKeys) ?? content.relevantDate
        return Self.object([
            ("@type", .string("FlightReservation")),
            ("reservationNumber", Self.bookingNumber(content)),
            ("reservationStatus", Self.status(content)),
            ("underName", content.field(Self.passengerKeys).map(Self.person)),
            ("airplaneSeat", content.field(["seat", "seatnumber"]).map(JSONValue.string)),
            ("reservedTicket", Self.ticket(content, number: nil)),
            (
                "reservationFor",
                Self.object([
                    ("@type", .string("Flight")),
                    ("flightNumber", (number?.number).map(JSONValue.string)),
                    (
                        "airline",
                        Self.object([
                            ("@type", .string("Airline")), ("iataCode", airlineCode.map(JSONValue.string)),
                            ("name", content.organizationName.map(JSONValue.string)),
                        ])
                    ),
                    ("departureAirport", from.map(Self.airport)),
                    ("arrivalAirport", to.map(Self.airport)),
                    ("departureTime", departure.map(JSONValue.string)),
                    ("departureGate", content.field(["gate"]).map(JSONValue.string)),
                ])
            ),
        ])
    }

    // MARK: Trains, buses, boats

    struct TripWords {
        var departure: String, arrival: String, number: String?, provider: String
        static let train = TripWords(departure: "departureStation", arrival: "arrivalStation", number: "trainNumber", provider: "provider")
        static let bus = TripWords(departure: "departureBusStop", arrival: "arrivalBusStop", number: "busNumber", provider: "provider")
        static let boat = TripWords(departure: "departureBoatTerminal", arrival: "arrivalBoatTerminal", number: nil, provider: "provider")
    }

    private mutating func groundTrip(_ content: PassContent, type: String, trip: String, words: TripWords) {
        let from = content.semantic("departureStationName") ?? content.fieldEntry(Self.originKeys).map(Self.placeName)
        let to = content.semantic("destinationStationName") ?? content.fieldEntry(Self.destinationKeys).map(Self.placeName)
        let departure =
            content.semantic("currentDepartureDate") ?? content.semantic("originalDepartureDate")
            ?? Self.isoField(content, Self.departureTimeKeys) ?? content.relevantDate
        let number = content.semantic("vehicleNumber") ?? content.field(["train", "trainnumber", "bus", "busnumber", "vessel", "route"])
        var seat: [(String, JSONValue?)] = [("@type", .string("Seat"))]
        seat.append(("seatNumber", content.field(["seat", "seatnumber"]).map(JSONValue.string)))
        seat.append(("seatSection", content.field(["coach", "car", "carriage", "wagon", "deck"]).map(JSONValue.string)))
        items.append(
            Self.object([
                ("@type", .string(type)),
                ("reservationNumber", Self.bookingNumber(content)),
                ("reservationStatus", Self.status(content)),
                ("underName", content.field(Self.passengerKeys).map(Self.person)),
                (
                    "reservedTicket",
                    Self.object([
                        ("@type", .string("Ticket")), ("ticketToken", content.barcodeMessages.first.map(JSONValue.string)),
                        ("ticketedSeat", seat.count > 1 ? Self.object(seat) : nil),
                    ])
                ),
                (
                    "reservationFor",
                    Self.object([
                        ("@type", .string(trip)),
                        (words.departure, from.map { Self.object([("@type", .string("Place")), ("name", .string($0))]) }),
                        (words.arrival, to.map { Self.object([("@type", .string("Place")), ("name", .string($0))]) }),
                        ("departureTime", departure.map(JSONValue.string)),
                        (words.number ?? "name", number.map(JSONValue.string)),
                        (
                            words.provider,
                            content.organizationName.map { Self.object([("@type", .string("Organization")), ("name", .string($0))]) }
                        ),
                        ("departurePlatform", type == "TrainReservation" ? content.field(["platform", "track"]).map(JSONValue.string) : nil),
                    ])
                ),
            ]))
    }

    // MARK: Events

    private mutating func event(_ content: PassContent) {
        let name =
            content.semantic("eventName") ?? content.field(["event", "eventname", "show", "performance"]) ?? content.description
            ?? content.logoText ?? content.organizationName
        let start = content.semantic("eventStartDate") ?? Self.isoField(content, Self.departureTimeKeys) ?? content.relevantDate
        let venue = content.semantic("venueName") ?? content.field(["venue", "location", "place", "stadium", "theatre", "theater"])
        let location = content.locations.first
        var place: [(String, JSONValue?)] = [("@type", .string("Place")), ("name", (venue ?? location?.text).map(JSONValue.string))]
        if let location {
            place.append(
                (
                    "geo",
                    Self.object([
                        ("@type", .string("GeoCoordinates")), ("latitude", .number(location.latitude)), ("longitude", .number(location.longitude)),
                    ])
                ))
        }
        var seat: [(String, JSONValue?)] = [("@type", .string("Seat"))]
        seat.append(("seatNumber", content.field(["seat", "seatnumber"]).map(JSONValue.string)))
        seat.append(("seatRow", content.field(["row"]).map(JSONValue.string)))
        seat.append(("seatSection", content.field(["section", "block", "sector", "gate", "entrance"]).map(JSONValue.string)))
        items.append(
            Self.object([
                ("@type", .string("EventReservation")),
                ("reservationNumber", Self.bookingNumber(content)),
                ("reservationStatus", Self.status(content)),
                ("underName", content.field(Self.passengerKeys).map(Self.person)),
                (
                    "reservedTicket",
                    Self.object([
                        ("@type", .string("Ticket")), ("ticketToken", content.barcodeMessages.first.map(JSONValue.string)),
                        ("ticketedSeat", seat.contains { $0.0 != "@type" && $0.1 != nil } ? Self.object(seat) : nil),
                    ])
                ),
                (
                    "reservationFor",
                    Self.object([
                        ("@type", .string("Event")), ("name", name.map(JSONValue.string)), ("startDate", start.map(JSONValue.string)),
                        ("location", venue != nil || location != nil ? Self.object(place) : nil),
                    ])
                ),
            ]))
    }

    // MARK: Pieces

    static func object(_ pairs: [(String, JSONValue?)]) -> JSONValue {
        .object(JSONObject(pairs: pairs.compactMap { key, value in value.map { (key, $0) } }))
    }

    static func person(_ name: String) -> JSONValue {
        object([("@type", .string("Person")), ("name", .string(name))])
    }

    static func airport(_ text: String) -> JSONValue {
        let isCode = text.utf8.count == 3 && text.utf8.allSatisfy { (0x41...0x5A).contains($0) }
        return object([("@type", .string("Airport")), (isCode ? "iataCode" : "name", .string(text))])
    }

    /// An airport by its code, named by the field that gives the same code (`{"key": "origin",
    /// "label": "Seattle", "value": "SEA"}`: the label is the city).
    static func airport(code: String, _ field: PassContent.Field?) -> JSONValue {
        let name = field.flatMap { $0.value.trimmed == code ? $0.label?.trimmed : nil }.flatMap { $0.isEmpty ? nil : $0 }
        return object([("@type", .string("Airport")), ("iataCode", .string(code)), ("name", name.map(JSONValue.string))])
    }

    static func status(_ content: PassContent) -> JSONValue {
        .string(content.voided ? "https://schema.org/ReservationCancelled" : "https://schema.org/ReservationConfirmed")
    }

    static func bookingNumber(_ content: PassContent) -> JSONValue? {
        (content.field(confirmationKeys) ?? content.serialNumber).map(JSONValue.string)
    }

    static func ticket(_ content: PassContent, number: String?) -> JSONValue? {
        guard let token = content.barcodeMessages.first else { return nil }
        return object([("@type", .string("Ticket")), ("ticketToken", .string(token)), ("ticketNumber", number.map(JSONValue.string))])
    }

    /// A station field's name: the value, or its label when the value is a short code.
    static func placeName(_ field: PassContent.Field) -> String {
        if field.value.utf8.count <= 4, let label = field.label, !label.trimmed.isEmpty { return "\(label.trimmed) (\(field.value.trimmed))" }
        return field.value.trimmed
    }

    /// The first field of `keys` whose value is an ISO 8601 date (fields with a `dateStyle` hold one).
    static func isoField(_ content: PassContent, _ keys: [String]) -> String? {
        for field in content.fields where keys.contains(field.key.lowercased()) {
            let bytes = Array(field.value.utf8)
            if bytes.count >= 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
                bytes[0..<4].allSatisfy({ (0x30...0x39).contains($0) })
            {
                return field.value
            }
        }
        return nil
    }

    /// `LX 318`, `LX318`, `318` → airline and number.
    static func flightParts(_ text: String) -> (airline: String?, number: String) {
        let compact = text.filter { $0 != " " }
        let bytes = Array(compact.utf8)
        if bytes.count > 2, bytes.count <= 8, bytes[0..<2].allSatisfy({ (0x41...0x5A).contains($0) || (0x30...0x39).contains($0) }),
            !bytes[0..<2].allSatisfy({ (0x30...0x39).contains($0) }), bytes[2...].allSatisfy({ (0x30...0x39).contains($0) })
        {
            return (String(decoding: bytes[0..<2], as: UTF8.self), String(decoding: bytes[2...], as: UTF8.self))
        }
        return (nil, compact)
    }

    static func displayName(_ name: String) -> String { BoardingPass.displayName(name) }

    static func dateText(_ date: (year: Int, month: Int, day: Int)) -> String { FlightDate.text(date) }

    /// What places a bar code's day of the year in a year, by signed evidence only, first found
    /// first: the pass's `relevantDate`; a departure date of its fields (`semantics`, or a field
    /// such as `departureTime` holding an ISO 8601 date); the bar code's issue date, its decade
    /// from the signing time, else `expirationDate`, else the clock; the CMS signing time; the
    /// pass's `expirationDate`. Every one of them is in what the issuer signed. The clock is the
    /// last resort (``FlightYearEvidence/clock``), and its year is never stored: a pass mailed
    /// again a year later would otherwise give a flight a year later.
    static func yearEvidence(_ content: PassContent, pass: BoardingPass, signedAt: Int64?, now: Int64) -> (kind: FlightYearEvidence, instant: Int64) {
        if let relevant = content.relevantDate.flatMap(CivilTime.epochSeconds(ofLocal:)) { return (.relevantDate, relevant) }
        let field =
            content.semantic("currentDepartureDate") ?? content.semantic("originalDepartureDate") ?? isoField(content, departureTimeKeys)
        if let field = field.flatMap(CivilTime.epochSeconds(ofLocal:)) { return (.fieldDate, field) }
        let expiration = content.expirationDate.flatMap(CivilTime.epochSeconds(ofLocal:))
        // The issue date's year digit needs a decade: from signed evidence when there is some,
        // else from the clock, which moves it only every ten years.
        if let issued = pass.issued, let issue = issueDate(issued, notAfter: signedAt ?? expiration ?? now) { return (.issueDate, issue) }
        if let signedAt { return (.signingTime, signedAt) }
        if let expiration { return (.expirationDate, expiration) }
        return (.clock, now)
    }

    static func evidenceWords(_ kind: FlightYearEvidence, year: Int) -> String {
        switch kind {
        case .relevantDate: "the year \(year) is the one nearest the pass's relevant date"
        case .fieldDate: "the year \(year) is the one nearest the departure date in the pass's fields"
        case .issueDate: "the year \(year) is the one nearest the issue date in the bar code"
        case .signingTime: "the year \(year) is the one nearest the pass's signing time"
        case .expirationDate: "the year \(year) is the one nearest the pass's expiration date"
        case .clock:
            "nothing signed in the pass dates it (no relevant date, departure date, issue date, signing time or expiration date): placed in \(year) by the clock, listed but not stored"
        }
    }

    /// The issue date of a bar code (the year's last digit and the day): the latest such date
    /// not after `anchor` and a day (a boarding pass is issued before the pass is signed, and
    /// before it expires), within the ten years before it.
    static func issueDate(_ issued: (yearDigit: Int, dayOfYear: Int), notAfter anchor: Int64) -> Int64? {
        guard (0...9).contains(issued.yearDigit), (1...366).contains(issued.dayOfYear) else { return nil }
        let anchorDays = (anchor >= 0 ? anchor : anchor - 86_399) / 86_400
        let year = CivilTime.civilFromDays(anchorDays).year
        var candidate = year - ((year - issued.yearDigit) % 10 + 10) % 10
        var days = CivilTime.daysFromCivil(year: candidate, month: 1, day: 1) + Int64(issued.dayOfYear - 1)
        if days > anchorDays + 1 {
            candidate -= 10
            days = CivilTime.daysFromCivil(year: candidate, month: 1, day: 1) + Int64(issued.dayOfYear - 1)
        }
        return days * 86_400
    }
}

/// The signed evidence that placed a boarding pass's day of the year in a year: the `detail` of
/// the note `bcbp-year`. Never the mail's `Date:`, which anyone can write.
public enum FlightYearEvidence: String, Sendable, CaseIterable {
    /// pass.json's `relevantDate`.
    case relevantDate = "relevant-date"
    /// A departure date of the pass's fields: `semantics` (`currentDepartureDate`), or a field by
    /// its key holding an ISO 8601 date.
    case fieldDate = "field-date"
    /// The bar code's own issue date (conditional section).
    case issueDate = "issue-date"
    /// The verified CMS signing time.
    case signingTime = "signing-time"
    /// pass.json's `expirationDate`.
    case expirationDate = "expiration-date"
    /// None of the above: the clock, for display only (the reservations are marked, never stored).
    case clock
}
