public import JSON
import ReservoirBase

/// A rail ticket's trips and passes as schema.org items for the same reader as markup: a
/// `TrainReservation` per FCB reservation or open ticket, with a `TrainTrip` from station to
/// station; a pass as a `TrainReservation` over its days of validity. Without an FCB, the
/// printed layout (U_TLAY, RCT2) gives the one outbound trip.
///
/// Dates are the ticket's: the FCB counts days from its issuing day, the layout prints day and
/// month and the U_HEAD issuing year places them. Nothing comes from a clock. A station's name
/// is the one printed in the ticket, else the one of ``RailStations`` for its UIC code.
public enum RailReservations {
    public static func items(_ content: RailTicketContent) -> [JSONValue] {
        let provider = providerCode(content)
        let number = content.fcb?.issuerPNR ?? content.head?.ticketKey
        let name = content.fcb?.travelers.first?.name ?? content.layout.map { $0.text(line: 0, column: 52, width: 19) }
        if let fcb = content.fcb {
            var items: [JSONValue] = []
            let issued = CivilDate.fromDayOfYear(year: fcb.issuingYear, day: fcb.issuingDay)
            // The printed layout's outbound stations name the first trip's stations when the FCB
            // gives codes only: a name printed on the ticket wins over the table.
            let printed = content.layout.map { ($0.text(line: 6, column: 13, width: 17), $0.text(line: 6, column: 34, width: 17)) }
            for (index, document) in fcb.documents.enumerated() {
                func station(_ station: FCBStation?, departure: Bool) -> JSONValue? {
                    let name = index == 0 ? (departure ? printed?.0 : printed?.1) : nil
                    return Self.station(station, printed: name?.isEmpty == false ? name : nil)
                }
                switch document {
                case .reservation(let r):
                    let departureDay = issued.map { $0.adding(days: r.departureDay) }
                    let arrivalDay = departureDay.map { $0.adding(days: r.arrivalDay) }
                    items.append(
                        reservation(
                            number: r.reference ?? number, name: name, provider: provider,
                            trip: [
                                ("trainNumber", r.trainNumber.map(JSONValue.string)),
                                ("trainName", r.serviceBrand.map(JSONValue.string)),
                                ("departureStation", station(r.from, departure: true)),
                                ("arrivalStation", station(r.to, departure: false)),
                                ("departureTime", departureDay.map { .string(stamp($0, minutes: r.departureTime)) }),
                                ("arrivalTime", r.arrivalTime.flatMap { t in arrivalDay.map { .string(stamp($0, minutes: t)) } }),
                            ], seat: seat(coach: r.coach, places: r.places, travelClass: r.travelClass)))
                case .openTicket(let o):
                    // A ticket bound to trains is a reservation per train; else one over its validity.
                    for link in o.trainLinks {
                        let day = issued.map { $0.adding(days: link.travelDay) }
                        items.append(
                            reservation(
                                number: o.reference ?? number, name: name, provider: provider,
                                trip: [
                                    ("trainNumber", link.trainNumber.map(JSONValue.string)),
                                    ("departureStation", station(link.from ?? o.from, departure: true)),
                                    ("arrivalStation", station(link.to ?? o.to, departure: false)),
                                    ("departureTime", day.map { .string(stamp($0, minutes: link.departureTime)) }),
                                ], seat: seat(coach: nil, places: [], travelClass: o.travelClass)))
                    }
                    guard o.trainLinks.isEmpty else { continue }
                    let from = issued.map { $0.adding(days: o.validFromDay) }
                    items.append(
                        reservation(
                            number: o.reference ?? number, name: name, provider: provider,
                            trip: [
                                ("departureStation", station(o.from, departure: true)), ("arrivalStation", station(o.to, departure: false)),
                                ("departureTime", from.map { day in .string(o.validFromTime.map { stamp(day, minutes: $0) } ?? day.isoText) }),
                            ], seat: seat(coach: nil, places: [], travelClass: o.travelClass)))
                case .pass(let p):
                    let from = issued.map { $0.adding(days: p.validFromDay) }
                    let until = from.map { $0.adding(days: p.validUntilDay) }
                    items.append(
                        reservation(
                            number: p.reference ?? number, name: name, provider: provider,
                            trip: [
                                ("name", p.passDescription.map(JSONValue.string)),
                                ("departureTime", from.map { .string($0.isoText) }),
                                ("arrivalTime", until.map { .string($0.isoText) }),
                            ], seat: seat(coach: nil, places: [], travelClass: p.travelClass)))
                case .other: continue
                }
            }
            return items
        }
        if let layout = content.layout, let head = content.head {
            return layoutItems(layout, head: head, number: number, name: name, provider: provider)
        }
        return []
    }

    /// The RCT2 outbound line (line 6): date `dd.mm` at column 1, time at 7, from at 13, to at
    /// 34, arrival date at 52 and time at 58, class at 66; the train at line 8, column 7.
    static func layoutItems(_ layout: RailLayout, head: RailHead, number: String?, name: String?, provider: String?) -> [JSONValue] {
        let from = layout.text(line: 6, column: 13, width: 17)
        let to = layout.text(line: 6, column: 34, width: 17)
        guard !from.isEmpty || !to.isEmpty else { return [] }
        let issued = CivilDate(year: head.year, month: head.month, day: head.day)
        func time(_ dateColumn: Int, _ timeColumn: Int) -> JSONValue? {
            guard let date = dayMonth(layout.text(line: 6, column: dateColumn, width: 5), after: issued) else { return nil }
            if let minutes = clock(layout.text(line: 6, column: timeColumn, width: 5)) { return .string(stamp(date, minutes: minutes)) }
            return .string(date.isoText)
        }
        let train = layout.text(line: 8, column: 7, width: 5)
        let travelClass = layout.text(line: 6, column: 66, width: 5)
        return [
            reservation(
                number: number, name: name, provider: provider,
                trip: [
                    ("trainNumber", train.isEmpty ? nil : .string(train)),
                    ("departureStation", object([("@type", .string("TrainStation")), ("name", .string(from))])),
                    ("arrivalStation", object([("@type", .string("TrainStation")), ("name", .string(to))])),
                    ("departureTime", time(1, 7)), ("arrivalTime", time(52, 58)),
                ],
                seat: travelClass.isEmpty ? nil : object([("@type", .string("Seat")), ("seatingType", .string(travelClass))]))
        ]
    }

    static func reservation(number: String?, name: String?, provider: String?, trip: [(String, JSONValue?)], seat: JSONValue?) -> JSONValue {
        object([
            ("@type", .string("TrainReservation")),
            ("reservationNumber", number.map(JSONValue.string)),
            ("underName", name.flatMap { $0.isEmpty ? nil : object([("@type", .string("Person")), ("name", .string($0))]) }),
            ("reservationFor", object([("@type", .string("TrainTrip"))] + trip + [("provider", provider.map(organization))])),
            ("reservedTicket", seat.map { object([("@type", .string("Ticket")), ("ticketedSeat", $0)]) }),
            ("provider", provider.map(organization)),
        ])
    }

    static func organization(_ code: String) -> JSONValue {
        object([
            ("@type", .string("Organization")), ("identifier", .string("uic:" + code)),
            ("name", RailStations.railwayName(code).map(JSONValue.string)),
        ])
    }

    static func providerCode(_ content: RailTicketContent) -> String? {
        if let code = content.fcb?.issuerCode { return String(code) }
        if let code = content.head?.issuerCode, !code.isEmpty { return code }
        return content.signerCode
    }

    /// A station by its FCB name, else the name `printed` on the ticket, else the table's name
    /// for its code, else its code.
    static func station(_ station: FCBStation?, printed: String?) -> JSONValue? {
        guard let station else { return nil }
        let code = station.code.map { String($0) } ?? station.codeText
        let name = station.name ?? printed ?? code.flatMap(RailStations.name)
        return object([
            ("@type", .string("TrainStation")), ("name", (name ?? code.map { "UIC " + $0 }).map(JSONValue.string)),
            ("identifier", code.map { .string("uic:" + $0) }),
            ("address", code.flatMap(country).map { object([("@type", .string("PostalAddress")), ("addressCountry", .string($0))]) }),
        ])
    }

    /// The country of a station by its UIC code: its first two digits are the country's UIC
    /// number (UIC leaflet 920-14), which places the ticket's local times in a zone. Only
    /// countries of one zone, or whose zones keep one offset, are listed.
    static func country(_ code: String) -> String? {
        guard code.count == 7, let number = Int(code.prefix(2)) else { return nil }
        let countries: [Int: String] = [
            10: "FI", 51: "PL", 54: "CZ", 55: "HU", 56: "SK", 70: "GB", 73: "GR", 74: "SE", 76: "NO", 78: "HR", 79: "SI",
            80: "DE", 81: "AT", 82: "LU", 83: "IT", 84: "NL", 85: "CH", 86: "DK", 87: "FR", 88: "BE",
        ]
        return countries[number]
    }

    static func seat(coach: String?, places: [String], travelClass: FCBTravelClass?) -> JSONValue? {
        let classText: String? =
            switch travelClass {
            case .first?: "1"
            case .second?: "2"
            default: nil
            }
        guard coach != nil || !places.isEmpty || classText != nil else { return nil }
        return object([
            ("@type", .string("Seat")), ("seatSection", coach.map(JSONValue.string)),
            ("seatNumber", places.isEmpty ? nil : .string(places.joined(separator: ", "))), ("seatingType", classText.map(JSONValue.string)),
        ])
    }

    static func object(_ pairs: [(String, JSONValue?)]) -> JSONValue {
        .object(JSONObject(pairs: pairs.compactMap { key, value in value.map { (key, $0) } }))
    }

    static func stamp(_ date: CivilDate, minutes: Int) -> String {
        let hour = min(minutes / 60, 23)
        let minute = minutes % 60
        return date.isoText + "T" + twoDigits(hour) + ":" + twoDigits(minute) + ":00"
    }

    static func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

    /// `dd.mm` (or `dd/mm`) on or after `issued`: the issuing year, or the next one.
    static func dayMonth(_ text: String, after issued: CivilDate) -> CivilDate? {
        let parts = text.split(whereSeparator: { $0 == "." || $0 == "/" })
        guard parts.count >= 2, let day = Int(parts[0]), let month = Int(parts[1]), (1...12).contains(month), (1...31).contains(day) else {
            return nil
        }
        let same = CivilDate(year: issued.year, month: month, day: day)
        return same < issued ? CivilDate(year: issued.year + 1, month: month, day: day) : same
    }

    static func clock(_ text: String) -> Int? {
        let parts = text.split(whereSeparator: { $0 == ":" || $0 == "." })
        guard parts.count == 2, let hour = Int(parts[0]), let minute = Int(parts[1]), hour < 24, minute < 60 else { return nil }
        return hour * 60 + minute
    }
}

/// A calendar date, for day arithmetic (proleptic Gregorian, days from the civil epoch).
struct CivilDate: Comparable {
    var year: Int, month: Int, day: Int

    static func fromDayOfYear(year: Int, day: Int) -> CivilDate? {
        guard (1...366).contains(day) else { return nil }
        return CivilDate(year: year, month: 1, day: 1).adding(days: day - 1)
    }

    /// Days since 1970-01-01 (H. Hinnant's days_from_civil).
    var serial: Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    init(serial: Int) {
        let z = serial + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        day = doy - (153 * mp + 2) / 5 + 1
        month = mp < 10 ? mp + 3 : mp - 9
        year = yoe + era * 400 + (month <= 2 ? 1 : 0)
    }

    func adding(days: Int) -> CivilDate { CivilDate(serial: serial + days) }

    var isoText: String {
        let y = String(year)
        return String(repeating: "0", count: max(0, 4 - y.count)) + y + "-" + RailReservations.twoDigits(month) + "-"
            + RailReservations.twoDigits(day)
    }

    static func < (a: CivilDate, b: CivilDate) -> Bool { a.serial < b.serial }
}
