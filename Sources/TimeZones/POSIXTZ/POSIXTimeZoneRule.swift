internal import ReservoirBase

/// The POSIX TZ string of a TZif footer (RFC 8536 §3.3): local time after the last transition,
/// such as `CET-1CEST,M3.5.0,M10.5.0/3`. Accepted: a standard name and offset, optionally a
/// daylight name, offset (default one hour ahead) and a rule of two dates with times; names
/// alphabetic or `<…>`-quoted, offsets up to 24 hours, rule times from -167 to 167 hours
/// (RFC 8536 §3.3.1). Rejected: anything else, trailing bytes included.
public struct POSIXTimeZoneRule: Equatable, Sendable {
    /// A day of the year on which daylight saving time starts or ends (POSIX TZ `date`).
    public enum RuleDate: Equatable, Sendable {
        /// `Jn`: day 1–365, 29 February never counted.
        case julianNoLeap(Int)
        /// `n`: day 0–365, 29 February counted.
        case zeroBased(Int)
        /// `Mm.w.d`: weekday `d` (0 = Sunday) of week `w` (1–5, 5 = last) of month `m`.
        case monthWeekDay(month: Int, week: Int, weekday: Int)
    }

    /// Daylight saving time and when it applies.
    public struct Daylight: Equatable, Sendable {
        public let type: LocalTimeType
        public let start: RuleDate
        /// Seconds after local midnight (standard time) of `start` when it begins.
        public let startTime: Int32
        public let end: RuleDate
        /// Seconds after local midnight (daylight time) of `end` when it ends.
        public let endTime: Int32
    }

    public let standard: LocalTimeType
    public let daylight: Daylight?

    /// Reads a TZ string; `invalid-rule` with the byte offset when it breaks the grammar.
    public init(parsing text: some Collection<UInt8>) throws(TimeZoneError) {
        var cursor = POSIXTZCursor(Array(text))
        guard cursor.bytes.count <= TimeZoneLimits.maximumFooterBytes else { throw TimeZoneError(.invalidFooter, "TZ string too long") }
        let standardName = try cursor.name()
        let standardOffset = try cursor.offset()
        standard = LocalTimeType(utcOffsetSeconds: -standardOffset, isDST: false, abbreviation: standardName)
        if cursor.atEnd {
            daylight = nil
            return
        }
        let daylightName = try cursor.name()
        // POSIX: without an offset, daylight time is one hour ahead of standard time.
        let daylightOffset = cursor.peek == UInt8(ascii: ",") ? standardOffset - 3600 : try cursor.offset()
        // RFC 8536 §3.3: a TZ string naming daylight time carries its rule.
        try cursor.expect(UInt8(ascii: ","))
        let start = try cursor.ruleDate()
        let startTime = cursor.peek == UInt8(ascii: "/") ? try cursor.ruleTime() : 7200
        try cursor.expect(UInt8(ascii: ","))
        let end = try cursor.ruleDate()
        let endTime = cursor.peek == UInt8(ascii: "/") ? try cursor.ruleTime() : 7200
        guard cursor.atEnd else { throw cursor.failure("trailing bytes") }
        daylight = Daylight(
            type: LocalTimeType(utcOffsetSeconds: -daylightOffset, isDST: true, abbreviation: daylightName),
            start: start, startTime: startTime, end: end, endTime: endTime)
    }

    /// Seconds beyond which instants are clamped before the rule is applied (about 142 million
    /// years), so year arithmetic never overflows.
    static let instantBound: Int64 = 1 << 52

    /// The local time type at a Unix time.
    public func type(atUTC instant: Int64) -> LocalTimeType {
        guard daylight != nil else { return standard }
        let t = min(max(instant, -Self.instantBound), Self.instantBound)
        let year = LocalDateTime.civilYear(ofLocalSeconds: t + Int64(standard.utcOffsetSeconds))
        var current = standard
        for change in transitions(year: year - 1) + transitions(year: year) + transitions(year: year + 1) where change.atUTC <= t {
            current = change.after
        }
        return current
    }

    /// The year's two changes, in time order; none without daylight saving time. When a year's
    /// end and the next start fall on the same instant (daylight time all year, RFC 8536 §3.3.1)
    /// the end comes first, so daylight time stays in effect.
    public func transitions(year: Int) -> [TimeZoneTransition] {
        guard let daylight else { return [] }
        let startLocal = Self.day(of: daylight.start, year: year) * 86_400 + Int64(daylight.startTime)
        let endLocal = Self.day(of: daylight.end, year: year) * 86_400 + Int64(daylight.endTime)
        let start = TimeZoneTransition(atUTC: startLocal - Int64(standard.utcOffsetSeconds), before: standard, after: daylight.type)
        let end = TimeZoneTransition(atUTC: endLocal - Int64(daylight.type.utcOffsetSeconds), before: daylight.type, after: standard)
        return start.atUTC < end.atUTC ? [start, end] : [end, start]
    }

    /// Days since 1970-01-01 of a rule date in `year`.
    static func day(of date: RuleDate, year: Int) -> Int64 {
        let january1 = CivilTime.daysFromCivil(year: year, month: 1, day: 1)
        switch date {
        case .julianNoLeap(let n):
            // POSIX: "Jn … Leap days shall not be counted": day 60 is 1 March in every year.
            return january1 + Int64(n - 1) + (CivilTime.isLeapYear(year) && n >= 60 ? 1 : 0)
        case .zeroBased(let n):
            return january1 + Int64(n)
        case .monthWeekDay(let month, let week, let weekday):
            let first = CivilTime.daysFromCivil(year: year, month: month, day: 1)
            var day = 1 + (weekday - Self.weekday(ofDay: first) + 7) % 7 + (week - 1) * 7
            while day > CivilTime.daysIn(month: month, year: year) { day -= 7 }
            return first + Int64(day - 1)
        }
    }

    /// 0 = Sunday; 1970-01-01 was a Thursday.
    static func weekday(ofDay day: Int64) -> Int { Int(((day % 7) + 11) % 7) }
}

extension LocalDateTime {
    /// The civil year of a wall-clock second count.
    static func civilYear(ofLocalSeconds seconds: Int64) -> Int {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        return CivilTime.civilFromDays(days).year
    }
}

/// A cursor over a TZ string's bytes.
struct POSIXTZCursor {
    let bytes: [UInt8]
    var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { index == bytes.count }
    var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    func failure(_ what: String) -> TimeZoneError { TimeZoneError(.invalidRule, "\(what) at byte \(index)") }

    mutating func expect(_ byte: UInt8) throws(TimeZoneError) {
        guard peek == byte else { throw failure("expected '\(Character(Unicode.Scalar(byte)))'") }
        index += 1
    }

    /// POSIX `std`/`dst`: three or more letters, or `<` letters, digits, `+`, `-` `>`.
    mutating func name() throws(TimeZoneError) -> String {
        let start = index
        if peek == UInt8(ascii: "<") {
            index += 1
            let inner = index
            while let byte = peek, ASCII.isLetter(byte) || ASCII.isDigit(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") {
                index += 1
            }
            let name = bytes[inner..<index]
            try expect(UInt8(ascii: ">"))
            guard name.count >= 3 else { throw TimeZoneError(.invalidRule, "name shorter than 3 at byte \(start)") }
            return String(decoding: name, as: UTF8.self)
        }
        while let byte = peek, ASCII.isLetter(byte) { index += 1 }
        guard index - start >= 3 else { throw TimeZoneError(.invalidRule, "name shorter than 3 at byte \(start)") }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    /// POSIX `offset`: `[+-]hh[:mm[:ss]]`, hours 0–24, positive west of Greenwich.
    mutating func offset() throws(TimeZoneError) -> Int32 {
        try signedTime(maximumHours: 24)
    }

    /// A rule's `/time`: hours from -167 to 167 (RFC 8536 §3.3.1).
    mutating func ruleTime() throws(TimeZoneError) -> Int32 {
        try expect(UInt8(ascii: "/"))
        return try signedTime(maximumHours: 167)
    }

    private mutating func signedTime(maximumHours: Int) throws(TimeZoneError) -> Int32 {
        var sign: Int32 = 1
        if peek == UInt8(ascii: "+") {
            index += 1
        } else if peek == UInt8(ascii: "-") {
            sign = -1
            index += 1
        }
        let hours = try number(maxDigits: 3, range: 0...maximumHours)
        var minutes = 0
        var seconds = 0
        if peek == UInt8(ascii: ":") {
            index += 1
            minutes = try number(maxDigits: 2, range: 0...59)
            if peek == UInt8(ascii: ":") {
                index += 1
                seconds = try number(maxDigits: 2, range: 0...59)
            }
        }
        return sign * Int32(hours * 3600 + minutes * 60 + seconds)
    }

    /// `Jn`, `n` or `Mm.w.d`.
    mutating func ruleDate() throws(TimeZoneError) -> POSIXTimeZoneRule.RuleDate {
        switch peek {
        case UInt8(ascii: "J"):
            index += 1
            return .julianNoLeap(try number(maxDigits: 3, range: 1...365))
        case UInt8(ascii: "M"):
            index += 1
            let month = try number(maxDigits: 2, range: 1...12)
            try expect(UInt8(ascii: "."))
            let week = try number(maxDigits: 1, range: 1...5)
            try expect(UInt8(ascii: "."))
            let weekday = try number(maxDigits: 1, range: 0...6)
            return .monthWeekDay(month: month, week: week, weekday: weekday)
        default:
            return .zeroBased(try number(maxDigits: 3, range: 0...365))
        }
    }

    /// One to `maxDigits` decimal digits within `range`.
    private mutating func number(maxDigits: Int, range: ClosedRange<Int>) throws(TimeZoneError) -> Int {
        let start = index
        var value = 0
        while let byte = peek, ASCII.isDigit(byte), index - start < maxDigits {
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
            index += 1
        }
        guard index > start, range.contains(value) else { throw failure("number out of \(range)") }
        return value
    }
}
