internal import ReservoirBase

/// Writes a zone as an RFC 5545 §3.6.5 VTIMEZONE component for the years an export needs.
///
/// The component opens with the observance in effect on 1 January of the first year
/// (`TZOFFSETFROM` = `TZOFFSETTO`), then lists every change of the zone's table in the range as
/// its own STANDARD or DAYLIGHT observance. Changes governed by the footer rule (RFC 8536 §3.3)
/// become one recurring STANDARD and one recurring DAYLIGHT observance with a yearly `RRULE`
/// when both of its dates are `Mm.w.d` forms at times within the day; other footer rules (`Jn`,
/// `n`, times past midnight) are listed change by change up to the range's end.
public enum VTimezoneWriter {
    /// The component's text, CRLF line ends (RFC 5545 §3.1), lines folded at 75 octets.
    /// `years` is clamped to 1–9999 and to `TimeZoneLimits.maximumVTimezoneYears` years.
    public static func text(for rules: TimeZoneRules, years: ClosedRange<Int>, tzid: String? = nil) -> String {
        let first = min(max(years.lowerBound, 1), 9998)
        let last = min(max(years.upperBound, first), 9998, first + TimeZoneLimits.maximumVTimezoneYears - 1)
        // The range as instants: local midnight of 1 January, as RFC 5545 §3.3.5 resolves it.
        let rangeStart = rules.resolve(local: janFirst(first)).utc
        let rangeEnd = rules.resolve(local: janFirst(last + 1)).utc
        var lines = ["BEGIN:VTIMEZONE", "TZID:" + (tzid ?? rules.name)]
        let opening = rules.offset(atUTC: rangeStart)
        lines += observance(opening, from: opening, startingAt: janFirst(first).rfc5545, recurrence: nil)

        let changes = rules.transitions(from: rangeStart + 1, to: rangeEnd)
        let recurring = recurrence(of: rules.footer)
        let ruleStart = recurring == nil ? Int64.max : footerAgreement(rules)
        var recurringDone = false
        for change in changes {
            if change.atUTC >= ruleStart, let recurring {
                // The footer's rule from here on: one observance per side, each from its first change.
                guard !recurringDone else { continue }
                recurringDone = true
                var sides: [TimeZoneTransition] = [change]
                if let other = changes.first(where: { $0.atUTC > change.atUTC && $0.after.isDST != change.after.isDST }) {
                    sides.append(other)
                }
                for side in sides {
                    let rrule = side.after.isDST ? recurring.daylight : recurring.standard
                    lines += observance(side.after, from: side.before, startingAt: wallTime(side).rfc5545, recurrence: rrule)
                }
                continue
            }
            lines += observance(change.after, from: change.before, startingAt: wallTime(change).rfc5545, recurrence: nil)
        }
        lines.append("END:VTIMEZONE")
        return lines.map(fold).joined(separator: "\r\n") + "\r\n"
    }

    /// The first instant from which the footer rule alone describes the zone: the earliest table
    /// transition from which every later one is the rule's own (tzdata's "fat" files list the
    /// rule's changes up to 2037), or just after the last transition.
    static func footerAgreement(_ rules: TimeZoneRules) -> Int64 {
        guard let footer = rules.footer, let last = rules.transitions.last else { return Int64.min }
        var first = rules.transitions.count
        while first > 0 {
            let time = rules.transitions[first - 1]
            let change = rules.transitions(from: time, to: time + 1)
            guard let change = change.first, footer.type(atUTC: time) == change.after, footer.type(atUTC: time - 1) == change.before
            else { break }
            first -= 1
        }
        guard first < rules.transitions.count else { return last + 1 }
        // The rule must also produce no change the table lacks in between.
        let start = rules.transitions[first]
        let years = (LocalDateTime.civilYear(ofLocalSeconds: start), LocalDateTime.civilYear(ofLocalSeconds: last))
        // Two changes a year: a span of more years than changes cannot agree (and is not walked).
        guard years.1 - years.0 <= (rules.transitions.count - first) / 2 + 2 else { return last + 1 }
        var fromRule: [Int64] = []
        for year in LocalDateTime.civilYear(ofLocalSeconds: start) - 1...LocalDateTime.civilYear(ofLocalSeconds: last) + 1 {
            fromRule += footer.transitions(year: year).map(\.atUTC).filter { $0 >= start && $0 <= last }
        }
        let fromTable = rules.transitions(from: start, to: last + 1).map(\.atUTC)
        return fromRule == fromTable ? start : last + 1
    }

    /// The yearly `RRULE`s of a footer rule, when RFC 5545 can state them: both dates
    /// `Mm.w.d` and both times within the day they name.
    static func recurrence(of footer: POSIXTimeZoneRule?) -> (daylight: String, standard: String)? {
        guard let daylight = footer?.daylight, let start = rrule(daylight.start, time: daylight.startTime),
            let end = rrule(daylight.end, time: daylight.endTime)
        else { return nil }
        return (start, end)
    }

    private static func rrule(_ date: POSIXTimeZoneRule.RuleDate, time: Int32) -> String? {
        guard case .monthWeekDay(let month, let week, let weekday) = date, time >= 0, time < 86_400 else { return nil }
        let days = ["SU", "MO", "TU", "WE", "TH", "FR", "SA"]
        // RFC 5545 §3.3.10: BYDAY=-1SU is the month's last Sunday (POSIX week 5).
        return "RRULE:FREQ=YEARLY;BYMONTH=\(month);BYDAY=\(week == 5 ? -1 : week)\(days[weekday])"
    }

    private static func observance(_ type: LocalTimeType, from previous: LocalTimeType, startingAt start: String, recurrence: String?)
        -> [String]
    {
        let kind = type.isDST ? "DAYLIGHT" : "STANDARD"
        var lines = ["BEGIN:" + kind, "DTSTART:" + start]
        if let recurrence { lines.append(recurrence) }
        lines += [
            "TZOFFSETFROM:" + UTCOffsetText.rfc5545(previous.utcOffsetSeconds),
            "TZOFFSETTO:" + UTCOffsetText.rfc5545(type.utcOffsetSeconds),
            "TZNAME:" + ICalendarText.escape(type.abbreviation),
            "END:" + kind,
        ]
        return lines
    }

    /// RFC 5545 §3.6.5: an observance's DTSTART is the wall time of the change on the clock
    /// before it (the `TZOFFSETFROM` offset).
    private static func wallTime(_ change: TimeZoneTransition) -> LocalDateTime {
        LocalDateTime(localSeconds: change.atUTC + Int64(change.before.utcOffsetSeconds))
    }

    private static func janFirst(_ year: Int) -> LocalDateTime {
        LocalDateTime(localSeconds: CivilTime.daysFromCivil(year: year, month: 1, day: 1) * 86_400)
    }

    /// RFC 5545 §3.1: lines longer than 75 octets continue after CRLF and a space. The text is ASCII.
    static func fold(_ line: String) -> String {
        let bytes = Array(line.utf8)
        guard bytes.count > 75 else { return line }
        var pieces: [String] = []
        var start = 0
        var width = 75
        while start < bytes.count {
            let end = min(start + width, bytes.count)
            pieces.append(String(decoding: bytes[start..<end], as: UTF8.self))
            start = end
            width = 74
        }
        return pieces.joined(separator: "\r\n ")
    }
}
