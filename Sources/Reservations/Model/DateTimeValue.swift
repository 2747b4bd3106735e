/// An ISO 8601 date or date-time as schema.org markup writes it (schema.org `Date` /
/// `DateTime`, which follow ISO 8601; RFC 3339 §5.6 is the profile most senders use).
///
/// Accepted: `YYYY-MM-DD`; `YYYY-MM-DDTHH:MM`, `…:SS`, `…:SS.fraction` (`.` or `,`), with `T`,
/// `t` or a single space between date and time; an optional offset `Z`, `±HH:MM`, `±HHMM` or
/// `±HH`. Every field is range-checked (month, day of that month, hour 00–23, minute and second
/// 00–59, offset hours 00–23). Anything else yields nil; parsing never traps.
public struct DateTimeValue: Sendable, Equatable, CustomStringConvertible {
    /// The text as written (surrounding whitespace removed).
    public let text: String
    /// Civil date and time as written, `YYYY-MM-DDTHH:MM:SS` (`T00:00:00` for a date).
    public let local: String
    /// Seconds east of UTC; nil when the text gives no offset (wall-clock, "floating" time).
    public let offsetSeconds: Int?
    /// The instant as Unix seconds; nil when the text gives no offset.
    public let epochSeconds: Int64?
    /// True for a calendar date without a time of day.
    public let isDateOnly: Bool

    /// Longest text considered; longer values are not dates (a fraction of 30 digits is noise).
    public static let maximumLength = 64

    public var description: String { text }

    /// `YYYY-MM-DD` of the civil date.
    public var date: String { String(local.prefix(10)) }

    /// The wall-clock time read as if it were UTC: orders floating times, and with
    /// ``offsetSeconds`` gives ``epochSeconds``.
    public var localEpochSeconds: Int64 {
        let fields = local.utf8.map { Int($0) - 0x30 }
        func n(_ from: Int, _ count: Int) -> Int { fields[from..<(from + count)].reduce(0) { $0 * 10 + $1 } }
        let days = Self.daysFromCivil(year: n(0, 4), month: n(5, 2), day: n(8, 2))
        return days * 86_400 + Int64(n(11, 2) * 3600 + n(14, 2) * 60 + n(17, 2))
    }

    public init?(parsing input: String) {
        let text = Self.trimmed(input)
        let b = Array(text.utf8)
        guard b.count >= 10, b.count <= Self.maximumLength else { return nil }
        var cursor = Cursor(bytes: b)

        // ISO 8601 §5.2.1.1 complete calendar date, extended format.
        guard let year = cursor.digits(4), cursor.take(0x2D),
              let month = cursor.digits(2), cursor.take(0x2D),
              let day = cursor.digits(2) else { return nil }
        guard (1...12).contains(month), day >= 1, day <= Self.daysIn(month: month, year: year) else { return nil }

        var hour = 0, minute = 0, second = 0
        var offset: Int?
        let dateOnly = cursor.atEnd
        if !dateOnly {
            // RFC 3339 §5.6 NOTE: a space may replace the "T"; ISO 8601 §4.3.2 uses "T".
            guard cursor.take(0x54) || cursor.take(0x74) || cursor.take(0x20) else { return nil }
            guard let h = cursor.digits(2), cursor.take(0x3A), let m = cursor.digits(2) else { return nil }
            hour = h
            minute = m
            if cursor.take(0x3A) {
                guard let s = cursor.digits(2) else { return nil }
                second = s
                // ISO 8601 §4.2.2.4: a decimal fraction, comma or full stop.
                if cursor.take(0x2E) || cursor.take(0x2C) {
                    guard cursor.skipDigits() > 0 else { return nil }
                }
            }
            guard hour <= 23, minute <= 59, second <= 59 else { return nil }
            if !cursor.atEnd {
                guard let o = cursor.offset() else { return nil }
                offset = o
            }
            guard cursor.atEnd else { return nil }
        }

        self.text = text
        self.isDateOnly = dateOnly
        self.local = Self.pad(year, 4) + "-" + Self.pad(month, 2) + "-" + Self.pad(day, 2) + "T"
            + Self.pad(hour, 2) + ":" + Self.pad(minute, 2) + ":" + Self.pad(second, 2)
        self.offsetSeconds = offset
        if let offset {
            let days = Self.daysFromCivil(year: year, month: month, day: day)
            self.epochSeconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offset)
        } else {
            self.epochSeconds = nil
        }
    }

    // MARK: - Calendar arithmetic (proleptic Gregorian, no Foundation)

    static func isLeap(_ year: Int) -> Bool { (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 (H. Hinnant's days-from-civil).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let m = Int64(month)
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func pad(_ value: Int, _ width: Int) -> String {
        let s = String(value)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }

    static func trimmed(_ s: String) -> String {
        // Printable ASCII at both ends (the usual case): nothing to trim, no scalar walk.
        if let first = s.utf8.first, let last = s.utf8.last,
           first > 0x20, first < 0x7F, last > 0x20, last < 0x7F { return s }
        let scalars = s.unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        return String(scalars[first...last])
    }

    /// A read position over ASCII bytes.
    private struct Cursor {
        let bytes: [UInt8]
        var index = 0

        var atEnd: Bool { index == bytes.count }

        mutating func take(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        mutating func digits(_ count: Int) -> Int? {
            guard index + count <= bytes.count else { return nil }
            var value = 0
            for b in bytes[index..<(index + count)] {
                guard b >= 0x30, b <= 0x39 else { return nil }
                value = value * 10 + Int(b - 0x30)
            }
            index += count
            return value
        }

        mutating func skipDigits() -> Int {
            let start = index
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 { index += 1 }
            return index - start
        }

        /// RFC 3339 §5.6 time-offset (`Z` / `±HH:MM`), plus ISO 8601 §4.2.5.1 basic `±HHMM` and `±HH`.
        mutating func offset() -> Int? {
            if take(0x5A) || take(0x7A) { return 0 }
            let sign: Int
            if take(0x2B) { sign = 1 } else if take(0x2D) { sign = -1 } else { return nil }
            guard let hours = digits(2), hours <= 23 else { return nil }
            var minutes = 0
            if take(0x3A) {
                guard let m = digits(2) else { return nil }
                minutes = m
            } else if !atEnd {
                guard let m = digits(2) else { return nil }
                minutes = m
            }
            guard minutes <= 59 else { return nil }
            return sign * (hours * 3600 + minutes * 60)
        }
    }
}
