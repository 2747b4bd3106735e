public import EventStore
import ReservoirBase

/// Writes stored events as an RFC 5545 iCalendar object.
///
/// Each item of a booking is one VEVENT whose UID is stable across exports and whose
/// SEQUENCE is the store's revision number, so calendar clients replace the old version
/// instead of adding a second event (RFC 5545 §3.8.7.4).
public struct ICalendarWriter: Sendable {
    /// Length at which content lines are folded (RFC 5545 §3.1: "SHOULD NOT be longer than
    /// 75 octets, excluding the line break").
    public static let maxLineOctets = 75
    /// `PRODID` (RFC 5545 §3.7.3).
    public static let productID = "-//Reservoir//Reservoir//EN"

    /// DTSTAMP for every event: when the object was written.
    public let now: Int64

    public init(now: Int64) {
        self.now = now
    }

    public func write(_ events: [StoredEvent]) -> String {
        var lines: [String] = [
            "BEGIN:VCALENDAR",
            "VERSION:2.0",
            "PRODID:\(Self.productID)",
            "CALSCALE:GREGORIAN",
            "METHOD:PUBLISH",
        ]
        for stored in events {
            lines.append(contentsOf: vevent(stored))
        }
        lines.append("END:VCALENDAR")
        return lines.map(Self.fold).joined()
    }

    func vevent(_ stored: StoredEvent) -> [String] {
        let event = stored.event
        var lines = [
            "BEGIN:VEVENT",
            "UID:\(Self.uid(for: event.key))",
            "DTSTAMP:\(CivilTime.utcStamp(now))",
            "SEQUENCE:\(stored.sequence)",
            "STATUS:\(event.status.rawValue)",
            "SUMMARY:\(Self.escape(event.title))",
        ]
        if let start = event.start {
            lines.append("DTSTART\(Self.dateTime(start))")
            if let end = event.end, end.sortKey > start.sortKey {
                lines.append("DTEND\(Self.dateTime(end))")
            }
        }
        if let location = event.location, !location.isEmpty {
            lines.append("LOCATION:\(Self.escape(location))")
        }
        if !event.notes.isEmpty {
            lines.append("DESCRIPTION:\(Self.escape(event.notes))")
        }
        if let url = event.url, !url.isEmpty, !url.contains(where: { $0.isNewline }) {
            // RFC 5545 §3.8.4.6: URL is a URI value, not escaped text.
            lines.append("URL:\(url)")
        }
        lines.append("CATEGORIES:\(Self.escape(event.category.rawValue.uppercased()))")
        lines.append("LAST-MODIFIED:\(CivilTime.utcStamp(stored.updatedAt))")
        lines.append("CREATED:\(CivilTime.utcStamp(stored.createdAt))")
        lines.append("END:VEVENT")
        return lines
    }

    /// A globally unique, stable identifier per item (RFC 5545 §3.8.4.7), built from the
    /// booking and item so it survives re-exports and store rebuilds. Each part keeps ASCII
    /// letters, digits, `.` and `_`; every other byte of its UTF-8 form is written `%XX`, the
    /// `-` that joins the two parts included, so two different keys never share a UID
    /// (`A-B` + `C` and `A` + `B-C` differ, as do `âD` and `อ`).
    public static func uid(for key: EventKey) -> String {
        func clean(_ s: String) -> String {
            var out = ""
            for byte in s.utf8 {
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"):
                    out.unicodeScalars.append(UnicodeScalar(byte))
                default:
                    let hex = String(byte, radix: 16, uppercase: true)
                    out += (hex.count == 1 ? "%0" : "%") + hex
                }
            }
            return out
        }
        return "\(clean(key.container))-\(clean(key.item))@reservoir"
    }

    /// `:20310513T023000Z` for a time with an offset (converted to UTC, RFC 5545 §3.3.5 form 2),
    /// `:20310512T193000` for wall-clock time (form 1, floating).
    static func dateTime(_ time: EventTime) -> String {
        if let epoch = time.epochSeconds {
            return ":" + CivilTime.utcStamp(epoch)
        }
        let digits = time.local.filter { $0.isNumber }
        let padded = digits.count >= 14 ? String(digits.prefix(14)) : digits + String(repeating: "0", count: max(0, 14 - digits.count))
        return ":" + padded.prefix(8) + "T" + padded.dropFirst(8)
    }

    /// RFC 5545 §3.3.11: backslash, semicolon and comma are escaped; line breaks become `\n`.
    public static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        var previousWasCR = false
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case ";": out += "\\;"
            case ",": out += "\\,"
            case "\r": out += "\\n"
            case "\n": if !previousWasCR { out += "\\n" }
            default:
                // Control characters other than HTAB are not allowed in TEXT (§3.3.11).
                if scalar.value < 0x20 && scalar != "\t" || scalar.value == 0x7F { out += " " } else { out.unicodeScalars.append(scalar) }
            }
            previousWasCR = scalar == "\r"
        }
        return out
    }

    /// RFC 5545 §3.1: lines longer than 75 octets are split with CRLF followed by a space,
    /// never inside a UTF-8 sequence. Returns the line with its CRLF.
    static func fold(_ line: String) -> String {
        let bytes = Array(line.utf8)
        if bytes.count <= maxLineOctets { return line + "\r\n" }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + bytes.count / maxLineOctets * 3 + 2)
        var lineLength = 0
        var limit = maxLineOctets
        var i = 0
        while i < bytes.count {
            // Length of the UTF-8 sequence starting here.
            let lead = bytes[i]
            let length = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1
            if lineLength + length > limit {
                out += [0x0D, 0x0A, 0x20]
                lineLength = 0
                limit = maxLineOctets - 1  // the leading space counts
            }
            let end = min(i + length, bytes.count)
            out += bytes[i..<end]
            lineLength += end - i
            i = end
        }
        out += [0x0D, 0x0A]
        return String(decoding: out, as: UTF8.self)
    }
}
