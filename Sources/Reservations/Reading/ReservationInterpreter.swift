import JSON
import Markup
import ReservoirBase

/// An item found to be a reservation, with the category its type says.
struct ReservationCandidate {
    var node: SchemaNode
    var category: ReservationCategory
    /// Local name of the type that made it a reservation (`FlightReservation`, `Reservation`).
    var schemaType: String
    /// The syntax the item was written in: JSON-LD is preferred where two descriptions of one
    /// item disagree.
    var source: StructuredItem.Source = .jsonLD
    /// One element of a `reservationFor` array: its item key must tell it from its siblings.
    var isReservationForElement = false
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
    /// The start is written but its day and month order could not be decided (`date-ambiguous`).
    var startUndecided = false
    /// Where the start and the end were read (`reservationFor.departureTime`), for notes.
    var startProperty: String?
    var endProperty: String?
    /// What the places say of their zones, strongest first, for times written without an
    /// offset (``ReservationInterpreter/placeInZones(_:)``).
    var startClues: [ZoneClue] = []
    var endClues: [ZoneClue] = []

    mutating func setTimes(_ span: TimeSpan) {
        start = span.start
        end = span.end
        startUndecided = span.startUndecided
        startProperty = span.startProperty
        endProperty = span.endProperty
    }

    /// The same clues for the start and the end: one place (a hotel, a restaurant, a venue).
    mutating func setClues(_ clues: [ZoneClue]) {
        startClues = clues
        endClues = clues
    }

    mutating func add(_ label: String, _ value: String?, property: String? = nil) {
        guard let value, !value.isEmpty else { return }
        details.append(ReservationDetail(label: label, value: value, property: property))
    }
}

/// One time property as written: a value, two readings awaiting evidence, or nothing usable.
enum TimeReading {
    case value(DateTimeValue, property: String)
    case ambiguous(DayMonthReadings, property: String)
    case absent

    /// Where the value was read; nil when absent.
    var property: String? {
        switch self {
        case .value(_, let property), .ambiguous(_, let property): property
        case .absent: nil
        }
    }
}

/// A start and an end after the evidence was weighed.
struct TimeSpan {
    var start: DateTimeValue?
    var end: DateTimeValue?
    /// The start was written, but ambiguously, and nothing decided it.
    var startUndecided = false
    var startProperty: String?
    var endProperty: String?
}

/// Turns one reservation item into a ``Reservation``: the category reader for title, times,
/// place and details, then what every reservation has (booking number, status, links, guest).
/// Records a diagnostic for every repair and every reason to drop the item.
struct ReservationInterpreter {
    let candidate: ReservationCandidate
    /// The item as it will be written out, with repairs applied.
    var repaired: JSONObject
    var diagnostics: [ReservationDiagnostic] = []

    /// The message's `Date:` as Unix seconds: evidence for an ambiguous day and month.
    let messageDate: Int64?
    /// The zones' rules, asked only for a time without offset that has evidence.
    let zones: TimeZoneBook
    /// Date properties whose text was not read as a date (`invalid-value`), by path: moved
    /// aside in the normalized JSON (``normalizeDates(_:modifiedTime:)``).
    var unreadDates: [String] = []

    init(_ candidate: ReservationCandidate, messageDate: Int64? = nil, zones: TimeZoneBook = .system) {
        self.candidate = candidate
        self.repaired = candidate.node.object
        self.messageDate = messageDate
        self.zones = zones
    }

    var node: SchemaNode { candidate.node }
    var category: ReservationCategory { candidate.category }

    /// How messages name this item: `FlightReservation K7Q2PX`.
    var label: String {
        let number = node.text("reservationId", "reservationNumber")
        return number.map { "\(candidate.schemaType) \($0)" } ?? candidate.schemaType
    }

    mutating func note(_ code: ReservationDiagnostic.Code, detail: String? = nil, _ message: String) {
        diagnostics.append(ReservationDiagnostic(code: code, message: "\(label): \(message)", detail: detail))
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
        placeInZones(&draft)
        normalizeCounts()

        let status = readStatus()
        var marks: [ReservationMark] = []
        if draft.start == nil, draft.startUndecided, status != .cancelled {
            // Kept for `extract` to show, never made an event: the date is not known.
            marks.append(.dateAmbiguous)
        } else if draft.start == nil {
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

        if candidate.isReservationForElement, draft.itemID == "1" {
            // A single-item category booked for several things at once (two events, two
            // hotels): each is an item, keyed like a trip's leg by what it is and when.
            draft.itemID = Self.legKey([draft.title, draft.start?.date])
        }
        let actions = readActions()
        // Every link property is checked, so that a refused one leaves the JSON even beside a good one.
        let links = ["checkinUrl", "checkInUrl", "modifyReservationUrl", "url"].map { webLink($0) }
        let checkinURL = links[0] ?? links[1] ?? Self.url(of: "CheckInAction", in: actions)
        addCommonDetails(to: &draft, actions: actions, checkinURL: checkinURL)
        let reservationID = readReservationID(draft)
        // Read like the item's times (an unreadable one is `invalid-value`); not used for ordering.
        let modifiedTime = time(node, ["modifiedTime"])
        let url = links[2] ?? Self.url(of: "EditAction", in: actions) ?? Self.url(of: "UpdateAction", in: actions) ?? links[3]
        normalizeDates(draft, modifiedTime: modifiedTime)

        return Reservation(
            category: category, schemaType: candidate.schemaType, reservationID: reservationID,
            itemID: draft.itemID, status: status, title: draft.title, start: draft.start, end: draft.end,
            location: draft.location, details: draft.details, url: url, checkinURL: checkinURL,
            json: NormalizedJSON.reservation(repaired, status: status), marks: marks, modifiedTime: modifiedTime)
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
        let derived = Self.derivedKeyPrefix + Self.fnv1a(basis)
        note(
            .missingReservationID, detail: derived,
            "no reservationId or reservationNumber; using \(derived) from the title and date, so a changed title or date will look like a new booking"
        )
        return derived
    }

    /// How a key derived from the content begins, told from a sender's booking number.
    static let derivedKeyPrefix = "derived-"

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
    /// The check-in link is `checkinURL` (`checkinUrl`, else a `CheckInAction`'s); each other
    /// action's link is a detail named by ``actionLabels``, once.
    mutating func addCommonDetails(to draft: inout ReservationDraft, actions: [ReservationAction], checkinURL: String?) {
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
        addTickets(to: &draft, guests: guests)
        if let price = node.text("totalPrice") ?? node.node("totalPrice")?.text("price") {
            let currency = node.text("priceCurrency") ?? node.node("totalPrice")?.text("priceCurrency")
            draft.add("Total price", currency.map { "\(price) \($0)" } ?? price)
        }
        addMembership(to: &draft)
        draft.add("Check-in URL", checkinURL)
        for action in actions where action.type != "CheckInAction" {
            guard let label = Self.actionLabels[action.type],
                !draft.details.contains(ReservationDetail(label: label, value: action.url))
            else { continue }
            draft.add(label, action.url)
        }
    }

    /// `programMembershipUsed` (Gmail's older `programMembership`): the program
    /// (`programName`, `program`, `hostingOrganization.name`) and the masked number
    /// (``maskedMembershipNumber(_:)``), as `Frequent flyer` on a flight, `Membership` otherwise.
    func addMembership(to draft: inout ReservationDraft) {
        guard let membership = node.node("programMembershipUsed") ?? node.node("programMembership"),
            let number = membership.text("membershipNumber", "memberNumber")
        else { return }
        let program = membership.text("programName") ?? membership.name(of: "program") ?? membership.name(of: "hostingOrganization")
        let masked = Self.maskedMembershipNumber(number)
        draft.add(category == .flight ? "Frequent flyer" : "Membership", program.map { "\($0) \(masked)" } ?? masked)
    }

    /// A membership number goes into calendar notes, which are shared and synced: longer than
    /// 6 characters, all but its last 4 become `*` (`99201234` → `****1234`).
    static func maskedMembershipNumber(_ number: String) -> String {
        guard number.count > 6 else { return number }
        return String(repeating: "*", count: number.count - 4) + number.suffix(4)
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

    /// The first of `keys` on `owner` as a date-time, for a property read alone: an ambiguous
    /// day and month can only be decided by the message's Date (``DayMonthEvidence``).
    mutating func time(_ owner: SchemaNode?, _ keys: [String], path: String = "") -> DateTimeValue? {
        span(start: reading(owner, keys, path: path), end: .absent).start
    }

    /// A start and an end read together, so that an ambiguous day and month in one can be
    /// decided by the other (``DayMonthEvidence``).
    mutating func span(_ owner: SchemaNode?, start: [String], end: [String], path: String = "") -> TimeSpan {
        span(start: reading(owner, start, path: path), end: reading(owner, end, path: path))
    }

    /// The first of `keys` on `owner` that reads as a date. Unreadable text is `invalid-value`
    /// with the refusal as detail; a repaired form is `date-repaired` with the repairs as
    /// detail; a date-time without offset is kept as wall-clock time with `missing-timezone`
    /// (Apple Mail ignores such times; we keep them so the booking is not lost, and say so),
    /// or `timezone-name` / `timezone-abbreviation` when a zone is named.
    mutating func reading(_ owner: SchemaNode?, _ keys: [String], path: String = "") -> TimeReading {
        guard let owner else { return .absent }
        for key in keys {
            guard let raw = owner.text(key) else { continue }
            switch DateTimeReading.read(raw) {
            case .read(let value):
                noteForm(of: value, property: path + key)
                return .value(value, property: path + key)
            case .ambiguous(let readings):
                noteForm(of: readings.dayFirst, property: path + key, zoneOnly: true)
                return .ambiguous(readings, property: path + key)
            case .refused(let refusal):
                unreadDates.append(path + key)
                note(
                    .invalidValue, detail: refusal.rawValue,
                    "\(path)\(key) \"\(raw)\" is not a date Reservoir reads (\(Self.words(refusal))); ignored")
            }
        }
        return .absent
    }

    /// The notes a value read with repairs or without an offset carries.
    mutating func noteForm(of value: DateTimeValue, property: String, zoneOnly: Bool = false) {
        let forms = value.repairs.filter { $0 != .zoneName && $0 != .zoneAbbreviation }
        if !forms.isEmpty, !zoneOnly {
            note(
                .dateRepaired, detail: forms.map(\.rawValue).joined(separator: ","),
                "\(property) \(value.text) is not ISO 8601 (\(forms.map(\.rawValue).joined(separator: ", "))); read as \(Self.written(value))")
        }
        // A zone name, or no offset at all, is noted once the places' evidence is weighed
        // (placeInZones); an abbreviation is no zone, whatever the places say.
        if let zone = value.zoneName, !value.repairs.contains(.zoneName) {
            note(
                .timeZoneAbbreviation, detail: zone,
                "\(property) \(value.text): \(zone) is an abbreviation several zones share; not read as a zone")
        }
    }

    /// `2031-02-02T18:35:00+01:00`, `2031-02-02T18:35:00 (wall-clock)`, `2031-02-02`.
    static func written(_ value: DateTimeValue) -> String {
        value.offsetSeconds == nil && !value.isDateOnly ? value.local + " (wall-clock)" : isoText(value)
    }

    /// The value as ISO 8601 (RFC 3339 §5.6 with its offset): `2031-02-02T18:35:00+01:00`,
    /// `…Z`; `2031-02-02T18:35:00` for wall-clock time, `2031-02-02` for a date.
    static func isoText(_ value: DateTimeValue) -> String {
        if value.isDateOnly { return value.date }
        guard let offset = value.offsetSeconds else { return value.local }
        if offset == 0 { return value.local + "Z" }
        let magnitude = abs(offset)
        return value.local + (offset < 0 ? "-" : "+") + CivilTime.pad(magnitude / 3600, 2) + ":" + CivilTime.pad(magnitude % 3600 / 60, 2)
    }

    /// The prefix of the members that keep a sender's text beside a normalized value
    /// (`reservoir:originalStartTime`): not a schema.org term, so a reader of schema.org
    /// ignores them.
    static let originalPrefix = "reservoir:original"

    /// The dates the reader read, written into the normalized JSON as ISO 8601 with the offset
    /// they were read with (``isoText(_:)``), so a program reading it never meets
    /// `02-02-2031 18:35`: each value not in strict ISO 8601, or placed in a zone it did not
    /// name, is replaced, and the sender's text kept beside it under ``originalPrefix`` and the
    /// property's name. A date that was not used (unreadable, its day and month undecided, an end
    /// before the start) is moved there, its property left out. A value that is not a plain
    /// string where it was read is left alone.
    mutating func normalizeDates(_ draft: ReservationDraft, modifiedTime: DateTimeValue?) {
        let dates = [(draft.start, draft.startProperty), (draft.end, draft.endProperty), (modifiedTime, "modifiedTime")]
        for case (let value?, let property?) in dates where !value.repairs.isEmpty || value.placement != nil {
            let iso = Self.isoText(value)
            if iso != value.text { replace(property, with: iso) }
        }
        var unused = unreadDates
        if draft.start == nil, let property = draft.startProperty { unused.append(property) }
        if draft.end == nil, let property = draft.endProperty { unused.append(property) }
        for property in unused { replace(property, with: nil) }
    }

    /// The string at `property` (a dotted path) replaced by `iso`, or left out for nil; the
    /// sender's text kept beside it.
    mutating func replace(_ property: String, with iso: String?) {
        var path = property.split(separator: ".").map(String.init)
        guard let key = path.popLast() else { return }
        repaired = Self.replacing(in: repaired, path: path[...], key: key, with: iso)
    }

    static func replacing(in object: JSONObject, path: ArraySlice<String>, key: String, with iso: String?) -> JSONObject {
        var object = object
        if let first = path.first {
            guard case .object(let inner)? = object[first] else { return object }
            object[first] = .object(replacing(in: inner, path: path.dropFirst(), key: key, with: iso))
            return object
        }
        guard case .string(let original)? = object[key] else { return object }
        object[key] = iso.map(JSONValue.string)
        object[originalPrefix + key.prefix(1).uppercased() + key.dropFirst()] = .string(original)
        return object
    }

    static func words(_ refusal: DateTimeRefusal) -> String {
        switch refusal {
        case .freeText: "not a numeric date, or text around it"
        case .impossibleDate: "no such day"
        case .impossibleTime: "no such time of day or offset"
        case .twoDigitYear: "a two-digit year leaves the century to guess"
        case .tooLong: "longer than \(SenderDateTimeParser.maximumLength) characters"
        }
    }

    /// Decides the day and month of ambiguous readings from the other end of the span, then
    /// from the message's Date; what nothing decides stays unknown with `date-ambiguous`.
    mutating func span(start: TimeReading, end: TimeReading) -> TimeSpan {
        var span = decidedSpan(start: start, end: end)
        span.startProperty = start.property
        span.endProperty = end.property
        return span
    }

    private mutating func decidedSpan(start: TimeReading, end: TimeReading) -> TimeSpan {
        switch (start, end) {
        case (.value(let s, _), .value(let e, _)):
            return TimeSpan(start: s, end: e)
        case (.ambiguous(let readings, let property), .value(let e, _)):
            let decided = decide(readings, property: property) { DayMonthEvidence.fits(start: $0, end: e) }
            return TimeSpan(start: decided, end: e, startUndecided: decided == nil)
        case (.value(let s, _), .ambiguous(let readings, let property)):
            let decided = decide(readings, property: property) { DayMonthEvidence.fits(start: s, end: $0) }
            return TimeSpan(start: s, end: decided)
        case (.ambiguous(let a, let startProperty), .ambiguous(let b, let endProperty)):
            // One sender writes every date of a message the same way: both day-first or both month-first.
            let dayFirst = DayMonthEvidence.fits(start: a.dayFirst, end: b.dayFirst)
            let monthFirst = DayMonthEvidence.fits(start: a.monthFirst, end: b.monthFirst)
            var first: Bool?
            var evidence = DateTimeRepair.dayMonthByOtherDate
            if dayFirst != monthFirst {
                first = dayFirst
            } else if let byNumber = DayMonthEvidence.byIdentifiers(a, identifiers: identifiers)
                ?? DayMonthEvidence.byIdentifiers(b, identifiers: identifiers)
            {
                first = byNumber
                evidence = .dayMonthByTicketNumber
            } else if let byDate = DayMonthEvidence.byMessageDate(a, messageDate: messageDate) {
                first = byDate
                evidence = .dayMonthByMessageDate
            }
            guard let first else {
                undecided(a, property: startProperty)
                undecided(b, property: endProperty)
                return TimeSpan(start: nil, end: nil, startUndecided: true)
            }
            return TimeSpan(
                start: chosen(a, dayFirst: first, evidence: evidence, property: startProperty),
                end: chosen(b, dayFirst: first, evidence: evidence, property: endProperty))
        case (.ambiguous(let readings, let property), .absent):
            let decided = decide(readings, property: property) { _ in nil }
            return TimeSpan(start: decided, end: nil, startUndecided: decided == nil)
        case (.absent, .ambiguous(let readings, let property)):
            return TimeSpan(start: nil, end: decide(readings, property: property) { _ in nil })
        case (.value(let s, _), .absent):
            return TimeSpan(start: s, end: nil)
        case (.absent, .value(let e, _)):
            return TimeSpan(start: nil, end: e)
        case (.absent, .absent):
            return TimeSpan(start: nil, end: nil)
        }
    }

    /// One ambiguous value: the reading `fits` accepts when it accepts only one, else the one
    /// the message's Date allows; nil, with `date-ambiguous`, when neither decides.
    mutating func decide(_ readings: DayMonthReadings, property: String, fits: (DateTimeValue) -> Bool?) -> DateTimeValue? {
        if let dayFirst = fits(readings.dayFirst), let monthFirst = fits(readings.monthFirst), dayFirst != monthFirst {
            return chosen(readings, dayFirst: dayFirst, evidence: .dayMonthByOtherDate, property: property)
        }
        if let dayFirst = DayMonthEvidence.byIdentifiers(readings, identifiers: identifiers) {
            return chosen(readings, dayFirst: dayFirst, evidence: .dayMonthByTicketNumber, property: property)
        }
        if let dayFirst = DayMonthEvidence.byMessageDate(readings, messageDate: messageDate) {
            return chosen(readings, dayFirst: dayFirst, evidence: .dayMonthByMessageDate, property: property)
        }
        undecided(readings, property: property)
        return nil
    }

    mutating func chosen(_ readings: DayMonthReadings, dayFirst: Bool, evidence: DateTimeRepair, property: String) -> DateTimeValue {
        var value = dayFirst ? readings.dayFirst : readings.monthFirst
        value.repairs.append(evidence)
        let order = dayFirst ? "day first" : "month first"
        let why =
            switch evidence {
            case .dayMonthByOtherDate: "the other reading does not fit the item's other date"
            case .dayMonthByTicketNumber: "a booking or ticket number holds that date"
            default: "the other reading is before the message's Date or more than a year after it"
            }
        note(
            .dateRepaired, detail: value.repairs.map(\.rawValue).joined(separator: ","),
            "\(property) \(value.text) could be day or month first; read \(order) as \(Self.written(value)) because \(why)")
        return value
    }

    /// `partySize` and `numSeats` are Integers in schema.org; senders write `"2"`. The
    /// normalized JSON carries a whole number as a number, so programs read one type.
    mutating func normalizeCounts() {
        for key in ["partySize", "numSeats"] {
            guard case .string(let text) = repaired[key], let count = Int(text.filter { $0 != " " }), count >= 0 else { continue }
            repaired[key] = .number(Double(count))
        }
    }

    /// The item's booking and ticket numbers, where senders' systems often put the travel date.
    var identifiers: [String] {
        var texts = ["reservationNumber", "reservationId", "ticketNumber"].compactMap { node.text($0) }
        for ticket in node.nodes("reservedTicket") {
            texts += ["ticketNumber", "ticketToken"].compactMap { ticket.text($0) }
        }
        return texts
    }

    mutating func undecided(_ readings: DayMonthReadings, property: String) {
        note(
            .dateAmbiguous,
            "\(property) \(readings.dayFirst.text) could be \(readings.dayFirst.date) (day first) or \(readings.monthFirst.date) (month first) and nothing in the message decides; the date is left unknown (write ISO 8601: YYYY-MM-DD)"
        )
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
