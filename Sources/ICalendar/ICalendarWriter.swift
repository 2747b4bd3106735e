public import EventStore
import ReservoirBase
import TimeZones

/// Writes stored events as an RFC 5545 iCalendar object.
///
/// Each item of a booking is one VEVENT whose UID is stable across exports and whose
/// SEQUENCE is the store's revision number, so calendar clients replace the old version
/// instead of adding a second event (RFC 5545 §3.8.7.4).
public struct ICalendarWriter: Sendable {
    /// Length at which content lines are folded (RFC 5545 §3.1: "SHOULD NOT be longer than
    /// 75 octets, excluding the line break").
    public static let maxLineOctets = 75
    /// `PRODID` (RFC 5545 §3.7.3).
    public static let productID = "-//Reservoir//Reservoir//EN"

    /// Default length of an event whose reservation gives no end, per category. WWDC19
    /// ("Siri Event Suggestions"): a reservation without an end time should leave it unset so
    /// that "Siri will use the default duration based on the reservation type"; a calendar file
    /// has no such default (RFC 5545 §3.6.1: without DTEND a timed event ends when it starts),
    /// so the export writes one. Trips (flight, train, bus, boat) and rides with no arrival
    /// time get a short block of one hour that marks the departure without guessing the
    /// journey when the airports are unknown (``FlightLeg`` estimates a flight's from its
    /// airports); a stay without a check-out date covers one night.
    public static let defaultDurations: [EventCategory: Int64] = [
        .food: 2 * 3600,
        .event: 3 * 3600,
        .lodging: 24 * 3600,
        .rentalCar: 3600,
        .taxi: 3600,
        .flight: 3600,
        .train: 3600,
        .bus: 3600,
        .boat: 3600,
    ]

    /// Online check-in opens this long before departure when the markup does not say
    /// (`webCheckinTime`): the window of WWDC19's example, 24 h to 1 h before departure.
    public static let defaultCheckinLead: Int64 = 24 * 3600

    /// The label of the notes line that carries the check-in link (the reservation reader's
    /// detail for `checkinUrl`).
    public static let checkinLabel = "Check-in URL"

    /// The reminder each category's events carry (``ReminderSettings``).
    public var reminders: ReminderSettings
    /// The calendar's colour (RFC 7986 §5.9 `COLOR`, a CSS3 colour name), nil for none.
    public private(set) var color: String?

    /// The calendar's name, which subscribers show (RFC 7986 §5.1 `NAME`, and `X-WR-CALNAME`
    /// for the clients that read only that).
    public static let calendarName = "Reservations"
    /// How often subscribers should fetch the calendar again (RFC 7986 §5.7
    /// `REFRESH-INTERVAL`, and `X-PUBLISHED-TTL` for Outlook and Google): mail arrives at any
    /// hour, and a conditional GET of an unchanged feed is cheap.
    public static let refreshInterval = "PT1H"

    /// DTSTAMP and LAST-MODIFIED come from each event's last change in the store, not from the
    /// time of the export, so an unchanged store exports byte-identical objects.
    public init(reminders: ReminderSettings = .standard, color: String? = nil) {
        self.reminders = reminders
        self.color = color.flatMap(Self.colorName)
    }

    /// The longest colour name taken (CSS3's longest is 20 letters).
    public static let maximumColorNameBytes = 32

    /// `color` as a CSS3 colour name for `COLOR` (RFC 7986 §5.9: a name, not `#rrggbb`): ASCII
    /// letters only, lowercased; nil for anything else.
    public static func colorName(_ color: String) -> String? {
        guard !color.isEmpty, color.utf8.count <= maximumColorNameBytes,
            color.utf8.allSatisfy({ ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || ($0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z")) })
        else { return nil }
        return color.lowercased()
    }

    /// The calendar of `events`; an event without a start (the cancellation of an event never
    /// stored) is left out, as RFC 5546 §3.2.1 requires DTSTART of a published VEVENT.
    public func write(_ events: [StoredEvent]) -> String {
        let events = events.filter { $0.event.start != nil }
        // METHOD:PUBLISH is kept on the exported VCALENDAR (an iTIP publication, RFC 5546 §3.2.1,
        // for files and subscriptions); objects stored on a CalDAV server must not carry METHOD
        // (RFC 4791 §4.1), which is for whoever puts them there to leave out.
        var lines: [String] = [
            "BEGIN:VCALENDAR",
            "VERSION:2.0",
            "PRODID:\(Self.productID)",
            "CALSCALE:GREGORIAN",
            "METHOD:PUBLISH",
            "NAME:\(Self.escape(Self.calendarName))",
            "X-WR-CALNAME:\(Self.escape(Self.calendarName))",
            "REFRESH-INTERVAL;VALUE=DURATION:\(Self.refreshInterval)",
            "X-PUBLISHED-TTL:\(Self.refreshInterval)",
        ]
        if let color { lines.append("COLOR:\(color)") }
        let zones = ZoneTable(events.map(\.event))
        var text = lines.map(Self.fold).joined() + zones.vtimezones
        for stored in events {
            text += vevent(stored, zones: zones).map(Self.fold).joined()
        }
        return text + Self.fold("END:VCALENDAR")
    }

    /// One event as a calendar object resource for a CalDAV collection or a vdir: a VCALENDAR
    /// holding one VEVENT and no `METHOD` property, which RFC 4791 §4.1 forbids in stored
    /// calendar object resources (servers such as Baïkal refuse it).
    public func object(_ stored: StoredEvent) -> String {
        let lines: [String] = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:\(Self.productID)", "CALSCALE:GREGORIAN"]
        let zones = ZoneTable([stored.event])
        return lines.map(Self.fold).joined() + zones.vtimezones + vevent(stored, zones: zones, marked: true).map(Self.fold).joined()
            + Self.fold("END:VCALENDAR")
    }

    /// One VEVENT. `marked`: with the markers ``CalendarObjectMerge`` reads back from a copy at a
    /// destination (the digest of the DESCRIPTION written, `X-RESERVOIR-ALARM` in each alarm), so
    /// an update keeps what the person added there; feeds and exports carry none.
    func vevent(_ stored: StoredEvent, zones: ZoneTable, marked: Bool = false) -> [String] {
        let event = stored.event
        var lines = [
            "BEGIN:VEVENT",
            "UID:\(stored.uid)",
            "DTSTAMP:\(CivilTime.utcStamp(stored.updatedAt))",
            "SEQUENCE:\(stored.sequence)",
            "STATUS:\(event.status.rawValue)",
            "SUMMARY:\(Self.escape(event.title))",
        ]
        // RFC 5545 §3.3.5: a time with a known zone is local time with its TZID (form 3), one
        // with only an offset is UTC (form 2): an offset does not say which zone it belongs to;
        // a time with neither is floating (form 1).
        let stay = StayDays(event)
        if let stay {
            // A stay is whole days on the hotel's calendar (RFC 5545 §3.3.4 DATE values, no
            // zone), shown as free time (§3.8.2.7) so it does not block the days it spans.
            lines.append("DTSTART;VALUE=DATE:\(stay.first)")
            lines.append("DTEND;VALUE=DATE:\(stay.end)")
            lines.append("TRANSP:TRANSPARENT")
        } else if let span = EventSpan(event) {
            lines.append("DTSTART\(Self.dateTime(span.start, zones: zones))")
            if let end = span.end {
                lines.append("DTEND\(Self.dateTime(end, zones: zones))")
            } else if let duration = span.defaultDuration {
                lines.append("DTEND\(Self.dateTime(span.start, plus: duration, zones: zones))")
            }
        }
        if let location = event.location, !location.isEmpty {
            lines.append("LOCATION:\(Self.escape(location))")
        }
        if let geo = Self.geo(event.reservationJSON) {
            lines.append("GEO:\(geo)")
        }
        let notes = ((stay?.times ?? []) + (event.notes.isEmpty ? [] : [event.notes])).joined(separator: "\n")
        if !notes.isEmpty {
            lines.append("DESCRIPTION:\(Self.escape(notes))")
        }
        if marked {
            lines.append("\(CalendarObjectMerge.descriptionDigestProperty):\(CalendarObjectMerge.descriptionDigest(notes))")
        }
        if let url = event.url, Self.isURI(url) {
            // RFC 5545 §3.8.4.6: URL is a URI value, not escaped text.
            lines.append("URL:\(url)")
        }
        lines.append("CATEGORIES:\(Self.escape(event.category.rawValue.uppercased()))")
        lines.append("LAST-MODIFIED:\(CivilTime.utcStamp(stored.updatedAt))")
        lines.append("CREATED:\(CivilTime.utcStamp(stored.createdAt))")
        if !event.reservationJSON.isEmpty {
            // RFC 9073 §6.6: the schema.org markup itself, as TEXT escaped by RFC 5545 §3.3.11.
            lines.append(
                "STRUCTURED-DATA;VALUE=TEXT;FMTTYPE=application/ld+json:\(Self.escape(event.reservationJSON))")
        }
        if event.status != .cancelled, var alarm = Self.checkinAlarm(event) {
            if marked { alarm.insert("\(CalendarObjectMerge.alarmMarkerProperty):checkin", at: alarm.count - 1) }
            lines.append(contentsOf: alarm)
        }
        if event.status != .cancelled, let lead = reminders.leads[event.category] {
            // RFC 5545 §3.8.6.3: a duration TRIGGER is relative to DTSTART; for a stay's DATE
            // start, to the midnight that begins the check-in day.
            lines += ["BEGIN:VALARM", "ACTION:DISPLAY", "TRIGGER:\(ReminderSettings.trigger(lead))", "DESCRIPTION:\(Self.escape(event.title))"]
            if marked { lines.append("\(CalendarObjectMerge.alarmMarkerProperty):reminder") }
            lines.append("END:VALARM")
        }
        lines.append("END:VEVENT")
        return lines
    }

    /// A VALARM (RFC 5545 §3.6.6) at the opening of a flight's online check-in: the markup's
    /// `webCheckinTime` when given, else ``defaultCheckinLead`` before departure; the link in
    /// its description. Only for events with a check-in link and a departure instant.
    static func checkinAlarm(_ event: CalendarEvent) -> [String]? {
        guard let departure = event.checkinCloses,
            let link = event.notes.split(separator: "\n").lazy
                .compactMap({ $0.hasPrefix(checkinLabel + ": ") ? String($0.dropFirst(checkinLabel.count + 2)) : nil })
                .first,
            isURI(link)
        else { return nil }
        let opens = event.checkinOpens ?? departure - defaultCheckinLead
        guard opens < departure else { return nil }
        return [
            "BEGIN:VALARM",
            "ACTION:DISPLAY",
            "TRIGGER;VALUE=DATE-TIME:\(CivilTime.utcStamp(opens))",
            "DESCRIPTION:\(escape("Check-in opens: \(link)"))",
            "END:VALARM",
        ]
    }

    /// A URI fit for a URI-valued property, which is written unescaped (RFC 5545 §3.3.13): no
    /// space and no ``ControlCharacter``, so no line break of any reader.
    static func isURI(_ text: String) -> Bool {
        !text.isEmpty && !text.unicodeScalars.contains { $0 == " " || ControlCharacter($0) != nil }
    }

    /// `GEO` (RFC 5545 §3.8.1.6) from the `geo` coordinates of the reservation's place, when the
    /// markup gives them: `"geo": {"latitude": 37.79, "longitude": -122.39}`. The JSON-LD is read
    /// only for these two numbers, written back as found when they are plain decimals in range.
    static func geo(_ json: String) -> String? {
        /// What follows the first `needle` in `text`.
        func after(_ needle: String, in text: Substring) -> Substring? {
            let n = Array(needle.utf8)
            let bytes = Array(text.utf8)
            guard bytes.count >= n.count else { return nil }
            for i in 0...(bytes.count - n.count) where bytes[i..<i + n.count].elementsEqual(n) {
                return text[text.utf8.index(text.utf8.startIndex, offsetBy: i + n.count)...]
            }
            return nil
        }
        guard let rest = after("\"geo\":{", in: json[...]) else { return nil }
        guard let close = rest.firstIndex(of: "}") else { return nil }
        let body = rest[..<close]
        func number(_ key: String) -> String? {
            guard let tail = after("\"\(key)\":", in: body) else { return nil }
            var value = tail.prefix { $0 != "," && $0 != "}" }
            if value.first == "\"" && value.last == "\"" && value.count >= 2 { value = value.dropFirst().dropLast() }
            let text = String(value)
            guard !text.isEmpty, text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "." || $0 == "-") }),
                let parsed = Double(text)
            else { return nil }
            return key == "latitude" ? (abs(parsed) <= 90 ? text : nil) : (abs(parsed) <= 180 ? text : nil)
        }
        guard let lat = number("latitude"), let lon = number("longitude") else { return nil }
        return "\(lat);\(lon)"
    }

    /// `;TZID=Europe/Zurich:20310714T093300` for a time with a zone whose rules are known (RFC
    /// 5545 §3.3.5 form 3; the wall time its clocks show at the instant), `:20310513T023000Z` for
    /// a time with an offset (converted to UTC, form 2), `:20310512T193000` for wall-clock time
    /// (form 1, floating).
    static func dateTime(_ time: EventTime, zones: ZoneTable = ZoneTable([])) -> String {
        if let zoned = zones.wallTime(time, plus: 0) { return zoned }
        if let epoch = time.epochSeconds {
            return ":" + CivilTime.utcStamp(epoch)
        }
        let digits = time.local.filter { $0.isNumber }
        let padded = digits.count >= 14 ? String(digits.prefix(14)) : digits + String(repeating: "0", count: max(0, 14 - digits.count))
        return ":" + padded.prefix(8) + "T" + padded.dropFirst(8)
    }

    /// `time` plus `seconds`, in the same form as ``dateTime(_:zones:)``: in the time's zone when
    /// it has one, UTC when the time has only an instant, floating wall-clock time otherwise.
    static func dateTime(_ time: EventTime, plus seconds: Int64, zones: ZoneTable = ZoneTable([])) -> String {
        if let zoned = zones.wallTime(time, plus: seconds) { return zoned }
        if let epoch = time.epochSeconds {
            return ":" + CivilTime.utcStamp(epoch + seconds)
        }
        guard let local = CivilTime.epochSeconds(ofLocal: time.local) else { return dateTime(time) }
        return ":" + CivilTime.utcStamp(local + seconds).dropLast()
    }

    /// RFC 5545 §3.3.11 TEXT (``ICalendarText/escape(_:)``), the only way text enters a
    /// property value here.
    public static func escape(_ text: String) -> String { ICalendarText.escape(text) }

    /// RFC 5545 §3.1: lines longer than 75 octets are split with CRLF followed by a space,
    /// never inside a UTF-8 sequence. Returns the line with its CRLF.
    static func fold(_ line: String) -> String {
        let bytes = Array(line.utf8)
        if bytes.count <= maxLineOctets { return line + "\r\n" }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + bytes.count / maxLineOctets * 3 + 2)
        var lineLength = 0
        var limit = maxLineOctets
        var i = 0
        while i < bytes.count {
            // Length of the UTF-8 sequence starting here.
            let lead = bytes[i]
            let length = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1
            if lineLength + length > limit {
                out += [0x0D, 0x0A, 0x20]
                lineLength = 0
                limit = maxLineOctets - 1  // the leading space counts
            }
            let end = min(i + length, bytes.count)
            out += bytes[i..<end]
            lineLength += end - i
            i = end
        }
        out += [0x0D, 0x0A]
        return String(decoding: out, as: UTF8.self)
    }
}
