/// Civil-calendar arithmetic without Foundation (proleptic Gregorian, H. Hinnant's
/// days-from-civil algorithm).
public enum CivilTime {
    /// Days since 1970-01-01 of a civil date.
    public static func daysFromCivil(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let m = Int64(month)
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The civil date of a day count since 1970-01-01.
    public static func civilFromDays(_ days: Int64) -> (year: Int, month: Int, day: Int) {
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

    /// Reads `YYYY-MM-DDTHH:MM[:SS]` as if it were UTC.
    public static func epochSeconds(ofLocal text: String) -> Int64? {
        let digits = Array(text.utf8)
        func number(_ from: Int, _ count: Int) -> Int? {
            guard from + count <= digits.count else { return nil }
            var value = 0
            for b in digits[from..<(from + count)] {
                guard b >= 0x30, b <= 0x39 else { return nil }
                value = value * 10 + Int(b - 0x30)
            }
            return value
        }
        guard let y = number(0, 4), let mo = number(5, 2), let d = number(8, 2) else { return nil }
        let h = number(11, 2) ?? 0, mi = number(14, 2) ?? 0, s = number(17, 2) ?? 0
        return daysFromCivil(year: y, month: mo, day: d) * 86_400 + Int64(h * 3600 + mi * 60 + s)
    }

    /// `YYYYMMDDTHHMMSSZ` for a Unix time (RFC 5545 §3.3.5 form 2).
    public static func utcStamp(_ epoch: Int64) -> String {
        let days = epoch >= 0 ? epoch / 86_400 : (epoch - 86_399) / 86_400
        let secs = Int(epoch - days * 86_400)
        let (y, m, d) = civilFromDays(days)
        return pad(y, 4) + pad(m, 2) + pad(d, 2) + "T" + pad(secs / 3600, 2) + pad(secs / 60 % 60, 2) + pad(secs % 60, 2) + "Z"
    }

    /// `YYYY-MM-DDTHH:MM:SSZ` for a Unix time.
    public static func iso8601UTC(_ epoch: Int64) -> String {
        let days = epoch >= 0 ? epoch / 86_400 : (epoch - 86_399) / 86_400
        let secs = Int(epoch - days * 86_400)
        let (y, m, d) = civilFromDays(days)
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(secs / 3600, 2)):\(pad(secs / 60 % 60, 2)):\(pad(secs % 60, 2))Z"
    }

    public static func pad(_ value: Int, _ width: Int) -> String {
        let s = String(value)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }
}
