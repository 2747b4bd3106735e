public import EventStore
import ReservoirBase

/// The reminder each category's events carry: a display alarm (RFC 5545 §3.6.6) this long
/// before the start (docs/USAGE.md, "iCalendar export"). A flight's check-in alarm is apart.
public struct ReminderSettings: Sendable, Equatable {
    /// Seconds before the start, per category; a category without one has no reminder.
    public var leads: [EventCategory: Int64]

    public init(leads: [EventCategory: Int64]) {
        self.leads = leads
    }

    /// The defaults: a table for two 2 h before, the day before a show, a car to collect or a
    /// flight's check-in, time to reach the airport (3 h) or the station (1 h), the evening
    /// before a hotel stay (18:00 the day before the check-in date, 6 h before it begins).
    public static let standard = ReminderSettings(leads: [
        .food: 2 * 3600,
        .event: 24 * 3600,
        .lodging: 6 * 3600,
        .rentalCar: 24 * 3600,
        .taxi: 30 * 60,
        .flight: 3 * 3600,
        .train: 3600,
        .bus: 3600,
        .boat: 2 * 3600,
    ])

    /// No reminder for any category (`reminders = false`).
    public static let off = ReminderSettings(leads: [:])

    /// The longest lead a setting may give (28 days): longer is a typo more often than a wish.
    public static let maximumLeadSeconds: Int64 = 28 * 86_400

    /// The seconds an RFC 5545 §3.3.6 duration without sign gives (`PT2H`, `PT1H30M`, `P1D`,
    /// `P1W`, `PT0S`), at most ``maximumLeadSeconds``; nil for anything else.
    public static func lead(parsing text: String) -> Int64? {
        var bytes = Array(text.utf8)[...]
        guard bytes.popFirst() == UInt8(ascii: "P"), !bytes.isEmpty, bytes.count <= 24 else { return nil }
        var total: Int64 = 0
        var inTime = false
        var number: Int64?
        var lastUnit = 0
        // Units in the order §3.3.6 writes them: W or D, then after T: H, M, S.
        let units: [(UInt8, Bool, Int64)] = [
            (UInt8(ascii: "W"), false, 604_800), (UInt8(ascii: "D"), false, 86_400), (UInt8(ascii: "H"), true, 3600),
            (UInt8(ascii: "M"), true, 60), (UInt8(ascii: "S"), true, 1),
        ]
        for byte in bytes {
            if byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                let digit = Int64(byte - UInt8(ascii: "0"))
                let value = (number ?? 0) * 10 + digit
                guard value <= maximumLeadSeconds else { return nil }
                number = value
            } else if byte == UInt8(ascii: "T") {
                guard !inTime, number == nil else { return nil }
                inTime = true
            } else if let position = units.firstIndex(where: { $0.0 == byte }) {
                let unit = units[position]
                guard let value = number, unit.1 == inTime, position + 1 > lastUnit else { return nil }
                total += value * unit.2
                guard total <= maximumLeadSeconds else { return nil }
                lastUnit = position + 1
                number = nil
            } else {
                return nil
            }
        }
        guard number == nil, lastUnit > 0 else { return nil }
        return total
    }

    /// `-PT2H`, `-P1D`, `-PT1H30M`, `-PT0S`: `seconds` before the start as a TRIGGER value
    /// (RFC 5545 §3.8.6.3, relative to DTSTART).
    static func trigger(_ seconds: Int64) -> String { "-" + duration(seconds) }

    /// `PT2H`, `P1D`, `PT1H30M`, `PT0S`: `seconds` as an RFC 5545 §3.3.6 duration.
    public static func duration(_ seconds: Int64) -> String {
        if seconds > 0, seconds % 86_400 == 0 { return "P\(seconds / 86_400)D" }
        var text = "PT"
        let (h, m, s) = (seconds / 3600, seconds % 3600 / 60, seconds % 60)
        if h > 0 { text += "\(h)H" }
        if m > 0 { text += "\(m)M" }
        if s > 0 || seconds == 0 { text += "\(s)S" }
        return text
    }
}
