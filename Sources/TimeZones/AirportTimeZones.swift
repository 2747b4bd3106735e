internal import Glibc

/// The time zone of an airport from its IATA location code, from the `airportsdata` table
/// compiled into `Resources/AirportTable.swift` (scripts/airport-zones). The table is two string
/// literals in the binary's read-only data: nothing is built or read at start-up.
public enum AirportTimeZones {
    /// Bytes per record: three code letters and four hex digits.
    static let recordBytes = 7

    /// The tz zone name of the airport `iata` (three uppercase ASCII letters, such as `ZRH`), or
    /// nil for anything else and for codes the table does not hold.
    public static func zoneName(iata: String) -> String? {
        guard let index = index(iata: iata) else { return nil }
        return records.withUTF8Buffer { table -> String? in
            let at = index * recordBytes
            guard at + recordBytes <= table.count else { return nil }
            return zone(atHex: table[(at + 3)..<(at + 7)])
        }
    }

    /// The great-circle distance between two airports of the table, by IATA code; nil when
    /// either is not in it.
    public static func kilometres(from origin: String, to destination: String) -> Double? {
        guard let a = index(iata: origin), let b = index(iata: destination), let from = position(a), let to = position(b) else { return nil }
        return greatCircle(from.latitude, from.longitude, to.latitude, to.longitude)
    }

    /// The latitude and longitude of the airport at `index`, degrees.
    static func position(_ index: Int) -> (latitude: Double, longitude: Double)? {
        positions.withUTF8Buffer { table in
            let at = index * positionBytes
            guard index < recordCount, at + positionBytes <= table.count, let lat = hex(table[at..<(at + 4)]),
                let lon = hex(table[(at + 4)..<(at + 8)])
            else { return nil }
            return (Double(lat - 9_000) / 100, Double(lon - 18_000) / 100)
        }
    }

    /// The record number of `iata` (three uppercase ASCII letters), by binary search.
    static func index(iata: String) -> Int? {
        var code: (UInt8, UInt8, UInt8) = (0, 0, 0)
        var count = 0
        for byte in iata.utf8 {
            guard count < 3, byte >= UInt8(ascii: "A"), byte <= UInt8(ascii: "Z") else { return nil }
            switch count {
            case 0: code.0 = byte
            case 1: code.1 = byte
            default: code.2 = byte
            }
            count += 1
        }
        guard count == 3 else { return nil }
        return records.withUTF8Buffer { table -> Int? in
            var low = 0
            var high = min(recordCount, table.count / recordBytes)
            while low < high {
                let middle = (low + high) / 2
                let at = middle * recordBytes
                let key = (table[at], table[at + 1], table[at + 2])
                if key == code { return middle }
                if key < code { low = middle + 1 } else { high = middle }
            }
            return nil
        }
    }

    /// The name at the offset the four hex digits give, up to its newline.
    private static func zone(atHex digits: Slice<UnsafeBufferPointer<UInt8>>) -> String? {
        var offset = 0
        for digit in digits {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): offset = offset << 4 | Int(digit - UInt8(ascii: "0"))
            case UInt8(ascii: "A")...UInt8(ascii: "F"): offset = offset << 4 | Int(digit - UInt8(ascii: "A") + 10)
            default: return nil
            }
        }
        return zoneNames.withUTF8Buffer { names -> String? in
            guard offset < names.count, let end = names[offset...].firstIndex(of: UInt8(ascii: "\n")) else { return nil }
            return String(decoding: names[offset..<end], as: UTF8.self)
        }
    }
}

/// An airport of the table near a point: its code, zone, and distance.
public struct NearbyAirport: Sendable, Equatable {
    public var iata: String
    public var zone: String
    public var kilometres: Double
}

extension AirportTimeZones {
    /// Bytes per position: latitude and longitude, 4 hex digits each.
    static let positionBytes = 8
    /// Mean Earth radius (IUGG), for great-circle distances.
    static let earthRadiusKilometres = 6371.0088

    /// The airports within `kilometres` of a point (degrees, WGS 84), nearest first, at most
    /// `limit` of them. A point outside ±90°/±180° has none. One pass over the table's 8-byte
    /// positions; only airports inside the latitude band are measured.
    public static func airports(nearLatitude latitude: Double, longitude: Double, within kilometres: Double, limit: Int) -> [NearbyAirport] {
        guard latitude.isFinite, longitude.isFinite, abs(latitude) <= 90, abs(longitude) <= 180, kilometres > 0, limit > 0 else { return [] }
        let band = kilometres / 111.0 + 0.01
        var found: [(index: Int, kilometres: Double)] = []
        positions.withUTF8Buffer { table in
            let count = min(recordCount, table.count / positionBytes)
            for index in 0..<count {
                let at = index * positionBytes
                guard let lat = hex(table[at..<(at + 4)]), let lon = hex(table[(at + 4)..<(at + 8)]) else { continue }
                let airportLatitude = Double(lat - 9_000) / 100
                guard abs(airportLatitude - latitude) <= band else { continue }
                let distance = greatCircle(latitude, longitude, airportLatitude, Double(lon - 18_000) / 100)
                if distance <= kilometres { found.append((index, distance)) }
            }
        }
        found.sort { $0.kilometres < $1.kilometres }
        return records.withUTF8Buffer { table in
            found.prefix(limit).compactMap { entry -> NearbyAirport? in
                let at = entry.index * recordBytes
                guard at + recordBytes <= table.count else { return nil }
                let code = String(decoding: table[at..<(at + 3)], as: UTF8.self)
                guard let zone = zoneName(iata: code) else { return nil }
                return NearbyAirport(iata: code, zone: zone, kilometres: entry.kilometres)
            }
        }
    }

    /// Four uppercase hex digits.
    private static func hex(_ digits: Slice<UnsafeBufferPointer<UInt8>>) -> Int? {
        var value = 0
        for digit in digits {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = value << 4 | Int(digit - UInt8(ascii: "0"))
            case UInt8(ascii: "A")...UInt8(ascii: "F"): value = value << 4 | Int(digit - UInt8(ascii: "A") + 10)
            default: return nil
            }
        }
        return value
    }

    /// The haversine distance between two points in degrees.
    static func greatCircle(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let radians = Double.pi / 180
        let dLat = (lat2 - lat1) * radians
        let dLon = (lon2 - lon1) * radians
        let a = sin(dLat / 2) * sin(dLat / 2) + cos(lat1 * radians) * cos(lat2 * radians) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * earthRadiusKilometres * asin(min(1, a.squareRoot()))
    }
}
