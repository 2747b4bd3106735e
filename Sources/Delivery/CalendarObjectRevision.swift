import ReservoirBase

/// What the delivery step reads back from a copy found at a destination: the SEQUENCE of its
/// event (RFC 5545 §3.8.7.4), which orders it against the stored revision.
enum CalendarObjectRevision {
    /// The first VEVENT's SEQUENCE, 0 when the event has none (RFC 5545 §3.8.7.4: "the
    /// default value is 0"); nil when `text` holds no VEVENT (garbage, an empty file).
    static func sequence(of text: String) -> Int? {
        var inEvent = false
        var sequence: Int?
        // Unfolded lines (RFC 5545 §3.1): a line starting with a space or tab continues the last.
        var lines: [Substring] = []
        for raw in text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }) {
            if let first = raw.first, first == " " || first == "\t", !lines.isEmpty {
                continue  // SEQUENCE and the BEGIN/END markers are short and never folded here
            }
            lines.append(raw)
        }
        for line in lines {
            let upper = line.uppercased()
            if upper == "BEGIN:VEVENT" {
                if inEvent { break }
                inEvent = true
                sequence = 0
            } else if upper == "END:VEVENT" {
                break
            } else if inEvent, upper.hasPrefix("SEQUENCE"), let colon = line.firstIndex(of: ":") {
                let name = upper.prefix { $0 != ":" && $0 != ";" }
                guard name == "SEQUENCE" else { continue }
                if let value = Int(line[line.index(after: colon)...].trimmingASCII { $0 == 0x20 }), value >= 0 { sequence = value }
            }
        }
        return inEvent ? sequence : nil
    }
}
