import ReservoirBase
public import TimeZones

/// Reads the events of one calendar object (a `text/calendar` part, an `.ics` attachment)
/// for bookings: every VEVENT of every VCALENDAR becomes an ``ICalendarEvent`` with its times
/// placed on the time line; what cannot be used is a diagnostic. Never traps.
///
/// Decisions where RFC 5545 leaves room:
/// - A `TZID` that is an IANA name is read with the system's tzdata even when the object has a
///   VTIMEZONE of that name; any other `TZID` with the object's VTIMEZONE
///   (``ZoneResolver/offset(in:at:)``); without either the time floats
///   (`calendar-unknown-timezone`).
/// - A recurring event (RRULE, RDATE) is one booking: its first instance, DTSTART (RFC 5545
///   §3.8.5.3 counts DTSTART as the first), is taken with a note; when an EXDATE removes
///   DTSTART the event is skipped.
/// - iTIP methods other than PUBLISH, REQUEST and CANCEL (REPLY, COUNTER, ADD, REFRESH,
///   DECLINECOUNTER) carry no booking: their events are not read.
public enum ICalendarReader {
    /// Methods whose events are bookings (RFC 5546 §1.4).
    public static let readMethods: Set<String> = ["PUBLISH", "REQUEST", "CANCEL"]

    public static func read(_ bytes: [UInt8]) -> CalendarObject {
        read(bytes, zones: { try? TimeZoneRules.load(zone: $0) })
    }

    /// ``read(_:)`` with the zones' rules from `zones` (nil: no such IANA zone).
    public static func read(_ bytes: [UInt8], zones: @escaping (String) -> TimeZoneRules?) -> CalendarObject {
        let document = ICalendarParser.parse(bytes)
        var diagnostics = document.diagnostics
        var events: [ICalendarEvent] = []
        var method: String?
        for calendar in document.calendars {
            let calendarMethod = calendar.property("METHOD")?.value.trimmingASCII(ASCII.isSpaceOrLineBreak).uppercased()
            method = method ?? calendarMethod
            if let calendarMethod, !readMethods.contains(calendarMethod) {
                diagnostics.append(
                    ICalendarDiagnostic(
                        .methodIgnored, "METHOD:\(calendarMethod) is a reply or a request about an event, not a booking; not read",
                        line: calendar.property("METHOD")?.line))
                continue
            }
            var reader = EventReader(resolver: ZoneResolver(calendar: calendar, load: zones), cancelling: calendarMethod == "CANCEL")
            for component in calendar.components("VEVENT") {
                guard events.count < ICalendarLimits.maximumEvents else {
                    diagnostics.append(
                        ICalendarDiagnostic(
                            .limitExceeded, "more than \(ICalendarLimits.maximumEvents) events; the rest are not read", line: component.line))
                    break
                }
                if let event = reader.event(component) { events.append(event) }
            }
            diagnostics += reader.diagnostics
        }
        return CalendarObject(method: method, events: events, diagnostics: diagnostics)
    }
}

/// The reading of VEVENTs of one VCALENDAR, whose VTIMEZONEs they share.
struct EventReader {
    var resolver: ZoneResolver
    /// Whether the calendar cancels its events (`METHOD:CANCEL`): they need no DTSTART.
    let cancelling: Bool
    var diagnostics: [ICalendarDiagnostic] = []
    /// TZIDs already noted, so a zone is named once per calendar.
    private var notedZones: Set<String> = []

    init(resolver: ZoneResolver, cancelling: Bool = false) {
        self.resolver = resolver
        self.cancelling = cancelling
    }

    mutating func event(_ component: ICalendarComponent) -> ICalendarEvent? {
        guard let uid = component.property("UID")?.text.trimmingASCII(ASCII.isSpaceOrLineBreak), !uid.isEmpty else {
            diagnostics.append(
                ICalendarDiagnostic(.missingProperty, "a VEVENT without UID cannot be kept apart from others; skipped", line: component.line))
            return nil
        }
        guard let startProperty = component.property("DTSTART") else {
            // RFC 5546 §3.2.5: a CANCEL needs no DTSTART; its UID says what is cancelled.
            if cancelling || component.property("STATUS")?.value.trimmingASCII(ASCII.isSpaceOrLineBreak).uppercased() == "CANCELLED" {
                return event(component, uid: uid, start: nil, end: nil, recurring: false)
            }
            diagnostics.append(ICalendarDiagnostic(.missingProperty, "VEVENT \(uid) has no DTSTART; skipped", line: component.line))
            return nil
        }
        guard let start = time(startProperty) else { return nil }
        let recurring = component.property("RRULE") != nil || component.property("RDATE") != nil
        if recurring {
            // RFC 5545 §3.8.5.1: EXDATE may remove DTSTART itself; then the first instance is
            // one this reader does not compute.
            let excluded = component.properties("EXDATE").contains { exdate in
                exdate.value.split(separator: ",").contains { DateTimeText.read(String($0))?.local == start.local }
            }
            if excluded {
                diagnostics.append(
                    ICalendarDiagnostic(
                        .recurrenceNotExpanded,
                        "VEVENT \(uid) repeats and its DTSTART is excluded (EXDATE); its first instance is not computed, skipped",
                        line: component.line))
                return nil
            }
            diagnostics.append(
                ICalendarDiagnostic(
                    .recurring, "VEVENT \(uid) repeats (RRULE/RDATE); only its first instance, \(start.text), is taken",
                    line: component.line))
        }
        return event(component, uid: uid, start: start, end: end(of: component, start: start, uid: uid), recurring: recurring)
    }

    /// The event with its times read; the other properties read here.
    private mutating func event(
        _ component: ICalendarComponent, uid: String, start: ICalendarTime?, end: ICalendarTime?, recurring: Bool
    ) -> ICalendarEvent {
        var sequence = 0
        if let property = component.property("SEQUENCE") {
            if let value = Int(property.value.trimmingASCII(ASCII.isSpaceOrLineBreak)), value >= 0 {
                sequence = value
            } else {
                diagnostics.append(
                    ICalendarDiagnostic(.invalidValue, "SEQUENCE \(property.value) is not a non-negative integer; read as 0", line: property.line))
            }
        }
        var stamp: Int64?
        if let property = component.property("DTSTAMP") {
            if let read = DateTimeText.read(property.value.trimmingASCII(ASCII.isSpaceOrLineBreak)), !read.isDate {
                // RFC 5545 §3.8.7.2: DTSTAMP is UTC; a value without Z is read as UTC too.
                stamp = read.local.localSeconds
            } else {
                diagnostics.append(ICalendarDiagnostic(.invalidValue, "DTSTAMP \(property.value) is not a date-time; ignored", line: property.line))
            }
        }
        let organizers = component.properties("ORGANIZER")
        let organizer = organizers.first.map { ICalendarAddress(uri: $0.value, commonName: $0.parameter("CN")) }
        return ICalendarEvent(
            uid: uid, recurrenceID: component.property("RECURRENCE-ID").flatMap { time($0) }, sequence: sequence, stamp: stamp,
            summary: nonEmpty(component.property("SUMMARY")?.text), description: nonEmpty(component.property("DESCRIPTION")?.text),
            location: nonEmpty(component.property("LOCATION")?.text),
            url: nonEmpty(component.property("URL")?.value.trimmingASCII(ASCII.isSpaceOrLineBreak)),
            status: component.property("STATUS")?.value.trimmingASCII(ASCII.isSpaceOrLineBreak).uppercased(), organizer: organizer,
            organizerCount: organizers.count, start: start, end: end,
            isRecurring: recurring, structuredData: structuredData(component), line: component.line)
    }

    /// DTEND, else DTSTART + DURATION, else RFC 5545 §3.6.1's default.
    private mutating func end(of component: ICalendarComponent, start: ICalendarTime, uid: String) -> ICalendarTime {
        if let property = component.property("DTEND") {
            if let end = time(property), end.isDate == start.isDate {
                // RFC 5545 §3.8.2.2: DTEND is later than DTSTART.
                if (end.epochSeconds ?? end.local.localSeconds) >= (start.epochSeconds ?? start.local.localSeconds) { return end }
                diagnostics.append(ICalendarDiagnostic(.invalidValue, "DTEND of \(uid) is before its DTSTART; ignored", line: property.line))
            } else {
                diagnostics.append(
                    ICalendarDiagnostic(.invalidValue, "DTEND of \(uid) is unreadable or of another type than DTSTART; ignored", line: property.line))
            }
        }
        if let property = component.property("DURATION") {
            if let duration = ICalendarDuration(parsing: property.value.trimmingASCII(ASCII.isSpaceOrLineBreak)), duration.days >= 0,
                duration.seconds >= 0
            {
                return adding(duration, to: start)
            }
            diagnostics.append(
                ICalendarDiagnostic(.invalidValue, "DURATION \(property.value) of \(uid) is not a positive duration; ignored", line: property.line))
        }
        // RFC 5545 §3.6.1: a DATE start lasts one day; a DATE-TIME start ends when it starts.
        return start.isDate ? adding(ICalendarDuration(days: 1, seconds: 0), to: start) : start
    }

    /// RFC 5545 §3.3.6: days and weeks on the wall clock, then the exact seconds.
    private mutating func adding(_ duration: ICalendarDuration, to start: ICalendarTime) -> ICalendarTime {
        let wall = start.local.localSeconds + Int64(duration.days) * 86_400
        switch start.form {
        case .date:
            // A time part on a DATE start is not allowed; whole days of it are kept.
            let local = LocalDateTime.at(localSeconds: wall + duration.seconds / 86_400 * 86_400)
            return ICalendarTime(text: local.dateText, local: local, form: .date)
        case .floating, .utc:
            let local = LocalDateTime.at(localSeconds: wall + duration.seconds)
            return ICalendarTime(
                text: local.rfc5545 + (start.form == .utc ? "Z" : ""), local: local, form: start.form, offsetSeconds: start.offsetSeconds)
        case .zoned(let tzid):
            let nominal = place(LocalDateTime.at(localSeconds: wall), tzid: tzid, text: "")
            guard let instant = nominal.epochSeconds else { return nominal }
            let end = instant + duration.seconds
            let offset = resolver.offset(atUTC: end, tzid: tzid) ?? nominal.offsetSeconds ?? 0
            let local = LocalDateTime.at(localSeconds: end + Int64(offset))
            return ICalendarTime(text: local.rfc5545, local: local, form: start.form, offsetSeconds: offset, zone: start.zone)
        }
    }

    /// A DATE or DATE-TIME property (DTSTART, DTEND, RECURRENCE-ID) read and placed; nil with
    /// a note when unreadable.
    mutating func time(_ property: ICalendarProperty) -> ICalendarTime? {
        let text = property.value.trimmingASCII(ASCII.isSpaceOrLineBreak)
        guard let read = DateTimeText.read(text) else {
            diagnostics.append(ICalendarDiagnostic(.invalidValue, "\(property.name) \(text) is not a DATE or DATE-TIME", line: property.line))
            return nil
        }
        if read.isDate { return ICalendarTime(text: text, local: read.local, form: .date) }
        if read.isUTC { return ICalendarTime(text: text, local: read.local, form: .utc, offsetSeconds: 0) }
        guard let tzid = property.parameter("TZID")?.trimmingASCII(ASCII.isSpaceOrLineBreak), !tzid.isEmpty else {
            return ICalendarTime(text: text, local: read.local, form: .floating)
        }
        return place(read.local, tzid: tzid, text: text, line: property.line)
    }

    private mutating func place(_ local: LocalDateTime, tzid: String, text: String, line: Int? = nil) -> ICalendarTime {
        switch resolver.place(local, tzid: tzid) {
        case .iana(let zone, let resolution):
            var wall = local
            if case .nonexistent(_, _, let shifted, _) = resolution { wall = shifted }
            return ICalendarTime(
                text: text.isEmpty ? wall.rfc5545 : text, local: wall, form: .zoned(tzid: tzid), offsetSeconds: Int(resolution.type.utcOffsetSeconds),
                zone: zone)
        case .vtimezone(let offset):
            if notedZones.insert(tzid).inserted {
                diagnostics.append(
                    ICalendarDiagnostic(.timeZoneFromVTimezone, "TZID \(tzid) is not an IANA zone; read from the object's VTIMEZONE", line: line))
            }
            return ICalendarTime(text: text.isEmpty ? local.rfc5545 : text, local: local, form: .zoned(tzid: tzid), offsetSeconds: offset)
        case .unknown:
            if notedZones.insert(tzid).inserted {
                diagnostics.append(
                    ICalendarDiagnostic(
                        .unknownTimeZone, "TZID \(tzid) is neither an IANA zone nor described by a VTIMEZONE; read as floating time", line: line))
            }
            return ICalendarTime(text: text.isEmpty ? local.rfc5545 : text, local: local, form: .floating)
        }
    }

    /// The JSON of `X-APPLE-STRUCTURED-DATA` and RFC 9073 `STRUCTURED-DATA`: a BINARY value
    /// (base64) or TEXT; one that names a format other than JSON, or refers to a URI, is ignored.
    private mutating func structuredData(_ component: ICalendarComponent) -> [String] {
        var texts: [String] = []
        for property in component.properties where property.name == "X-APPLE-STRUCTURED-DATA" || property.name == "STRUCTURED-DATA" {
            let value = property.parameter("VALUE")?.uppercased()
            if value == "URI" { continue }
            if let format = property.parameter("FMTTYPE")?.lowercased() ?? property.parameter("X-APPLE-STRUCTURED-TYPE")?.lowercased(),
                !format.contains("json")
            {
                continue
            }
            let text: String
            if value == "BINARY" || property.parameter("ENCODING")?.uppercased() == "BASE64" {
                guard let bytes = Base64Text.decode(property.value.utf8) else {
                    diagnostics.append(
                        ICalendarDiagnostic(.structuredDataIgnored, "\(property.name) is not valid base64; ignored", line: property.line))
                    continue
                }
                text = String(decoding: bytes, as: UTF8.self)
            } else {
                text = property.text
            }
            guard let first = text.utf8.first(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }), first == 0x7B || first == 0x5B else {
                diagnostics.append(ICalendarDiagnostic(.structuredDataIgnored, "\(property.name) does not hold JSON; ignored", line: property.line))
                continue
            }
            texts.append(text)
        }
        return texts
    }

    private func nonEmpty(_ text: String?) -> String? {
        guard let text = text?.trimmingASCII(ASCII.isSpaceOrLineBreak), !text.isEmpty else { return nil }
        return text
    }
}

extension LocalDateTime {
    /// The wall time `seconds` after 1970-01-01T00:00:00 on the same clock; clamped to years
    /// 1–9999.
    static func at(localSeconds seconds: Int64) -> LocalDateTime {
        let lowest: Int64 = -62_135_596_800  // 0001-01-01T00:00:00
        let highest: Int64 = 253_402_300_799  // 9999-12-31T23:59:59
        let clamped = Swift.min(Swift.max(seconds, lowest), highest)
        let days = clamped >= 0 ? clamped / 86_400 : (clamped - 86_399) / 86_400
        let (y, m, d) = CivilTime.civilFromDays(days)
        let rest = Int(clamped - days * 86_400)
        return LocalDateTime(year: y, month: m, day: d, hour: rest / 3600, minute: rest / 60 % 60, second: rest % 60)
            ?? LocalDateTime(year: 1970, month: 1, day: 1)!
    }

    /// RFC 5545 §3.3.4 DATE: `YYYYMMDD`.
    var dateText: String { String(rfc5545.prefix(8)) }
}
