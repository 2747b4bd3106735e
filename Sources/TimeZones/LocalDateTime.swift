internal import ReservoirBase

/// A wall-clock date and time with no zone, as flight and train markup states it at the station
/// (RFC 5545 §3.3.5 form 1, "floating"). Fields are checked on creation: month 1–12, the day
/// within its month, hour 0–23, minute 0–59, second 0–59, year 1–9999.
public struct LocalDateTime: Equatable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int
    public let hour: Int
    public let minute: Int
    public let second: Int

    /// Nil when a field is out of range.
    public init?(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0) {
        guard (1...9999).contains(year), (1...12).contains(month), day >= 1, day <= CivilTime.daysIn(month: month, year: year),
            (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second)
        else { return nil }
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    /// The wall time `seconds` after 1970-01-01T00:00:00 on the same clock (no zone applied).
    init(localSeconds seconds: Int64) {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let (y, m, d) = CivilTime.civilFromDays(days)
        let rest = Int(seconds - days * 86_400)
        year = y
        month = m
        day = d
        hour = rest / 3600
        minute = rest / 60 % 60
        second = rest % 60
    }

    /// Seconds since 1970-01-01T00:00:00 on the same wall clock, as if it were UTC.
    public var localSeconds: Int64 {
        CivilTime.daysFromCivil(year: year, month: month, day: day) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.localSeconds < rhs.localSeconds }

    /// `YYYY-MM-DDTHH:MM:SS`.
    public var description: String {
        "\(CivilTime.pad(year, 4))-\(CivilTime.pad(month, 2))-\(CivilTime.pad(day, 2))T"
            + "\(CivilTime.pad(hour, 2)):\(CivilTime.pad(minute, 2)):\(CivilTime.pad(second, 2))"
    }

    /// RFC 5545 §3.3.5 local form: `YYYYMMDDTHHMMSS`.
    public var rfc5545: String {
        CivilTime.pad(year, 4) + CivilTime.pad(month, 2) + CivilTime.pad(day, 2) + "T" + CivilTime.pad(hour, 2) + CivilTime.pad(minute, 2)
            + CivilTime.pad(second, 2)
    }
}
