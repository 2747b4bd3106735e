import ReservoirBase

/// A date-time from a Date field (RFC 5322 §3.3): the instant and the offset it was written in.
public struct MessageDate: Sendable, Equatable {
    /// Seconds since 1970-01-01T00:00:00Z.
    public internal(set) var epochSeconds: Int64
    /// The written zone's offset east of UTC in seconds (0 for "-0000" and unknown zones).
    public internal(set) var offsetSeconds: Int

    public init(epochSeconds: Int64, offsetSeconds: Int) {
        self.epochSeconds = epochSeconds
        self.offsetSeconds = offsetSeconds
    }

    /// Named zones of RFC 5322 §4.3 plus a few that mailers write anyway, in minutes east of UTC.
    static let zones: [String: Int] = [
        "ut": 0, "utc": 0, "gmt": 0, "z": 0, "wet": 0,
        "est": -300, "edt": -240, "cst": -360, "cdt": -300,
        "mst": -420, "mdt": -360, "pst": -480, "pdt": -420,
        "akst": -540, "akdt": -480, "hst": -600, "ast": -240, "adt": -180, "nst": -210, "ndt": -150,
        "bst": 60, "ist": 60, "cet": 60, "met": 60, "cest": 120, "mest": 120, "eet": 120, "eest": 180,
        "msk": 180, "jst": 540, "kst": 540, "hkt": 480, "sgt": 480, "aest": 600, "aedt": 660,
        "acst": 570, "awst": 480, "nzst": 720, "nzdt": 780,
    ]
    static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// Parses a Date value. Accepts RFC 5322 §3.3 and the obsolete forms of §4.3 (two- and
    /// three-digit years, named and military zones, comments anywhere), a missing day of week,
    /// missing seconds, asctime order ("Mon Jan  2 15:04:05 2006") and ISO 8601 dates some bulk
    /// senders write ("2026-11-22 10:15:00 +0100", "2026-11-22T10:15:00Z"). Nil when no day, month,
    /// year and time can be found or a field is out of range.
    public static func parse<C: Collection>(_ value: C) -> MessageDate? where C.Element == UInt8 {
        let text = StructuredLexer.stripComments(HeaderText.unfold(value))
        let words = text.split { $0 == 0x20 || $0 == 0x09 || $0 == UInt8(ascii: ",") }
        var numbers: [Int] = []
        var numberLengths: [Int] = []
        var month: Int? = nil
        var time: (h: Int, m: Int, s: Int)? = nil
        var offsetMinutes: Int? = nil
        for word in words {
            let first = word[word.startIndex]
            // Not RFC 5322, written by some bulk senders: "2026-11-22" or "2026-11-22T10:15:00Z".
            if month == nil, let iso = isoDate(word) {
                month = iso.month
                numbers = [iso.day, iso.year]
                numberLengths = [2, 4]
                if let rest = iso.rest, !rest.isEmpty {
                    var timeText = rest
                    if timeText.last == UInt8(ascii: "Z") || timeText.last == UInt8(ascii: "z") {
                        timeText.removeLast()
                        offsetMinutes = 0
                    } else if let sign = timeText.lastIndex(where: { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") }) {
                        let digits = timeText[(sign + 1)...].filter { $0 != UInt8(ascii: ":") }
                        if digits.count == 4, let v = number(digits), v % 100 < 60 {
                            let minutes = (v / 100) * 60 + v % 100
                            offsetMinutes = timeText[sign] == UInt8(ascii: "-") ? -minutes : minutes
                        }
                        timeText = Array(timeText[..<sign])
                    }
                    let parts = timeText.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
                    guard parts.count == 2 || parts.count == 3, let h = number(parts[0]), let m = number(parts[1]) else { return nil }
                    let s = parts.count == 3 ? number(parts[2].prefix { $0 != UInt8(ascii: ".") }) : 0
                    guard let s, h < 24, m < 60, s <= 60 else { return nil }
                    time = (h, m, min(s, 59))
                }
                continue
            }
            if first == UInt8(ascii: "+") || first == UInt8(ascii: "-"), time != nil, offsetMinutes == nil {
                let digits = word.dropFirst().filter { $0 != UInt8(ascii: ":") }
                guard digits.count == 4, digits.allSatisfy(ASCII.isDigit), let v = Int(String(decoding: digits, as: UTF8.self)) else { continue }
                let minutes = (v / 100) * 60 + v % 100
                guard v % 100 < 60 else { return nil }
                offsetMinutes = first == UInt8(ascii: "-") ? -minutes : minutes
            } else if word.contains(UInt8(ascii: ":")) {
                guard time == nil else { continue }
                let parts = word.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
                guard parts.count == 2 || parts.count == 3,
                    let h = number(parts[0]), let m = number(parts[1])
                else { return nil }
                let s = parts.count == 3 ? number(parts[2]) : 0
                guard let s, h < 24, m < 60, s <= 60 else { return nil }
                time = (h, m, min(s, 59))  // a leap second is read as :59
            } else if word.allSatisfy(ASCII.isDigit) {
                if let v = number(word) {
                    numbers.append(v)
                    numberLengths.append(word.count)
                }
            } else if word.allSatisfy(ASCII.isLetter) {
                let lower = String(decoding: word, as: UTF8.self).lowercased()
                if month == nil, time == nil, lower.count >= 3, let index = months.firstIndex(of: String(lower.prefix(3))),
                    lower.count == 3 || lower.hasPrefix(fullMonthPrefix(index))
                {
                    month = index + 1
                } else if time != nil, offsetMinutes == nil {
                    offsetMinutes = zoneOffset(lower)
                }
                // Otherwise a day name (RFC 5322 §3.3 day-of-week is informational).
            } else if time != nil, offsetMinutes == nil, let firstAlpha = word.first, ASCII.isLetter(firstAlpha) {
                // "EST5EDT": the standard-time abbreviation leads.
                let letters = String(decoding: word.prefix(while: ASCII.isLetter), as: UTF8.self).lowercased()
                offsetMinutes = zoneOffset(letters)
            }
            // Anything else ("Tue.", stray punctuation) is ignored.
        }
        var day: Int
        var year: Int
        var yearLength: Int
        if let month {
            guard numbers.count >= 2 else { return nil }
            day = numbers[0]
            year = numbers[1]
            yearLength = numberLengths[1]
            if day > 31, year <= 31 {
                swap(&day, &year)
                yearLength = numberLengths[0]
            }
            return make(year: year, yearLength: yearLength, month: month, day: day, time: time, offset: offsetMinutes)
        }
        // All-numeric "day month year".
        guard numbers.count >= 3 else { return nil }
        return make(year: numbers[2], yearLength: numberLengths[2], month: numbers[1], day: numbers[0], time: time, offset: offsetMinutes)
    }

    /// "YYYY-MM-DD" optionally followed by "T" and the rest of an ISO 8601 date-time.
    private static func isoDate(_ word: ArraySlice<UInt8>) -> (year: Int, month: Int, day: Int, rest: [UInt8]?)? {
        let w = Array(word)
        guard w.count >= 10, w[4] == UInt8(ascii: "-"), w[7] == UInt8(ascii: "-"),
            let year = number(w[0..<4]), let month = number(w[5..<7]), let day = number(w[8..<10])
        else { return nil }
        if w.count == 10 { return (year, month, day, nil) }
        guard w[10] == UInt8(ascii: "T") || w[10] == UInt8(ascii: "t") else { return nil }
        return (year, month, day, Array(w[11...]))
    }

    private static func fullMonthPrefix(_ index: Int) -> String {
        ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"][index]
    }

    private static func zoneOffset(_ name: String) -> Int {
        if let known = zones[name] { return known }
        // RFC 5322 §4.3: military zones and unknown zones are read as "-0000" (offset unknown).
        return 0
    }

    private static func make(
        year rawYear: Int, yearLength: Int, month: Int, day: Int,
        time: (h: Int, m: Int, s: Int)?, offset: Int?
    ) -> MessageDate? {
        guard let time else { return nil }
        var year = rawYear
        // RFC 5322 §4.3: two-digit years below 50 are 20xx, others 19xx; three-digit years add 1900.
        if yearLength <= 2 { year += year < 50 ? 2000 : 1900 } else if yearLength == 3 { year += 1900 }
        guard (1...12).contains(month), day >= 1, day <= CivilTime.daysIn(month: month, year: year), year <= 9999 else { return nil }
        let days = CivilTime.daysFromCivil(year: year, month: month, day: day)
        let offsetSeconds = (offset ?? 0) * 60
        let local = days * 86_400 + Int64(time.h * 3600 + time.m * 60 + time.s)
        return MessageDate(epochSeconds: local - Int64(offsetSeconds), offsetSeconds: offsetSeconds)
    }

    private static func number<C: Collection>(_ digits: C) -> Int? where C.Element == UInt8 {
        guard !digits.isEmpty, digits.count <= 9, digits.allSatisfy(ASCII.isDigit) else { return nil }
        return digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }

}
