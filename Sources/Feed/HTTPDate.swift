import ReservoirBase

/// HTTP dates (RFC 7231 §7.1.1.1): written as IMF-fixdate, read in all three formats a recipient
/// must accept (IMF-fixdate, the obsolete RFC 850 form and asctime), always in GMT.
public enum HTTPDate {
    static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    static let longWeekdays = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `Sun, 06 Nov 1994 08:49:37 GMT` for Unix time `epoch`.
    public static func format(_ epoch: Int64) -> String {
        let days = floorDivide(epoch, 86_400)
        let seconds = Int(epoch - days * 86_400)
        let date = CivilTime.civilFromDays(days)
        // 1970-01-01 was a Thursday.
        let weekday = Int(((days % 7) + 7 + 4) % 7)
        return "\(weekdays[weekday]), \(CivilTime.pad(date.day, 2)) \(months[date.month - 1]) \(CivilTime.pad(date.year, 4)) "
            + "\(CivilTime.pad(seconds / 3600, 2)):\(CivilTime.pad(seconds / 60 % 60, 2)):\(CivilTime.pad(seconds % 60, 2)) GMT"
    }

    /// Unix time of an HTTP-date in any of the three formats, or nil when it is not one. The
    /// weekday is read but not checked against the date (RFC 7231 §7.1.1.1 asks recipients to be
    /// tolerant); RFC 850's two-digit year is taken as 19xx or 20xx, whichever is nearer.
    public static func parse(_ text: String) -> Int64? {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        // IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT
        if words.count == 6, words[0].hasSuffix(","), weekdays.contains(String(words[0].dropLast())), words[5] == "GMT" {
            return epoch(day: words[1], month: words[2], year: words[3], time: words[4], dayDigits: 2)
        }
        // RFC 850: Sunday, 06-Nov-94 08:49:37 GMT
        if words.count == 4, words[0].hasSuffix(","), longWeekdays.contains(String(words[0].dropLast())), words[3] == "GMT" {
            let parts = words[1].split(separator: "-", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 3, parts[2].count == 2, let short = Int(parts[2]) else { return nil }
            return epoch(day: parts[0], month: parts[1], year: String(short < 70 ? 2000 + short : 1900 + short), time: words[2], dayDigits: 2)
        }
        // asctime: Sun Nov  6 08:49:37 1994
        if words.count == 5, weekdays.contains(words[0]) {
            return epoch(day: words[2], month: words[1], year: words[4], time: words[3], dayDigits: nil)
        }
        return nil
    }

    private static func epoch(day: String, month: String, year: String, time: String, dayDigits: Int?) -> Int64? {
        guard let monthIndex = months.firstIndex(of: month), year.count == 4, let yearValue = Int(year),
            day.utf8.allSatisfy(ASCII.isDigit), year.utf8.allSatisfy(ASCII.isDigit),
            dayDigits.map({ day.count == $0 }) ?? (day.count == 1 || day.count == 2), let dayValue = Int(day)
        else { return nil }
        let clock = time.split(separator: ":", omittingEmptySubsequences: false)
        guard clock.count == 3, clock.allSatisfy({ $0.count == 2 && $0.utf8.allSatisfy(ASCII.isDigit) }),
            let hour = Int(clock[0]), let minute = Int(clock[1]), let second = Int(clock[2]),
            hour < 24, minute < 60, second <= 60,
            (1...12).contains(monthIndex + 1), dayValue >= 1, dayValue <= CivilTime.daysIn(month: monthIndex + 1, year: yearValue)
        else { return nil }
        let days = CivilTime.daysFromCivil(year: yearValue, month: monthIndex + 1, day: dayValue)
        return days * 86_400 + Int64(hour * 3600 + minute * 60 + min(second, 59))
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        a >= 0 ? a / b : -((-a + b - 1) / b)
    }
}
