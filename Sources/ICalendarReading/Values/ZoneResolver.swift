import ReservoirBase
import TimeZones

/// Where a `TZID` comes from (RFC 5545 §3.2.19): an IANA name read from the system's tzdata,
/// which wins over the object's own VTIMEZONE of that name (a sender's copy may be out of
/// date); else the VTIMEZONE's observances; else nothing, and the time floats.
struct ZoneResolver {
    enum Placement {
        /// The zone's rules from tzdata.
        case iana(String, LocalTimeResolution)
        /// The offset the object's VTIMEZONE puts in effect at that wall time.
        case vtimezone(offsetSeconds: Int)
        case unknown
    }

    let vtimezones: [String: ICalendarComponent]
    let load: (String) -> TimeZoneRules?
    private var cache: [String: TimeZoneRules?] = [:]

    init(calendar: ICalendarComponent, load: @escaping (String) -> TimeZoneRules?) {
        var zones: [String: ICalendarComponent] = [:]
        for zone in calendar.components("VTIMEZONE") {
            if let id = zone.property("TZID")?.value, zones[id] == nil { zones[id] = zone }
        }
        vtimezones = zones
        self.load = load
    }

    mutating func place(_ local: LocalDateTime, tzid: String) -> Placement {
        let rules: TimeZoneRules?
        if let known = cache[tzid] {
            rules = known
        } else {
            rules = ZoneName.isValid(tzid) ? load(tzid) : nil
            cache[tzid] = .some(rules)
        }
        if let rules { return .iana(tzid, rules.resolve(local: local)) }
        guard let zone = vtimezones[tzid], let offset = Self.offset(in: zone, at: local) else { return .unknown }
        return .vtimezone(offsetSeconds: offset)
    }

    /// The offset in effect at `instant` in a zone this resolver has placed a time in.
    func offset(atUTC instant: Int64, tzid: String) -> Int? {
        if case .some(.some(let rules)) = cache[tzid] { return Int(rules.offset(atUTC: instant).utcOffsetSeconds) }
        guard let zone = vtimezones[tzid] else { return nil }
        // The wall time is the instant plus the offset sought: start from the offset at the
        // instant read as a wall time, and take the offset in effect at the wall time it gives.
        let guess = Self.offset(in: zone, at: LocalDateTime.at(localSeconds: instant)) ?? 0
        return Self.offset(in: zone, at: LocalDateTime.at(localSeconds: instant + Int64(guess))) ?? guess
    }

    /// The TZOFFSETTO of the observance (STANDARD or DAYLIGHT, RFC 5545 §3.6.5) whose latest
    /// onset is at or before `local`; before every onset, the earliest observance's
    /// TZOFFSETFROM. Onsets are DTSTART, RDATEs and a yearly RRULE with BYMONTH and BYDAY
    /// (`-1SU`, `2SU`) or BYMONTHDAY, the forms VTIMEZONEs are written in; other rules count
    /// their DTSTART only. Onsets are compared as wall times (the hour around a change is not
    /// told apart).
    static func offset(in zone: ICalendarComponent, at local: LocalDateTime) -> Int? {
        let wall = local.localSeconds
        var best: (onset: Int64, offset: Int)?
        var earliest: (onset: Int64, offset: Int)?
        for observance in zone.components.prefix(ICalendarLimits.maximumObservances)
        where observance.name == "STANDARD" || observance.name == "DAYLIGHT" {
            guard let to = observance.property("TZOFFSETTO").flatMap({ UTCOffset.seconds($0.value) }),
                let start = observance.property("DTSTART").flatMap({ DateTimeText.read($0.value) })
            else { continue }
            let from = observance.property("TZOFFSETFROM").flatMap { UTCOffset.seconds($0.value) } ?? to
            var onsets = [start.local.localSeconds]
            for rdate in observance.properties("RDATE").prefix(ICalendarLimits.maximumObservances) {
                for value in rdate.value.split(separator: ",").prefix(ICalendarLimits.maximumObservances) {
                    if let read = DateTimeText.read(String(value)) { onsets.append(read.local.localSeconds) }
                }
            }
            if let rule = observance.property("RRULE").map({ YearlyRule($0.value) }), rule.isYearly {
                for year in [local.year - 1, local.year] {
                    if let onset = rule.onset(year: year, like: start.local), onset >= start.local.localSeconds,
                        rule.until.map({ onset <= $0 }) ?? true
                    {
                        onsets.append(onset)
                    }
                }
            }
            for onset in onsets {
                if onset <= wall, best.map({ onset > $0.onset }) ?? true { best = (onset, to) }
                if earliest.map({ onset < $0.onset }) ?? true { earliest = (onset, from) }
            }
        }
        return best?.offset ?? earliest?.offset
    }
}

/// The parts of an RRULE (RFC 5545 §3.3.10) a VTIMEZONE's yearly observance uses.
struct YearlyRule {
    var isYearly = false
    var month: Int?
    /// BYDAY's ordinal (−1 the last, 2 the second) and weekday (0 Sunday … 6 Saturday).
    var ordinal: Int?
    var weekday: Int?
    var monthDays: [Int] = []
    /// UNTIL as a wall time read as UTC.
    var until: Int64?

    init(_ text: String) {
        for part in text.uppercased().split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { continue }
            let value = String(pair[1])
            switch pair[0] {
            case "FREQ": isYearly = value == "YEARLY"
            case "BYMONTH": month = Int(value.split(separator: ",").first ?? "")
            case "BYMONTHDAY": monthDays = value.split(separator: ",").compactMap { Int($0) }.filter { (-31...31).contains($0) && $0 != 0 }
            case "UNTIL": until = DateTimeText.read(value)?.local.localSeconds
            case "BYDAY":
                let first = Array((value.split(separator: ",").first ?? "").utf8)
                guard first.count >= 2 else { continue }
                let name = String(decoding: first.suffix(2), as: UTF8.self)
                weekday = ["SU", "MO", "TU", "WE", "TH", "FR", "SA"].firstIndex(of: name)
                let number = String(decoding: first.dropLast(2), as: UTF8.self)
                ordinal = number.isEmpty ? nil : Int(number)
            default: continue
            }
        }
    }

    /// The onset in `year` at the time of day of `start`; nil when the rule names no day.
    func onset(year: Int, like start: LocalDateTime) -> Int64? {
        let month = self.month ?? start.month
        guard (1...12).contains(month), year >= 1, year <= 9999 else { return nil }
        let length = CivilTime.daysIn(month: month, year: year)
        var day: Int?
        if let weekday {
            let first = CivilTime.daysFromCivil(year: year, month: month, day: 1)
            let firstWeekday = Int(((first + 4) % 7 + 7) % 7)  // 1970-01-01 was a Thursday
            let firstMatch = 1 + (weekday - firstWeekday + 7) % 7
            let matches = Array(stride(from: firstMatch, through: length, by: 7))
            if !monthDays.isEmpty {
                day = matches.first { d in monthDays.contains { $0 > 0 ? $0 == d : length + 1 + $0 == d } }
            } else if let ordinal {
                // `2SU` the second Sunday, `-1SU` the last; `0SU` names no day.
                let index = ordinal > 0 ? ordinal - 1 : ordinal < 0 ? matches.count + ordinal : -1
                day = matches.indices.contains(index) ? matches[index] : nil
            } else {
                day = matches.first
            }
        } else if let monthDay = monthDays.first {
            day = monthDay > 0 ? monthDay : length + 1 + monthDay
        } else {
            day = min(start.day, length)
        }
        guard let day, let date = LocalDateTime(year: year, month: month, day: day, hour: start.hour, minute: start.minute, second: start.second)
        else { return nil }
        return date.localSeconds
    }
}

/// RFC 5545 §3.3.14 UTC-OFFSET: `±HHMM` or `±HHMMSS`.
enum UTCOffset {
    static func seconds(_ text: String) -> Int? {
        let b = Array(text.utf8)
        guard b.count == 5 || b.count == 7, b[0] == 0x2B || b[0] == 0x2D, b.dropFirst().allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            return nil
        }
        let digits = b.dropFirst().map { Int($0 - 0x30) }
        let hours = digits[0] * 10 + digits[1]
        let minutes = digits[2] * 10 + digits[3]
        let seconds = b.count == 7 ? digits[4] * 10 + digits[5] : 0
        guard hours < 24, minutes < 60, seconds < 60 else { return nil }
        return (b[0] == 0x2D ? -1 : 1) * (hours * 3600 + minutes * 60 + seconds)
    }
}
