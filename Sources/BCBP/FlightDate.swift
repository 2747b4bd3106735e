import ReservoirBase

/// The calendar date of a bar code's day of the year. The year is not in the bar code: it is
/// the one that puts the day nearest to the evidence (a pass's relevant date, its signing time),
/// searched in the evidence's year and the years before and after.
public enum FlightDate {
    /// `dayOfYear` (1–366) as year, month and day, in the year that puts it nearest to
    /// `evidence` (Unix seconds); nil when no such year has that day (366 outside leap years).
    public static func resolve(dayOfYear: Int, near evidence: Int64) -> (year: Int, month: Int, day: Int)? {
        let evidenceDays = evidence >= 0 ? evidence / 86_400 : (evidence - 86_399) / 86_400
        let year = CivilTime.civilFromDays(evidenceDays).year
        var best: (distance: Int64, days: Int64)?
        for candidate in (year - 1)...(year + 1) {
            guard dayOfYear >= 1, dayOfYear <= (isLeap(candidate) ? 366 : 365) else { continue }
            let days = CivilTime.daysFromCivil(year: candidate, month: 1, day: 1) + Int64(dayOfYear - 1)
            let distance = abs(days - evidenceDays)
            if let current = best, current.distance <= distance { continue }
            best = (distance, days)
        }
        guard let best else { return nil }
        return CivilTime.civilFromDays(best.days)
    }

    /// The date as ISO 8601 (`2031-06-10`), as schema.org's Date reads it.
    public static func text(_ date: (year: Int, month: Int, day: Int)) -> String {
        "\(CivilTime.pad(date.year, 4))-\(CivilTime.pad(date.month, 2))-\(CivilTime.pad(date.day, 2))"
    }

    static func isLeap(_ year: Int) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }
}
