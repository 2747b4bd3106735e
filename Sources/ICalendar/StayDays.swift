import EventStore
import ReservoirBase

/// A hotel stay as whole days, as Google Calendar and KItinerary show one: from the check-in
/// date to the check-out date on the hotel's calendar, free time rather than a block of busy
/// days, the check-in and check-out times in the notes.
struct StayDays {
    /// `YYYYMMDD` of the check-in date.
    var first: String
    /// `YYYYMMDD` of the check-out date, which DTEND names: RFC 5545 §3.6.1, a DATE-valued
    /// DTEND is the day after the last one the event covers, so the stay covers the nights.
    var end: String
    /// `Check-in: 2031-06-03 15:00` and `Check-out: 2031-06-06 11:00` for the times written.
    var times: [String]

    /// The stay of a lodging event with a start; nil for other categories. Without a check-out
    /// date after the check-in date, one night.
    init?(_ event: CalendarEvent) {
        guard event.category == .lodging, let start = event.start, let firstDay = Self.day(start.local) else { return nil }
        var lastDay = firstDay + 1
        if let end = event.end, let day = Self.day(end.local), day > firstDay { lastDay = day }
        first = Self.stamp(firstDay)
        self.end = Self.stamp(lastDay)
        times = []
        if let time = Self.clock(start.local) { times.append("Check-in: \(start.local.prefix(10)) \(time)") }
        if let end = event.end, let time = Self.clock(end.local) { times.append("Check-out: \(end.local.prefix(10)) \(time)") }
    }

    /// Days since 1970-01-01 of the wall date the markup wrote (`YYYY-MM-DD…`).
    static func day(_ local: String) -> Int64? {
        let bytes = Array(local.utf8)
        guard let y = ASCII.decimal(bytes, from: 0, count: 4), let m = ASCII.decimal(bytes, from: 5, count: 2),
            let d = ASCII.decimal(bytes, from: 8, count: 2), (1...12).contains(m), (1...31).contains(d)
        else { return nil }
        return CivilTime.daysFromCivil(year: y, month: m, day: d)
    }

    /// `HH:MM` of a wall time that has a time of day; nil for a date.
    static func clock(_ local: String) -> String? {
        let bytes = Array(local.utf8)
        guard bytes.count >= 16, let h = ASCII.decimal(bytes, from: 11, count: 2), let m = ASCII.decimal(bytes, from: 14, count: 2)
        else { return nil }
        return CivilTime.pad(h, 2) + ":" + CivilTime.pad(m, 2)
    }

    static func stamp(_ days: Int64) -> String {
        let (y, m, d) = CivilTime.civilFromDays(days)
        return CivilTime.pad(y, 4) + CivilTime.pad(m, 2) + CivilTime.pad(d, 2)
    }
}
