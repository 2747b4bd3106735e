import ReservoirBase

/// Reads the dates and times senders write that are not ISO 8601, after the strict reading
/// (``DateTimeValue/init(parsing:)``) failed: one pass over the bytes, every repair named
/// (``DateTimeRepair``), every refusal given a reason (``DateTimeRefusal``). Never traps.
///
/// Grammar (white space is spaces and tabs; see docs/USAGE.md, "Dates senders write"):
///
///     value  = date [ (T | t | ws) time [ [ws] zone ] ]
///     date   = YYYY-MM-DD | YYYY/MM/DD | N sep N sep YYYY        ; N: 1–2 digits, sep: - / .
///     time   = H[H]:MM [ :SS [ (. | ,) digits ] ] [ [ws] (AM | PM | a.m. | p.m.) ]   ; any case
///     zone   = (Z | z) | offset [ Z | z ] [ "[" name "]" ] | "[" name "]" | UTC | GMT | UT
///            | area/location… (IANA) | 2–5 capital letters (abbreviation)
///     offset = (+ | -) H[H] [ [:] MM ]
///
/// A numeric date with day and month both 12 or less, different and not written with dots is
/// ``DateTimeReading/ambiguous(_:)``: the caller decides from evidence (``DayMonthEvidence``).
public enum SenderDateTimeParser {
    /// Longest text read (an IANA name such as `America/Argentina/ComodRivadavia` after a
    /// date-time with fractional seconds fits); longer values are not dates.
    public static let maximumLength = 96
    /// Longest zone name or abbreviation read.
    static let maximumZoneNameLength = 48
    /// The first part of every IANA time zone name (tzdata's continents and oceans, and
    /// `Etc`): a word with a slash that starts otherwise is not taken for a zone.
    static let ianaAreas: Set<String> = [
        "Africa", "America", "Antarctica", "Arctic", "Asia", "Atlantic", "Australia", "Europe", "Indian", "Pacific", "Etc",
    ]
    /// Zone words that name offset zero, not a zone with rules.
    static let utcNames: Set<String> = ["UTC", "GMT", "UT"]

    public static func parse(_ input: String) -> DateTimeReading {
        let text = DateTimeValue.trimmed(input)
        let bytes = Array(text.utf8)
        guard bytes.count <= maximumLength else { return .refused(.tooLong) }
        var parser = Parser(bytes: bytes)
        return parser.value(text: text)
    }

    /// Where a numeric date's day and month came from.
    enum DateOrder {
        /// Settled by the text (ISO order, a number over 12, dots, day equal to month).
        case settled(month: Int, day: Int)
        /// Day-first and month-first both possible.
        case either(first: Int, second: Int)
    }

    struct Parser {
        let bytes: [UInt8]
        var index = 0
        var repairs: [DateTimeRepair] = []

        init(bytes: [UInt8]) {
            self.bytes = bytes
        }

        var atEnd: Bool { index >= bytes.count }
        var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func take(_ byte: UInt8) -> Bool {
            guard current == byte else { return false }
            index += 1
            return true
        }

        /// Up to `maximum` digits; nil when there are none.
        mutating func number(maximum: Int) -> (value: Int, count: Int)? {
            var value = 0
            var count = 0
            while count < maximum, let b = current, ASCII.isDigit(b) {
                value = value * 10 + Int(b - 0x30)
                count += 1
                index += 1
            }
            return count == 0 ? nil : (value, count)
        }

        mutating func skipDigits() -> Int {
            let start = index
            while let b = current, ASCII.isDigit(b) { index += 1 }
            return index - start
        }

        mutating func skipWhiteSpace() -> Int {
            let start = index
            while let b = current, b == 0x20 || b == 0x09 { index += 1 }
            return index - start
        }

        mutating func value(text: String) -> DateTimeReading {
            guard let (year, written) = readDate() else { return .refused(refusalOfDate()) }
            var order = written
            if case .either(let first, let second) = written {
                // Both numbers 12 or less, but one may be 0: only a reading that is a day counts.
                switch (Self.isDay(year: year, month: second, day: first), Self.isDay(year: year, month: first, day: second)) {
                case (true, true): break
                case (true, false):
                    repairs.append(.dayFirst)
                    order = .settled(month: second, day: first)
                case (false, true):
                    repairs.append(.monthFirst)
                    order = .settled(month: first, day: second)
                case (false, false): return .refused(.impossibleDate)
                }
            }
            if case .settled(let month, let day) = order, !Self.isDay(year: year, month: month, day: day) {
                return .refused(.impossibleDate)
            }
            var clock = Clock()
            if !atEnd {
                switch readTime() {
                case .success(let read): clock = read
                case .failure(let refusal): return .refused(refusal)
                }
            }
            let dateOnly = clock.hour == nil
            let found = repairs
            func make(month: Int, day: Int) -> DateTimeValue {
                DateTimeValue(
                    text: text,
                    civil: DateTimeValue.CivilFields(
                        year: year, month: month, day: day, hour: clock.hour ?? 0, minute: clock.minute, second: clock.second),
                    offset: clock.offset, dateOnly: dateOnly, repairs: found, zoneName: clock.zone)
            }
            switch order {
            case .settled(let month, let day):
                return .read(make(month: month, day: day))
            case .either(let first, let second):
                return .ambiguous(
                    DayMonthReadings(
                        dayFirst: make(month: second, day: first),
                        monthFirst: make(month: first, day: second)))
            }
        }

        static func isDay(year: Int, month: Int, day: Int) -> Bool {
            (1...12).contains(month) && day >= 1 && day <= CivilTime.daysIn(month: month, year: year)
        }

        /// Why a date could not be read: a two-digit year when the text looks like
        /// `02/03/31`, else free text.
        func refusalOfDate() -> DateTimeRefusal {
            var probe = Parser(bytes: bytes)
            guard probe.number(maximum: 2) != nil, let sep = probe.current, sep == 0x2D || sep == 0x2F || sep == 0x2E else {
                return .freeText
            }
            probe.index += 1
            guard probe.number(maximum: 2) != nil, probe.take(sep), let year = probe.number(maximum: 5), year.count == 2,
                probe.atEnd || probe.current == 0x20 || probe.current == 0x54
            else { return .freeText }
            return .twoDigitYear
        }

        /// The year and how day and month were written; nil when this is no numeric date.
        mutating func readDate() -> (year: Int, order: DateOrder)? {
            guard let first = number(maximum: 4) else { return nil }
            if first.count == 4 {
                // ISO 8601 §5.2.1.1 order: year, month, day; `-` (already refused strictly, so
                // an impossible day) or `/`.
                guard let sep = current, sep == 0x2D || sep == 0x2F else { return nil }
                index += 1
                guard let month = number(maximum: 2), month.count == 2, take(sep), let day = number(maximum: 2), day.count == 2 else {
                    return nil
                }
                if sep == 0x2F { repairs.append(.yearFirstSlashes) }
                return (first.value, .settled(month: month.value, day: day.value))
            }
            guard first.count <= 2, let sep = current, sep == 0x2D || sep == 0x2F || sep == 0x2E else { return nil }
            index += 1
            guard let second = number(maximum: 2), take(sep), let year = number(maximum: 4), year.count == 4 else { return nil }
            if let b = current, ASCII.isDigit(b) { return nil }
            let a = first.value
            let b = second.value
            if sep == 0x2E {
                // Dots: day first by convention; a second number over 12 can only be a day.
                if b > 12, a <= 12 {
                    repairs.append(.monthFirst)
                    return (year.value, .settled(month: a, day: b))
                }
                repairs.append(.dayFirstDots)
                return (year.value, .settled(month: b, day: a))
            }
            if a == b {
                repairs.append(.dayEqualsMonth)
                return (year.value, .settled(month: a, day: b))
            }
            if a > 12 {
                repairs.append(.dayFirst)
                return (year.value, .settled(month: b, day: a))
            }
            if b > 12 {
                repairs.append(.monthFirst)
                return (year.value, .settled(month: a, day: b))
            }
            return (year.value, .either(first: a, second: b))
        }

        /// A time of day and what follows it.
        struct Clock {
            var hour: Int?
            var minute = 0
            var second = 0
            var offset: Int?
            var zone: String?
        }

        enum TimeRead {
            case success(Clock)
            case failure(DateTimeRefusal)
        }

        mutating func readTime() -> TimeRead {
            let isoDate = bytes.count >= 4 && bytes[0..<4].allSatisfy(ASCII.isDigit)
            if take(0x54) {
            } else if take(0x74) {
                repairs.append(.lowerCase)
            } else if skipWhiteSpace() > 0 {
                if isoDate, !repairs.contains(.yearFirstSlashes) { repairs.append(.spaceForT) }
            } else {
                return .failure(.freeText)
            }
            var clock = Clock()
            guard let hour = number(maximum: 2), take(0x3A), let minute = number(maximum: 2), minute.count == 2 else {
                return .failure(.freeText)
            }
            if hour.count == 1 { repairs.append(.oneDigitHour) }
            clock.hour = hour.value
            clock.minute = minute.value
            if take(0x3A) {
                guard let second = number(maximum: 2), second.count == 2 else { return .failure(.freeText) }
                clock.second = second.value
                // ISO 8601 §4.2.2.4: a decimal fraction, comma or full stop.
                if take(0x2E) || take(0x2C) {
                    guard skipDigits() > 0 else { return .failure(.freeText) }
                }
            }
            guard hour.value <= 23, minute.value <= 59, clock.second <= 59 else { return .failure(.impossibleTime) }
            var spaced = skipWhiteSpace() > 0
            // A 12-hour clock (`8:00 PM`, `8:00pm`, `8:00 p.m.`): 12 AM is midnight, 12 PM noon.
            if let afternoon = readMeridiem() {
                guard (1...12).contains(hour.value) else { return .failure(.impossibleTime) }
                clock.hour = hour.value % 12 + (afternoon ? 12 : 0)
                repairs.append(.twelveHourClock)
                spaced = skipWhiteSpace() > 0
            }
            if atEnd { return spaced ? .failure(.freeText) : .success(clock) }
            if let failure = readZone(into: &clock, spaced: spaced) { return .failure(failure) }
            return atEnd ? .success(clock) : .failure(.freeText)
        }

        /// `AM`, `PM`, `a.m.`, `p.m.` in any case, ending the word: true for the afternoon, nil
        /// (nothing read) otherwise. `AMT` and other words starting so are left to the zone reader.
        mutating func readMeridiem() -> Bool? {
            let start = index
            guard let first = current, first | 0x20 == 0x61 || first | 0x20 == 0x70 else { return nil }
            index += 1
            let dotted = take(0x2E)
            guard let m = current, m | 0x20 == 0x6D else {
                index = start
                return nil
            }
            index += 1
            if dotted, !take(0x2E) {
                index = start
                return nil
            }
            if let next = current, ASCII.isLetter(next) || ASCII.isDigit(next) {
                index = start
                return nil
            }
            return first | 0x20 == 0x70
        }

        /// What follows the time: `Z`, an offset (and a stray `Z`, an RFC 9557 `[zone]`), a UTC
        /// word, an IANA name or an abbreviation. Returns why it is refused, nil when read.
        mutating func readZone(into clock: inout Clock, spaced: Bool) -> DateTimeRefusal? {
            if current == 0x2B || current == 0x2D {
                if spaced { repairs.append(.spaceBeforeOffset) }
                switch readOffset() {
                case .success(let offset): clock.offset = offset
                case .failure(let refusal): return refusal
                }
                if take(0x5A) || take(0x7A) { repairs.append(.zAfterOffset) }
                if current == 0x5B { return readBracketedZone(into: &clock, keepOffset: true) }
                return nil
            }
            if current == 0x5B { return readBracketedZone(into: &clock, keepOffset: false) }
            if !spaced, take(0x5A) || take(0x7A) {
                // Only reached with something after the Z (the strict reading took the rest).
                if bytes[index - 1] == 0x7A { repairs.append(.lowerCase) }
                clock.offset = 0
                return nil
            }
            let start = index
            while let b = current, ASCII.isLetter(b) || ASCII.isDigit(b) || b == 0x2F || b == 0x5F || b == 0x2D || b == 0x2B {
                index += 1
            }
            guard index > start, index - start <= maximumZoneNameLength else { return .freeText }
            let word = String(decoding: bytes[start..<index], as: UTF8.self)
            return name(word, into: &clock, keepOffset: false)
        }

        /// RFC 9557 §4.1 time-zone annotation: `[Europe/Berlin]` (a leading `!` marks it critical).
        mutating func readBracketedZone(into clock: inout Clock, keepOffset: Bool) -> DateTimeRefusal? {
            index += 1
            _ = take(0x21)
            let start = index
            while let b = current, b != 0x5D { index += 1 }
            guard take(0x5D), index - 1 > start, index - 1 - start <= maximumZoneNameLength else { return .freeText }
            let word = String(decoding: bytes[start..<(index - 1)], as: UTF8.self)
            return name(word, into: &clock, keepOffset: keepOffset)
        }

        /// A zone word: UTC and GMT are offset zero; an IANA name or an abbreviation is kept as
        /// the zone's name with wall-clock time (no zone rules are applied).
        mutating func name(_ word: String, into clock: inout Clock, keepOffset: Bool) -> DateTimeRefusal? {
            if Self.isIANAName(word) {
                clock.zone = word
                repairs.append(.zoneName)
                if !keepOffset { clock.offset = nil }
                return nil
            }
            if keepOffset { return .freeText }
            if utcNames.contains(word) {
                clock.offset = 0
                repairs.append(.utcName)
                return nil
            }
            if (2...5).contains(word.utf8.count), word.utf8.allSatisfy({ $0 >= 0x41 && $0 <= 0x5A }) {
                clock.zone = word
                repairs.append(.zoneAbbreviation)
                return nil
            }
            return .freeText
        }

        /// `Area/Location[/Sub]` with a tzdata area, each part starting with a letter and
        /// holding letters, digits, `_`, `-` or `+` (`Etc/GMT+5`, `America/Port-au-Prince`).
        static func isIANAName(_ word: String) -> Bool {
            let parts = word.utf8.split(separator: 0x2F, omittingEmptySubsequences: false)
            guard parts.count >= 2, let area = parts.first, ianaAreas.contains(String(decoding: area, as: UTF8.self)) else {
                return false
            }
            for part in parts.dropFirst() {
                guard let first = part.first, ASCII.isLetter(first),
                    part.allSatisfy({ ASCII.isLetter($0) || ASCII.isDigit($0) || $0 == 0x5F || $0 == 0x2D || $0 == 0x2B })
                else { return false }
            }
            return true
        }

        enum OffsetRead {
            case success(Int)
            case failure(DateTimeRefusal)
        }

        /// `±H`, `±HH`, `±H:MM`, `±HH:MM`, `±HMM`, `±HHMM`.
        mutating func readOffset() -> OffsetRead {
            let sign = current == 0x2D ? -1 : 1
            index += 1
            guard let digits = number(maximum: 4) else { return .failure(.freeText) }
            var hours: Int
            var minutes = 0
            var hourDigits: Int
            if take(0x3A) {
                guard digits.count <= 2, let m = number(maximum: 2), m.count == 2 else { return .failure(.freeText) }
                hours = digits.value
                hourDigits = digits.count
                minutes = m.value
            } else {
                switch digits.count {
                case 1, 2:
                    hours = digits.value
                    hourDigits = digits.count
                default:
                    hours = digits.value / 100
                    minutes = digits.value % 100
                    hourDigits = digits.count - 2
                    repairs.append(.offsetWithoutColon)
                }
            }
            if hourDigits == 1 { repairs.append(.oneDigitOffsetHour) }
            guard hours <= 23, minutes <= 59 else { return .failure(.impossibleTime) }
            return .success(sign * (hours * 3600 + minutes * 60))
        }
    }
}
