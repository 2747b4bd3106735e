import ReservoirBase

/// An ISO 8601 date or date-time as schema.org markup writes it (schema.org `Date` /
/// `DateTime`, which follow ISO 8601; RFC 3339 §5.6 is the profile most senders use).
///
/// Accepted: `YYYY-MM-DD`; `YYYY-MM-DDTHH:MM`, `…:SS`, `…:SS.fraction` (`.` or `,`), with `T`,
/// `t` or a single space between date and time; an optional offset `Z`, `±HH:MM`, `±HHMM` or
/// `±HH`. Every field is range-checked (month, day of that month, hour 00–23, minute and second
/// 00–59, offset hours 00–23). Anything else yields nil; parsing never traps. This is the fast
/// path; ``DateTimeReading/read(_:)`` tries the forms of ``SenderDateTimeParser`` after it.
public struct DateTimeValue: Sendable, Equatable, CustomStringConvertible {
    /// The text as written (surrounding whitespace removed).
    public let text: String
    /// Civil date and time as written, `YYYY-MM-DDTHH:MM:SS` (`T00:00:00` for a date); for a
    /// time placed in a zone whose clocks skip it, the wall time clocks show at its instant.
    public internal(set) var local: String
    /// Seconds east of UTC; nil when the text gives no offset and no zone was found
    /// (wall-clock, "floating" time).
    public internal(set) var offsetSeconds: Int?
    /// The instant as Unix seconds; nil for floating time.
    public internal(set) var epochSeconds: Int64?
    /// True for a calendar date without a time of day.
    public let isDateOnly: Bool
    /// What was not strict ISO 8601 but read anyway (`space-for-t`, `offset-without-colon`…);
    /// empty for strict ISO 8601.
    public internal(set) var repairs: [DateTimeRepair]
    /// The IANA zone name or abbreviation written after the time (`Europe/Berlin`, `CET`), as
    /// written; whether it was applied is ``placement``.
    public let zoneName: String?
    /// The zone a time without offset was placed in, and why; nil for a time with its own
    /// offset, a date, and floating time.
    public internal(set) var placement: TimeZonePlacement?
    /// The IANA zone of the place a time with its own offset belongs to (the departure airport,
    /// the station), when that zone's clocks show the written offset at the written instant;
    /// the offset and instant stay as written. A calendar then shows the time in the place's
    /// zone rather than in UTC (RFC 5545 §3.3.5 form 3). Nil otherwise.
    public internal(set) var agreeingZone: String?

    /// Longest text considered; longer values are not dates (a fraction of 30 digits is noise).
    public static let maximumLength = 64

    public var description: String { text }

    /// `YYYY-MM-DD` of the civil date.
    public var date: String { String(local.prefix(10)) }

    /// The wall-clock time read as if it were UTC: orders floating times, and with
    /// ``offsetSeconds`` gives ``epochSeconds``.
    public var localEpochSeconds: Int64 {
        // `local` is always `YYYY-MM-DDTHH:MM:SS` in digits.
        CivilTime.epochSeconds(ofLocal: local) ?? 0
    }

    public init?(parsing input: String) {
        let text = Self.trimmed(input)
        let b = Array(text.utf8)
        guard b.count >= 10, b.count <= Self.maximumLength else { return nil }
        var cursor = Cursor(bytes: b)

        // ISO 8601 §5.2.1.1 complete calendar date, extended format.
        guard let year = cursor.digits(4), cursor.take(0x2D),
            let month = cursor.digits(2), cursor.take(0x2D),
            let day = cursor.digits(2)
        else { return nil }
        guard (1...12).contains(month), day >= 1, day <= CivilTime.daysIn(month: month, year: year) else { return nil }

        var hour = 0
        var minute = 0
        var second = 0
        var offset: Int?
        var repairs: [DateTimeRepair] = []
        let dateOnly = cursor.atEnd
        if !dateOnly {
            // RFC 3339 §5.6 NOTE: a space may replace the "T"; ISO 8601 §4.3.2 uses "T".
            if cursor.take(0x74) {
                repairs.append(.lowerCase)
            } else if cursor.take(0x20) {
                repairs.append(.spaceForT)
            } else {
                guard cursor.take(0x54) else { return nil }
            }
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
                guard let o = cursor.offset(repairs: &repairs) else { return nil }
                offset = o
            }
            guard cursor.atEnd else { return nil }
        }
        self.init(
            text: text, civil: CivilFields(year: year, month: month, day: day, hour: hour, minute: minute, second: second),
            offset: offset, dateOnly: dateOnly, repairs: repairs, zoneName: nil)
    }

    /// A date and time of day, each field already range-checked by the caller.
    struct CivilFields: Equatable {
        var year: Int
        var month: Int
        var day: Int
        var hour = 0
        var minute = 0
        var second = 0
    }

    /// The value of fields already read and checked (the fast path and ``SenderDateTimeParser``).
    init(text: String, civil c: CivilFields, offset: Int?, dateOnly: Bool, repairs: [DateTimeRepair], zoneName: String?) {
        self.text = text
        self.isDateOnly = dateOnly
        self.local =
            CivilTime.pad(c.year, 4) + "-" + CivilTime.pad(c.month, 2) + "-" + CivilTime.pad(c.day, 2) + "T"
            + CivilTime.pad(c.hour, 2) + ":" + CivilTime.pad(c.minute, 2) + ":" + CivilTime.pad(c.second, 2)
        self.offsetSeconds = offset
        self.repairs = repairs
        self.zoneName = zoneName
        self.placement = nil
        self.agreeingZone = nil
        if let offset {
            let days = CivilTime.daysFromCivil(year: c.year, month: c.month, day: c.day)
            self.epochSeconds = days * 86_400 + Int64(c.hour * 3600 + c.minute * 60 + c.second) - Int64(offset)
        } else {
            self.epochSeconds = nil
        }
    }

    static func trimmed(_ s: String) -> String {
        // Printable ASCII at both ends (the usual case): nothing to trim, no scalar walk.
        if let first = s.utf8.first, let last = s.utf8.last,
            first > 0x20, first < 0x7F, last > 0x20, last < 0x7F
        {
            return s
        }
        let scalars = s.unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
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
            guard let value = ASCII.decimal(bytes, from: index, count: count) else { return nil }
            index += count
            return value
        }

        mutating func skipDigits() -> Int {
            let start = index
            while index < bytes.count, ASCII.isDigit(bytes[index]) { index += 1 }
            return index - start
        }

        /// RFC 3339 §5.6 time-offset (`Z` / `±HH:MM`), plus ISO 8601 §4.2.5.1 basic `±HHMM` and `±HH`.
        mutating func offset(repairs: inout [DateTimeRepair]) -> Int? {
            if take(0x5A) { return 0 }
            if take(0x7A) {
                if !repairs.contains(.lowerCase) { repairs.append(.lowerCase) }
                return 0
            }
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
                repairs.append(.offsetWithoutColon)
            }
            guard minutes <= 59 else { return nil }
            return sign * (hours * 3600 + minutes * 60)
        }
    }
}
