/// The time zone of an airport from its IATA location code, from the `airportsdata` table
/// compiled into `Resources/AirportTable.swift` (scripts/airport-zones). The table is two string
/// literals in the binary's read-only data: nothing is built or read at start-up.
public enum AirportTimeZones {
    /// Bytes per record: three code letters and four hex digits.
    static let recordBytes = 7

    /// The tz zone name of the airport `iata` (three uppercase ASCII letters, such as `ZRH`), or
    /// nil for anything else and for codes the table does not hold.
    public static func zoneName(iata: String) -> String? {
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
        return records.withUTF8Buffer { table -> String? in
            var low = 0
            var high = min(recordCount, table.count / recordBytes)
            while low < high {
                let middle = (low + high) / 2
                let at = middle * recordBytes
                let key = (table[at], table[at + 1], table[at + 2])
                if key == code { return zone(atHex: table[(at + 3)..<(at + 7)]) }
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
