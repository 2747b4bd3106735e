public import TimeZones

/// A DATE or DATE-TIME value (RFC 5545 §3.3.4, §3.3.5) as read, placed on the time line when it
/// can be: UTC (form 2), with a `TZID` (form 3) whose zone is known, or floating (form 1).
public struct ICalendarTime: Sendable, Equatable, CustomStringConvertible {
    public enum Form: Sendable, Equatable {
        /// A DATE: a whole day, no time of day (an all-day event).
        case date
        /// A DATE-TIME without `Z` or `TZID`: wall-clock time wherever the reader is.
        case floating
        /// A DATE-TIME ending in `Z`.
        case utc
        /// A DATE-TIME with `TZID`, its zone known (an IANA name, or the object's VTIMEZONE).
        case zoned(tzid: String)
    }

    /// The value as written, without its parameters.
    public var text: String
    /// The date and time of day as written (midnight for a DATE).
    public var local: LocalDateTime
    public var form: Form
    /// Seconds east of UTC at this time; nil for a DATE and for floating time.
    public var offsetSeconds: Int?
    /// The IANA zone the time was placed in, when the `TZID` names one.
    public var zone: String?

    public init(text: String, local: LocalDateTime, form: Form, offsetSeconds: Int? = nil, zone: String? = nil) {
        self.text = text
        self.local = local
        self.form = form
        self.offsetSeconds = offsetSeconds
        self.zone = zone
    }

    public var isDate: Bool { form == .date }

    /// The instant as Unix seconds; nil for a DATE and for floating time.
    public var epochSeconds: Int64? {
        offsetSeconds.map { local.localSeconds - Int64($0) }
    }

    public var description: String { text }
}

/// RFC 5545 §3.3.4 DATE (`YYYYMMDD`) and §3.3.5 DATE-TIME (`YYYYMMDDTHHMMSS`, `Z` for UTC).
enum DateTimeText {
    struct Read {
        var local: LocalDateTime
        var isDate: Bool
        var isUTC: Bool
    }

    /// The fields of a DATE or DATE-TIME; nil when the text is neither or a field is out of
    /// range. A leap second (`60`) is read as `59` (RFC 5545 §3.3.12 allows it).
    static func read(_ text: String) -> Read? {
        let b = Array(text.utf8)
        guard b.count == 8 || b.count == 15 || b.count == 16 else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for i in range {
                guard b[i] >= 0x30, b[i] <= 0x39 else { return nil }
                value = value * 10 + Int(b[i] - 0x30)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(4..<6), let day = number(6..<8) else { return nil }
        if b.count == 8 {
            guard let local = LocalDateTime(year: year, month: month, day: day) else { return nil }
            return Read(local: local, isDate: true, isUTC: false)
        }
        guard b[8] == 0x54 || b[8] == 0x74, let hour = number(9..<11), let minute = number(11..<13), var second = number(13..<15)
        else { return nil }
        if b.count == 16, b[15] != 0x5A, b[15] != 0x7A { return nil }
        if second == 60 { second = 59 }
        guard year >= 1, let local = LocalDateTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        else { return nil }
        return Read(local: local, isDate: false, isUTC: b.count == 16)
    }
}
