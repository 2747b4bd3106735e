import EventStore
import TimeZones

/// How long a flight whose reservation gives no arrival time blocks the calendar: the
/// great-circle distance between its two airports (the airport table's positions) at a
/// cruising ground speed, plus time for taxi, climb and descent, rounded to 5 minutes. A
/// boarding pass carries no arrival time; an hour was wrong for every leg but the shortest.
enum FlightLeg {
    /// Cruising ground speed of an airliner, km/h.
    static let kilometresPerHour = 800.0
    /// Taxi, climb and descent, seconds.
    static let overheadSeconds: Int64 = 30 * 60
    /// The block is rounded to this many seconds.
    static let roundingSeconds: Int64 = 5 * 60

    /// The estimated duration of a flight from `origin` to `destination` (IATA codes), nil when
    /// the table lacks either or they are the same airport.
    static func duration(from origin: String, to destination: String) -> Int64? {
        guard origin != destination, let kilometres = AirportTimeZones.kilometres(from: origin, to: destination), kilometres.isFinite
        else { return nil }
        let seconds = Int64((kilometres / kilometresPerHour * 3600).rounded()) + overheadSeconds
        return (seconds + roundingSeconds / 2) / roundingSeconds * roundingSeconds
    }

    /// The estimated duration of a flight event from the airports in its JSON-LD
    /// (`reservationFor.departureAirport.iataCode`, `arrivalAirport.iataCode`).
    static func duration(_ event: CalendarEvent) -> Int64? {
        guard event.category == .flight, let from = airportCode("departureAirport", in: event.reservationJSON),
            let to = airportCode("arrivalAirport", in: event.reservationJSON)
        else { return nil }
        return duration(from: from, to: to)
    }

    /// The `iataCode` of the object under `"key":{` in compact JSON: three uppercase letters,
    /// read only within that object (strings skipped, braces balanced).
    static func airportCode(_ key: String, in json: String) -> String? {
        let bytes = Array(json.utf8)
        let needle = Array("\"\(key)\":{".utf8)
        guard bytes.count >= needle.count,
            let start = (0...(bytes.count - needle.count)).first(where: { bytes[$0..<$0 + needle.count].elementsEqual(needle) })
        else { return nil }
        var i = start + needle.count
        var depth = 1
        let field = Array("\"iataCode\":\"".utf8)
        while i < bytes.count, depth > 0 {
            switch bytes[i] {
            case UInt8(ascii: "{"): depth += 1
            case UInt8(ascii: "}"): depth -= 1
            case UInt8(ascii: "\""):
                if depth == 1, i + field.count + 4 <= bytes.count, bytes[i..<i + field.count].elementsEqual(field) {
                    let code = bytes[(i + field.count)..<(i + field.count + 3)]
                    guard bytes[i + field.count + 3] == UInt8(ascii: "\""),
                        code.allSatisfy({ $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") })
                    else { return nil }
                    return String(decoding: code, as: UTF8.self)
                }
                // Skip the string, escapes included.
                i += 1
                while i < bytes.count, bytes[i] != UInt8(ascii: "\"") { i += bytes[i] == UInt8(ascii: "\\") ? 2 : 1 }
            default: break
            }
            i += 1
        }
        return nil
    }
}
