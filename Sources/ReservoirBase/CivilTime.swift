/// Civil-calendar arithmetic without Foundation: the proleptic Gregorian calendar, day counts
/// since 1970-01-01 (H. Hinnant's days-from-civil and civil-from-days algorithms) and the
/// fixed-width texts of ISO 8601 and RFC 5545.
package enum CivilTime {
    /// Whether `year` has a 29 February.
    @inlinable
    package static func isLeapYear(_ year: Int) -> Bool {
        (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    }

    /// The number of days in `month` (1–12) of `year`.
    @inlinable
    package static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a civil date (negative before it). The fields are not checked:
    /// a day past the end of its month counts on into the next.
    @inlinable
    package static func daysFromCivil(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let m = Int64(month)
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The civil date of a day count since 1970-01-01.
    package static func civilFromDays(_ days: Int64) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (Int(m <= 2 ? y + 1 : y), Int(m), Int(d))
    }

    /// Reads `YYYY-MM-DDTHH:MM[:SS]` as if it were UTC; a missing or non-numeric hour, minute
    /// or second counts as 0. Nil when the date's fields are not digits.
    package static func epochSeconds(ofLocal text: String) -> Int64? {
        let digits = Array(text.utf8)
        guard let y = ASCII.decimal(digits, from: 0, count: 4), let mo = ASCII.decimal(digits, from: 5, count: 2),
            let d = ASCII.decimal(digits, from: 8, count: 2)
        else { return nil }
        let h = ASCII.decimal(digits, from: 11, count: 2) ?? 0
        let mi = ASCII.decimal(digits, from: 14, count: 2) ?? 0
        let s = ASCII.decimal(digits, from: 17, count: 2) ?? 0
        return daysFromCivil(year: y, month: mo, day: d) * 86_400 + Int64(h * 3600 + mi * 60 + s)
    }

    /// `YYYYMMDDTHHMMSSZ` for a Unix time (RFC 5545 §3.3.5 form 2).
    package static func utcStamp(_ epoch: Int64) -> String {
        let (y, m, d, secs) = split(epoch)
        return pad(y, 4) + pad(m, 2) + pad(d, 2) + "T" + pad(secs / 3600, 2) + pad(secs / 60 % 60, 2) + pad(secs % 60, 2) + "Z"
    }

    /// `YYYY-MM-DDTHH:MM:SSZ` for a Unix time.
    package static func iso8601UTC(_ epoch: Int64) -> String {
        let (y, m, d, secs) = split(epoch)
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(secs / 3600, 2)):\(pad(secs / 60 % 60, 2)):\(pad(secs % 60, 2))Z"
    }

    /// The decimal digits of `value`, with zeros in front up to `width`.
    package static func pad(_ value: Int, _ width: Int) -> String {
        let s = String(value)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }

    /// The civil date of a Unix time and the seconds into that day (0–86,399).
    private static func split(_ epoch: Int64) -> (year: Int, month: Int, day: Int, seconds: Int) {
        let days = epoch >= 0 ? epoch / 86_400 : (epoch - 86_399) / 86_400
        let (y, m, d) = civilFromDays(days)
        return (y, m, d, Int(epoch - days * 86_400))
    }
}
