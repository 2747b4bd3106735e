import EventStore
import Reservations
import ReservoirBase

/// How times and changes read in banners and event lists.
enum BannerText {
    static let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]  // 1970-01-01 was a Thursday
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `Mon 12 May 2031 19:30 (UTC−07:00)`: the local time as the sender wrote it, with its
    /// offset; `Tue 3 Jun 2031 08:15 America/Los_Angeles (UTC−07:00, from airport SFO)` for a
    /// time read in a zone, with the zone and why; `(no time zone)` for floating times; the
    /// date alone for dates.
    static func time(local: String, offsetSeconds: Int?, dateOnly: Bool, zone: String? = nil, evidence: String? = nil) -> String {
        let digits = Array(local.utf8)
        func number(_ from: Int, _ count: Int) -> Int? { ASCII.decimal(digits, from: from, count: count) }
        guard let y = number(0, 4), let m = number(5, 2), let d = number(8, 2), (1...12).contains(m) else { return local }
        let days = CivilTime.daysFromCivil(year: y, month: m, day: d)
        let weekday = weekdays[Int(((days % 7) + 7) % 7)]
        let date = "\(weekday) \(d) \(months[m - 1]) \(y)"
        if dateOnly { return date }
        let clock = "\(CivilTime.pad(number(11, 2) ?? 0, 2)):\(CivilTime.pad(number(14, 2) ?? 0, 2))"
        let why = evidence.map { ", from " + $0 } ?? ""
        return "\(date) \(clock)\(zone.map { " " + $0 } ?? "") (\(offset(offsetSeconds))\(why))"
    }

    static func time(_ value: DateTimeValue) -> String {
        time(
            local: value.local, offsetSeconds: value.offsetSeconds, dateOnly: value.isDateOnly, zone: value.placement?.zone,
            evidence: value.placement?.evidence.words)
    }

    static func time(_ value: EventTime) -> String {
        time(local: value.local, offsetSeconds: value.offsetSeconds, dateOnly: value.local.utf8.count <= 10, zone: value.zone)
    }

    static func offset(_ seconds: Int?) -> String {
        guard let seconds else { return "no time zone" }
        if seconds == 0 { return "UTC" }
        let sign = seconds < 0 ? "−" : "+"
        let minutes = abs(seconds) / 60
        return "UTC\(sign)\(CivilTime.pad(minutes / 60, 2)):\(CivilTime.pad(minutes % 60, 2))"
    }

    /// What the store did, in a word or two.
    static func change(_ change: EventChange) -> String {
        switch change {
        case .created(let e): "new event (sequence \(e.sequence))"
        case .updated(let e, let previous):
            "event updated (sequence \(e.sequence)): \(EventRevision.summary(from: previous.event, to: e.event))"
        case .cancelled(let e, _): "event cancelled (sequence \(e.sequence))"
        case .unchanged: "already up to date"
        case .olderThanStored: "ignored: a newer message already changed this event"
        }
    }
}
