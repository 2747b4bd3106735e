import EventStore
import ReservoirBase
import TimeZones

/// What DTSTART and DTEND of one event are written from: the start, and the end when it is
/// after the start, else the start plus the flight's estimated leg (``FlightLeg``) or the
/// category's default duration.
struct EventSpan {
    var start: EventTime
    var end: EventTime?
    var defaultDuration: Int64?

    init?(_ event: CalendarEvent) {
        guard let start = event.start else { return nil }
        self.start = start
        if let end = event.end, end.sortKey > start.sortKey {
            self.end = end
        } else {
            defaultDuration = FlightLeg.duration(event) ?? ICalendarWriter.defaultDurations[event.category]
        }
    }

    /// The instants written in a zone, with the zone: the start, the end or the start plus the
    /// default duration.
    var zonedInstants: [(zone: String, instant: Int64)] {
        var result: [(zone: String, instant: Int64)] = []
        if let zone = start.zone, let epoch = start.epochSeconds {
            result.append((zone, epoch))
            if end == nil, let defaultDuration { result.append((zone, epoch + defaultDuration)) }
        }
        if let end, let zone = end.zone, let epoch = end.epochSeconds { result.append((zone, epoch)) }
        return result
    }
}

/// The zones the times of an export are written in (RFC 5545 §3.2.19 `TZID`), each zone's
/// rules read once, and their VTIMEZONE components (§3.6.5) for the years those times fall
/// in. A zone the system cannot read is left out, and its times are written in UTC. Nothing
/// here reads the clock: an unchanged store gives the same text.
struct ZoneTable {
    private var rules: [String: TimeZoneRules] = [:]
    private var years: [String: ClosedRange<Int>] = [:]

    init(_ events: [CalendarEvent]) {
        var unreadable: Set<String> = []
        for event in events where StayDays(event) == nil {
            for (zone, instant) in EventSpan(event)?.zonedInstants ?? [] {
                if rules[zone] == nil, !unreadable.contains(zone) {
                    guard let loaded = try? TimeZoneRules.load(zone: zone) else {
                        unreadable.insert(zone)
                        continue
                    }
                    rules[zone] = loaded
                }
                guard let zoneRules = rules[zone] else { continue }
                let year = Self.year(ofLocal: instant + Int64(zoneRules.offset(atUTC: instant).utcOffsetSeconds))
                let known = years[zone]
                years[zone] = min(known?.lowerBound ?? year, year)...max(known?.upperBound ?? year, year)
            }
        }
    }

    /// The VTIMEZONE components, by zone name, each ending in CRLF.
    var vtimezones: String {
        years.keys.sorted().compactMap { zone in
            guard let rules = rules[zone], let range = years[zone] else { return nil }
            return VTimezoneWriter.text(for: rules, years: range, tzid: zone)
        }.joined()
    }

    /// `;TZID=Europe/Zurich:20310714T093300`: `seconds` after `time`, on its zone's clock; nil
    /// when the time has no zone or its zone's rules are not read.
    func wallTime(_ time: EventTime, plus seconds: Int64) -> String? {
        guard let zone = time.zone, let epoch = time.epochSeconds, let rules = rules[zone] else { return nil }
        let instant = epoch + seconds
        let wall = instant + Int64(rules.offset(atUTC: instant).utcOffsetSeconds)
        return ";TZID=" + zone + ":" + CivilTime.utcStamp(wall).dropLast()
    }

    static func year(ofLocal seconds: Int64) -> Int {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        return CivilTime.civilFromDays(days).0
    }
}
