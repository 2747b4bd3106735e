import EventStore
import Foundation
import ReservoirBase
import TestRequirements
import Testing

@testable import ICalendar

func stored(
    title: String = "Reservation: EPIC Steak", local: String = "2031-05-12T19:30:00", offset: Int? = -25_200,
    status: EventStatus = .confirmed, sequence: Int = 0, notes: String = "Party of 2",
    location: String? = "EPIC Steak, 369 The Embarcadero, San Francisco, CA 94105"
) -> StoredEvent {
    let epoch = offset.flatMap { o in CivilTime.epochSeconds(ofLocal: local).map { $0 - Int64(o) } }
    let start = EventTime(text: local, local: local, offsetSeconds: offset, epochSeconds: epoch)
    let end = EventTime(text: local, local: local, offsetSeconds: offset, epochSeconds: epoch.map { $0 + 7200 })
    let event = CalendarEvent(
        key: EventKey(owner: .unproven, container: "IWDSCA", item: "1"), category: .food, title: title,
        start: start, end: offset == nil ? nil : end, location: location, notes: notes,
        url: "https://epicsteak.example/r/IWDSCA", status: status, reservationJSON: "{}")
    return StoredEvent(event: event, sequence: sequence, createdAt: 1_900_000_000, updatedAt: 1_900_000_100)
}

@Suite("iCalendar writer")
struct ICalendarWriterTests {
    let writer = ICalendarWriter()

    @Test("a confirmed dinner becomes one VEVENT in UTC with the reservation's instant")
    func basicEvent() {
        let ics = writer.write([stored()])
        #expect(ics.hasPrefix("BEGIN:VCALENDAR\r\nVERSION:2.0\r\n"))
        #expect(ics.hasSuffix("END:VCALENDAR\r\n"))
        // 19:30 at -07:00 is 02:30 UTC the next day.
        #expect(ics.contains("\r\nDTSTART:20310513T023000Z\r\n"))
        #expect(ics.contains("\r\nDTEND:20310513T043000Z\r\n"))
        #expect(ics.contains("\r\nSTATUS:CONFIRMED\r\n"))
        #expect(ics.contains("\r\nUID:IWDSCA_1@reservoir\r\n"))
        #expect(ics.contains("\r\nLOCATION:EPIC Steak\\, 369 The Embarcadero\\, San Francisco\\, CA 94105\r\n"))
    }

    @Test("an event without a start (a cancellation of an event never stored) is left out: RFC 5546 §3.2.1 requires DTSTART")
    func startless() {
        var cancelled = stored(status: .cancelled)
        cancelled.event.start = nil
        cancelled.event.end = nil
        cancelled.event.key = EventKey(owner: .unproven, container: "NEVER", item: "1")
        let ics = writer.write([stored(), cancelled])
        #expect(ics.components(separatedBy: "BEGIN:VEVENT").count == 2)
        #expect(!ics.contains("NEVER"))
        let empty = [
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:\(ICalendarWriter.productID)", "CALSCALE:GREGORIAN", "METHOD:PUBLISH",
            "NAME:Reservations", "X-WR-CALNAME:Reservations", "REFRESH-INTERVAL;VALUE=DURATION:PT1H", "X-PUBLISHED-TTL:PT1H", "END:VCALENDAR",
        ]
        #expect(writer.write([cancelled]) == empty.map { $0 + "\r\n" }.joined())
    }

    @Test("the calendar is named Reservations and asks to be fetched hourly (RFC 7986); COLOR only when set, as a CSS3 name")
    func calendarProperties() {
        let ics = writer.write([stored()])
        #expect(
            ics.hasPrefix(
                "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:\(ICalendarWriter.productID)\r\nCALSCALE:GREGORIAN\r\nMETHOD:PUBLISH\r\n"
                    + "NAME:Reservations\r\nX-WR-CALNAME:Reservations\r\nREFRESH-INTERVAL;VALUE=DURATION:PT1H\r\nX-PUBLISHED-TTL:PT1H\r\nBEGIN:VEVENT\r\n"
            ))
        #expect(!ics.contains("COLOR"))
        #expect(ICalendarWriter(color: "DarkOrange").write([stored()]).contains("\r\nX-PUBLISHED-TTL:PT1H\r\nCOLOR:darkorange\r\n"))
        for bad in ["#ff8800", "dark orange", "red\r\nX-EVIL:1", "", String(repeating: "a", count: 33)] {
            #expect(ICalendarWriter(color: bad).color == nil, "\(bad)")
            #expect(!ICalendarWriter(color: bad).write([stored()]).contains("COLOR"))
        }
        // A calendar object on a CalDAV server or in a vdir is one event, not a calendar: none of these.
        let object = ICalendarWriter(color: "red").object(stored())
        #expect(!object.contains("NAME") && !object.contains("REFRESH-INTERVAL") && !object.contains("COLOR"))
    }

    @Test(
        "python's icalendar reads the calendar's name, refresh interval and colour",
        .enabled(if: Requirement.met(PythonICalendar.available), PythonICalendar.missing))
    func calendarPropertiesWithPythonICalendar() throws {
        let script = """
            import sys, icalendar
            cal = icalendar.Calendar.from_ical(sys.stdin.buffer.read())
            refresh = cal['REFRESH-INTERVAL']
            print(cal.get('NAME'), cal.get('X-WR-CALNAME'), refresh.params.get('VALUE'), refresh.to_ical().decode(),
                cal.get('X-PUBLISHED-TTL'), cal.get('COLOR'))
            """
        let output = try PythonICalendar.run(["-c", script], input: ICalendarWriter(color: "teal").write([stored()]))
        #expect(output == "Reservations Reservations DURATION PT1H PT1H teal\n")
    }

    @Test("UIDs are readable (hyphens kept) and distinct for distinct keys: the separator, % and non-ASCII letters are escaped as UTF-8")
    func uids() {
        #expect(EventKey(owner: .unproven, container: "IWDSCA", item: "1").calendarUID == "IWDSCA_1@reservoir")
        #expect(EventKey(owner: .domain("epicsteak.example"), container: "IWDSCA", item: "1").calendarUID == "IWDSCA_1_epicsteak.example@reservoir")
        #expect(EventKey(owner: .walletPass(passType: "pass.x"), container: "A", item: "1").calendarUID == "A_1_pass%3Apass.x@reservoir")
        #expect(
            EventKey(owner: .domain("cascadia-air.example"), container: "RA-9F3Z7K", item: "ZürichHB").calendarUID
                == "RA-9F3Z7K_Z%C3%BCrichHB_cascadia-air.example@reservoir")
        #expect(EventKey(owner: .unproven, container: "a_b/c@d", item: "1%").calendarUID == "a%5Fb%2Fc%40d_1%25@reservoir")
        // Events stored before keep the UID they were pushed with (a NULL uid: the legacy form).
        #expect(EventKey(owner: .unproven, container: "RA-9F3Z7K", item: "ZürichHB").legacyCalendarUID == "RA%2D9F3Z7K-Z%C3%BCrichHB@reservoir")
        let pairs: [(EventKey, EventKey)] = [
            (EventKey(owner: .unproven, container: "A-B", item: "C"), EventKey(owner: .unproven, container: "A", item: "B-C")),
            (EventKey(owner: .unproven, container: "\u{E2}D", item: "1"), EventKey(owner: .unproven, container: "\u{E2D}", item: "1")),
            (EventKey(owner: .unproven, container: "a%2D", item: "1"), EventKey(owner: .unproven, container: "a-", item: "1")),
            (EventKey(owner: .unproven, container: "A_B", item: "C"), EventKey(owner: .unproven, container: "A", item: "B_C")),
            (EventKey(owner: .domain("b.example"), container: "A", item: "1"), EventKey(owner: .unproven, container: "A", item: "1_b.example")),
            // Two owners' bookings with one number are two events.
            (EventKey(owner: .domain("a.example"), container: "X", item: "1"), EventKey(owner: .domain("b.example"), container: "X", item: "1")),
            (EventKey(owner: .domain("a.example"), container: "X", item: "1"), EventKey(owner: .unproven, container: "X", item: "1")),
            (EventKey(owner: .domain("1-a.example"), container: "X", item: ""), EventKey(owner: .domain("a.example"), container: "X", item: "1")),
        ]
        for (a, b) in pairs {
            #expect(a.calendarUID != b.calendarUID, "\(a) and \(b)")
        }
    }

    @Test("cancelled events keep their UID and carry the store's sequence")
    func cancelled() {
        let ics = writer.write([stored(status: .cancelled, sequence: 2)])
        #expect(ics.contains("\r\nSTATUS:CANCELLED\r\n"))
        #expect(ics.contains("\r\nSEQUENCE:2\r\n"))
        #expect(ics.contains("\r\nUID:IWDSCA_1@reservoir\r\n"))
    }

    @Test("wall-clock times without an offset stay floating")
    func floating() {
        let ics = writer.write([stored(offset: nil)])
        #expect(ics.contains("\r\nDTSTART:20310512T193000\r\n"))
    }

    @Test(
        "text escaping",
        arguments: [
            ("a;b", "a\\;b"), ("a,b", "a\\,b"), ("a\\b", "a\\\\b"), ("a\nb", "a\\nb"), ("a\r\nb", "a\\nb"), ("tab\there", "tab\there"),
            ("a\u{2028}b\u{2029}c\u{85}d\u{0B}e\u{0C}f\u{1C}g", "a b c d e f g"),
        ])
    func escaping(input: String, expected: String) {
        #expect(ICalendarWriter.escape(input) == expected)
    }

    @Test("long lines fold at 75 octets without splitting UTF-8 characters")
    func folding() {
        let notes = String(repeating: "Größe ✈︎ ", count: 30)
        let ics = writer.write([stored(notes: notes)])
        for line in ics.components(separatedBy: "\r\n") {
            #expect(line.utf8.count <= 75)
        }
        // Unfolding gives back the escaped text exactly.
        // Unfold at the octet level (RFC 5545 §3.1), as a parser does.
        var unfolded: [UInt8] = []
        let bytes = Array(ics.utf8)
        var i = 0
        while i < bytes.count {
            if i + 2 < bytes.count, bytes[i] == 0x0D, bytes[i + 1] == 0x0A, bytes[i + 2] == 0x20 {
                i += 3
                continue
            }
            unfolded.append(bytes[i])
            i += 1
        }
        let expected = Array(("DESCRIPTION:" + ICalendarWriter.escape(notes) + "\r\n").utf8)
        #expect(unfolded.firstRange(of: expected) != nil)
    }

    @Test("DTSTAMP and LAST-MODIFIED are the store's change time, so an unchanged store exports byte-identical")
    func stableStamps() {
        let ics = writer.write([stored()])
        #expect(ics.contains("\r\nDTSTAMP:20300317T174820Z\r\n"))
        #expect(ics.contains("\r\nLAST-MODIFIED:20300317T174820Z\r\n"))
        #expect(ICalendarWriter().write([stored()]) == ics)
    }

    @Test("without an end, the category's default duration; floating starts get a floating end")
    func defaultDurations() throws {
        var event = stored(offset: -25_200)
        event.event.end = nil
        #expect(writer.write([event]).contains("\r\nDTEND:20310513T043000Z\r\n"))
        event.event.category = .event
        #expect(writer.write([event]).contains("\r\nDTEND:20310513T053000Z\r\n"))
        let floating = stored(offset: nil)
        #expect(writer.write([floating]).contains("\r\nDTEND:20310512T213000\r\n"))
        for category in EventCategory.allCases {
            #expect(ICalendarWriter.defaultDurations[category] != nil, "\(category)")
        }
    }

    /// A hotel stay, check-in 15:00 on 3 June, check-out 11:00 on 6 June (Boston, -04:00).
    static func stay(checkout: String? = "2031-06-06T11:00:00") -> StoredEvent {
        func time(_ local: String) -> EventTime {
            EventTime(
                text: local + "-04:00", local: local, offsetSeconds: -14_400,
                epochSeconds: CivilTime.epochSeconds(ofLocal: local).map { $0 + 14_400 }, zone: "America/New_York")
        }
        let event = CalendarEvent(
            key: EventKey(owner: .unproven, container: "HB1", item: "1"), category: .lodging, title: "Hotel: Harborview Hotel Boston",
            start: time("2031-06-03T15:00:00"), end: checkout.map(time), location: "Harborview Hotel Boston",
            notes: "Room: King", url: nil, status: .confirmed, reservationJSON: "{}")
        return StoredEvent(event: event, sequence: 0, createdAt: 1_900_000_000, updatedAt: 1_900_000_100)
    }

    @Test("a hotel stay is all-day from the check-in date to the check-out date, free, with the times in the notes")
    func lodgingAllDay() {
        let ics = writer.write([Self.stay()])
        #expect(ics.contains("\r\nDTSTART;VALUE=DATE:20310603\r\nDTEND;VALUE=DATE:20310606\r\nTRANSP:TRANSPARENT\r\n"))
        let unfolded = ics.replacingOccurrences(of: "\r\n ", with: "")
        #expect(unfolded.contains("\r\nDESCRIPTION:Check-in: 2031-06-03 15:00\\nCheck-out: 2031-06-06 11:00\\nRoom: King\r\n"))
        #expect(!ics.contains("VTIMEZONE"), "DATE values carry no zone")
        #expect(!ics.contains("T150000"))
        // No check-out: one night; a check-out on the check-in day: one night too.
        let open = writer.write([Self.stay(checkout: nil)])
        #expect(open.contains("\r\nDTSTART;VALUE=DATE:20310603\r\nDTEND;VALUE=DATE:20310604\r\n"))
        #expect(open.contains("\r\nDESCRIPTION:Check-in: 2031-06-03 15:00\\nRoom: King\r\n"))
        #expect(writer.write([Self.stay(checkout: "2031-06-03T18:00:00")]).contains("\r\nDTEND;VALUE=DATE:20310604\r\n"))
        // Other categories keep their times and are busy.
        #expect(!writer.write([stored()]).contains("TRANSP"))
    }

    @Test(
        "python's icalendar reads the stay as dates, check-out exclusive",
        .enabled(if: Requirement.met(PythonICalendar.available), PythonICalendar.missing))
    func lodgingWithPythonICalendar() throws {
        let script = """
            import sys, icalendar
            for ev in icalendar.Calendar.from_ical(sys.stdin.buffer.read()).walk('VEVENT'):
                start, end = ev.decoded('DTSTART'), ev.decoded('DTEND')
                print(type(start).__name__, start.isoformat(), end.isoformat(), (end - start).days, ev.get('TRANSP'))
            """
        let output = try PythonICalendar.run(["-c", script], input: writer.write([Self.stay()]))
        #expect(output == "date 2031-06-03 2031-06-06 3 TRANSPARENT\n")
    }

    @Test("a flight with a check-in link gets a VALARM at webCheckinTime, else 24 h before departure")
    func checkinAlarm() throws {
        let writer = ICalendarWriter(reminders: .off)
        var flight = stored(notes: "Seat: 14A\nCheck-in URL: https://air.example/checkin?pnr=K7Q2PX")
        flight.event.category = .flight
        let departure = try #require(flight.event.start?.epochSeconds)
        flight.event.checkinCloses = departure
        let ics = writer.write([flight])
        #expect(
            ics.contains(
                "\r\nBEGIN:VALARM\r\nACTION:DISPLAY\r\nTRIGGER;VALUE=DATE-TIME:20310512T023000Z\r\n"
                    + "DESCRIPTION:Check-in opens: https://air.example/checkin?pnr=K7Q2PX\r\nEND:VALARM\r\nEND:VEVENT\r\n"))
        flight.event.checkinOpens = departure - 30 * 3600
        #expect(writer.write([flight]).contains("\r\nTRIGGER;VALUE=DATE-TIME:20310511T203000Z\r\n"))
        // No link, or a cancelled flight: no alarm.
        var noLink = flight
        noLink.event.notes = "Seat: 14A"
        #expect(!writer.write([noLink]).contains("BEGIN:VALARM"))
        flight.event.status = .cancelled
        #expect(!writer.write([flight]).contains("BEGIN:VALARM"))
    }

    @Test("every category has a default reminder before its start; none on a cancelled event, none with .off")
    func defaultReminders() throws {
        for category in EventCategory.allCases {
            #expect(ReminderSettings.standard.leads[category] != nil, "\(category)")
        }
        let dinner = writer.write([stored()])
        #expect(dinner.contains("\r\nBEGIN:VALARM\r\nACTION:DISPLAY\r\nTRIGGER:-PT2H\r\nDESCRIPTION:Reservation: EPIC Steak\r\nEND:VALARM\r\n"))
        #expect(!writer.write([stored(status: .cancelled)]).contains("VALARM"))
        #expect(!ICalendarWriter(reminders: .off).write([stored()]).contains("VALARM"))
        var show = stored(title: "Philharmonic")
        show.event.category = .event
        #expect(writer.write([show]).contains("\r\nTRIGGER:-P1D\r\n"))
        let custom = ICalendarWriter(reminders: ReminderSettings(leads: [.food: 90 * 60]))
        #expect(custom.write([stored()]).contains("\r\nTRIGGER:-PT1H30M\r\n"))
        #expect(!custom.write([show]).contains("VALARM"), "a category the settings leave out has none")
    }

    @Test(
        "reminder durations: RFC 5545 §3.3.6 without sign, at most 28 days",
        arguments: [
            ("PT2H", 7200), ("P1D", 86_400), ("PT1H30M", 5400), ("PT45M", 2700), ("P1W", 604_800), ("PT0S", 0), ("P1DT12H", 129_600),
        ] as [(String, Int64)])
    func reminderLeads(_ text: String, _ seconds: Int64) {
        #expect(ReminderSettings.lead(parsing: text) == seconds)
        // Written back as a TRIGGER before the start, and read again to the same length.
        let trigger = ReminderSettings.trigger(seconds)
        #expect(trigger.hasPrefix("-P"))
        #expect(ReminderSettings.lead(parsing: String(trigger.dropFirst())) == seconds)
    }

    @Test(
        "text that is not a reminder duration is refused",
        arguments: ["", "P", "PT", "2H", "-PT2H", "PT2", "P2H", "PT1D", "P29D", "PT1M2H", "p1d", "P1D "])
    func badReminderLeads(_ text: String) {
        #expect(ReminderSettings.lead(parsing: text) == nil)
    }

    @Test(
        "python's icalendar puts each reminder before its start: 2 h before dinner, 18:00 the evening before a stay",
        .enabled(if: Requirement.met(PythonICalendar.available), PythonICalendar.missing))
    func remindersWithPythonICalendar() throws {
        let script = """
            import sys, icalendar, datetime
            for ev in icalendar.Calendar.from_ical(sys.stdin.buffer.read()).walk('VEVENT'):
                start = ev.decoded('DTSTART')
                if not isinstance(start, datetime.datetime):
                    start = datetime.datetime.combine(start, datetime.time())  # a DATE starts at midnight
                for alarm in ev.walk('VALARM'):
                    when = start + alarm.decoded('TRIGGER')
                    if isinstance(when, datetime.datetime) and when.tzinfo:
                        when = when.astimezone(datetime.timezone.utc)
                    print(ev.get('SUMMARY'), '|', when.isoformat())
            """
        let output = try PythonICalendar.run(["-c", script], input: writer.write([stored(), Self.stay()]))
        #expect(
            output.split(separator: "\n") == [
                "Reservation: EPIC Steak | 2031-05-13T00:30:00+00:00", "Hotel: Harborview Hotel Boston | 2031-06-02T18:00:00",
            ])
    }

    @Test("a flight without an arrival time lasts its leg: great-circle distance at 800 km/h plus 30 min, rounded to 5 min")
    func flightLegDuration() throws {
        // SFO–JFK is about 4,150 km: 5 h 11 min + 30 min → 5 h 40 min.
        #expect(FlightLeg.duration(from: "SFO", to: "JFK") == Int64(5 * 3600 + 40 * 60))
        // ZRH–GVA, about 225 km: 17 min + 30 min → 45 min.
        #expect(FlightLeg.duration(from: "ZRH", to: "GVA") == Int64(45 * 60))
        #expect(FlightLeg.duration(from: "SFO", to: "XQZ") == nil)
        #expect(FlightLeg.duration(from: "SFO", to: "SFO") == nil)
        var pass = Self.zonedFlight(end: false)
        pass.event.reservationJSON =
            #"{"@type":"FlightReservation","reservationFor":{"@type":"Flight","departureAirport":{"@type":"Airport","geo":{"latitude":1},"iataCode":"SFO"},"arrivalAirport":{"@type":"Airport","iataCode":"JFK","name":"x\"}"}}}"#
        // 08:15 at SFO plus 5 h 40 min is 13:55 on the departure's clock.
        #expect(writer.write([pass]).contains("\r\nDTEND;TZID=America/Los_Angeles:20310603T135500\r\n"))
        // Airports the markup does not give, or a nested iataCode only: the hour as before.
        pass.event.reservationJSON = #"{"reservationFor":{"departureAirport":{"address":{"iataCode":"SFO"}},"arrivalAirport":{"iataCode":"JFK"}}}"#
        #expect(writer.write([pass]).contains("\r\nDTEND;TZID=America/Los_Angeles:20310603T091500\r\n"))
    }

    @Test("GEO from the place's coordinates in the JSON-LD, only for numbers in range")
    func geo() {
        #expect(
            ICalendarWriter.geo(#"{"reservationFor":{"geo":{"@type":"GeoCoordinates","latitude":37.79,"longitude":-122.39}}}"#)
                == "37.79;-122.39")
        #expect(ICalendarWriter.geo(#"{"geo":{"latitude":"48.1","longitude":"11.5"}}"#) == "48.1;11.5")
        #expect(ICalendarWriter.geo(#"{"geo":{"latitude":95,"longitude":10}}"#) == nil)
        #expect(ICalendarWriter.geo(#"{"geo":{"latitude":"1e3;x","longitude":10}}"#) == nil)
        #expect(ICalendarWriter.geo("{}") == nil)
    }

    @Test("folding at every offset never splits a 2-, 3- or 4-byte UTF-8 character", arguments: ["ü", "€", "😀"])
    func foldingEveryOffset(_ character: String) {
        for pad in 0..<8 {
            let line = "DESCRIPTION:" + String(repeating: "x", count: pad) + String(repeating: character, count: 60)
            let folded = ICalendarWriter.fold(line)
            for part in folded.components(separatedBy: "\r\n") where !part.isEmpty {
                #expect(part.utf8.count <= 75)
                #expect(String(validating: part.utf8, as: UTF8.self) != nil)
            }
            #expect(folded.replacingOccurrences(of: "\r\n ", with: "") == line + "\r\n")
        }
    }

    /// SFO 08:15 PDT → JFK 16:45 EDT on 3 June 2031, both times placed in their airports' zones.
    static func zonedFlight(end: Bool = true) -> StoredEvent {
        let start = EventTime(
            text: "2031-06-03T08:15:00", local: "2031-06-03T08:15:00", offsetSeconds: -25_200, epochSeconds: 1_938_266_100,
            zone: "America/Los_Angeles")
        let arrival = EventTime(
            text: "2031-06-03T16:45:00", local: "2031-06-03T16:45:00", offsetSeconds: -14_400, epochSeconds: 1_938_285_900,
            zone: "America/New_York")
        let event = CalendarEvent(
            key: EventKey(owner: .unproven, container: "TZ1", item: "ZA7-SFO-2031-06-03"), category: .flight, title: "Flight: ZA 7 from SFO to JFK",
            start: start, end: end ? arrival : nil, location: "SFO", notes: "", url: nil, status: .confirmed, reservationJSON: "{}")
        return StoredEvent(event: event, sequence: 0, createdAt: 1_900_000_000, updatedAt: 1_900_000_100)
    }

    @Test("a time with a zone is written with its TZID, and the calendar carries each zone's VTIMEZONE once, before the events")
    func zonedTimes() {
        let ics = writer.write([Self.zonedFlight(), Self.zonedFlight(end: false), stored()])
        #expect(ics.contains("\r\nDTSTART;TZID=America/Los_Angeles:20310603T081500\r\n"))
        #expect(ics.contains("\r\nDTEND;TZID=America/New_York:20310603T164500\r\n"))
        // Without an arrival, the default hour in the departure's zone.
        #expect(ics.contains("\r\nDTEND;TZID=America/Los_Angeles:20310603T091500\r\n"))
        // Only an offset: UTC, as before.
        #expect(ics.contains("\r\nDTSTART:20310513T023000Z\r\n"))
        #expect(ics.components(separatedBy: "BEGIN:VTIMEZONE\r\n").count == 3)
        #expect(ics.components(separatedBy: "TZID:America/Los_Angeles\r\n").count == 2)
        #expect(ics.components(separatedBy: "TZID:America/New_York\r\n").count == 2)
        let zones = ics.range(of: "TZID:America/Los_Angeles\r\n").map(\.lowerBound)
        let newYork = ics.range(of: "TZID:America/New_York\r\n").map(\.lowerBound)
        let firstEvent = ics.range(of: "BEGIN:VEVENT").map(\.lowerBound)
        #expect(zones != nil && newYork != nil && firstEvent != nil && zones! < newYork! && newYork! < firstEvent!)
        #expect(writer.write([Self.zonedFlight(), Self.zonedFlight(end: false), stored()]) == ics)
        #expect(!writer.write([stored()]).contains("VTIMEZONE"))
    }

    @Test("one calendar object carries the VTIMEZONEs its event uses")
    func zonedObject() {
        let object = writer.object(Self.zonedFlight())
        #expect(object.contains("\r\nBEGIN:VTIMEZONE\r\nTZID:America/Los_Angeles\r\n"))
        #expect(object.contains("\r\nBEGIN:VTIMEZONE\r\nTZID:America/New_York\r\n"))
        #expect(object.contains("\r\nDTSTART;TZID=America/Los_Angeles:20310603T081500\r\n"))
        #expect(!object.contains("METHOD"))
        #expect(object.hasSuffix("END:VEVENT\r\nEND:VCALENDAR\r\n"))
    }

    @Test(
        "python's icalendar reads a zoned DTSTART back to the same UTC instant, by name and by our VTIMEZONE",
        .enabled(if: Requirement.met(PythonICalendar.available), PythonICalendar.missing))
    func zonedWithPythonICalendar() throws {
        let ics = writer.write([Self.zonedFlight(), stored()])
        let script = """
            import sys, icalendar, datetime
            cal = icalendar.Calendar.from_ical(sys.stdin.buffer.read())
            zones = {str(tz['TZID']): tz.to_tz() for tz in cal.walk('VTIMEZONE')}
            for ev in cal.walk('VEVENT'):
                for name in ('DTSTART', 'DTEND'):
                    value = ev.decoded(name)
                    line = '%s %s' % (name, value.astimezone(datetime.timezone.utc).isoformat())
                    tzid = ev[name].params.get('TZID')
                    if tzid:
                        own = zones[tzid].localize(value.replace(tzinfo=None))
                        line += ' ' + own.astimezone(datetime.timezone.utc).isoformat()
                    print(line)
            """
        let lines = try PythonICalendar.run(["-c", script], input: ics).split(separator: "\n").map(String.init)
        #expect(
            lines == [
                "DTSTART 2031-06-03T15:15:00+00:00 2031-06-03T15:15:00+00:00",
                "DTEND 2031-06-03T20:45:00+00:00 2031-06-03T20:45:00+00:00",
                "DTSTART 2031-05-13T02:30:00+00:00",
                "DTEND 2031-05-13T04:30:00+00:00",
            ])
    }

    /// Every code point Python's `str.splitlines()` ends a line at.
    static let lineBreaks: [Unicode.Scalar] = ["\n", "\u{0B}", "\u{0C}", "\r", "\u{1C}", "\u{1D}", "\u{1E}", "\u{85}", "\u{2028}", "\u{2029}"]

    @Test(
        "text holding every line break of any reader: python's splitlines() finds only the CRLF lines, python3-icalendar one event",
        .enabled(if: Requirement.met(PythonICalendar.available), PythonICalendar.missing))
    func lineBreaksStayInside() throws {
        let hostile = Self.lineBreaks.map { "\($0)END:VEVENT\($0)BEGIN:VEVENT\($0)UID:evil-\($0.value)\($0)SUMMARY:Free" }.joined()
        var event = stored(title: "Gala" + hostile, notes: "Seat 1" + hostile, location: "Hall" + hostile)
        event.event.url = "https://tickets.example/\u{2028}UID:evil-url"
        event.event.reservationJSON = #"{"name":"Gala"# + hostile + #""}"#
        var flight = event
        flight.event.key = EventKey(owner: .unproven, container: "K7Q2PX", item: "1")
        flight.uid = flight.event.key.calendarUID
        flight.event.category = .flight
        flight.event.notes = "Check-in URL: https://air.example/c\u{85}UID:evil-alarm\n" + hostile
        flight.event.checkinCloses = flight.event.start?.epochSeconds
        let documents = [writer.write([event, flight]), writer.object(event), writer.object(flight)]
        let script = """
            import sys, icalendar
            for text in sys.stdin.buffer.read().decode('utf-8').split('\\0'):
                uids = [str(e.get('UID')) for e in icalendar.Calendar.from_ical(text).walk('VEVENT')]
                print(len(text.splitlines()), text.count('\\r\\n'), ' '.join(uids))
            """
        let output = try PythonICalendar.run(["-c", script], input: documents.joined(separator: "\0"))
        let rows = output.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        #expect(rows.count == documents.count)
        for (row, document) in zip(rows, documents) {
            #expect(row.count >= 3 && row[0] == row[1], "\(row)")
            #expect(Array(row.dropFirst(2)).allSatisfy { !$0.contains("evil") }, "\(row)")
            #expect(!document.contains("evil-url"), "a URL with a line break is not written")
        }
        #expect(
            rows.map { Array($0.dropFirst(2)) } == [["IWDSCA_1@reservoir", "K7Q2PX_1@reservoir"], ["IWDSCA_1@reservoir"], ["K7Q2PX_1@reservoir"]])
    }

    @Test("python's icalendar parser reads the export", .enabled(if: Requirement.met(PythonICalendar.available), PythonICalendar.missing))
    func parsesWithPythonICalendar() throws {
        let ics = writer.write([stored(status: .cancelled, sequence: 2), stored(title: "Flight: UA 123 from SFO to EWR")])
        let output = try PythonICalendar.summarize(ics)
        #expect(
            output == [
                "Reservation: EPIC Steak|CANCELLED|2|2031-05-13 02:30:00+00:00",
                "Flight: UA 123 from SFO to EWR|CONFIRMED|0|2031-05-13 02:30:00+00:00",
            ])
    }
}

/// Debian's python3-icalendar as an independent parser of our output.
enum PythonICalendar {
    static let python = "/usr/bin/python3"

    static let available: Bool = {
        guard FileManager.default.isExecutableFile(atPath: python) else { return false }
        return (try? run(["-c", "import icalendar"], input: "")) != nil
    }()

    /// Why the tests that need it are skipped without it.
    static let missing: Comment = "python3-icalendar is not installed (apt-get install python3-icalendar)"

    static func summarize(_ ics: String) throws -> [String] {
        let script = """
            import sys, icalendar
            cal = icalendar.Calendar.from_ical(sys.stdin.buffer.read())
            for ev in cal.walk('VEVENT'):
                print('%s|%s|%s|%s' % (ev.get('SUMMARY'), ev.get('STATUS'), ev.get('SEQUENCE'), ev.decoded('DTSTART')))
            """
        return try run(["-c", script], input: ics).split(separator: "\n").map(String.init)
    }

    static func run(_ arguments: [String], input: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = arguments
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let data = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw CocoaError(.fileReadUnknown) }
        return String(decoding: data, as: UTF8.self)
    }
}
