import Foundation
import Testing
import TimeZones

@testable import ICalendarReading

/// The fixtures beside this folder.
enum Fixture {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    static func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: folder.appendingPathComponent(name)))
    }

    /// A calendar object from lines joined with CRLF.
    static func object(_ lines: [String]) -> [UInt8] {
        Array(lines.map { $0 + "\r\n" }.joined().utf8)
    }

    /// One VEVENT in a VCALENDAR, with `lines` inside the VEVENT.
    static func event(_ lines: [String], calendar: [String] = []) -> [UInt8] {
        object(["BEGIN:VCALENDAR", "VERSION:2.0"] + calendar + ["BEGIN:VEVENT"] + lines + ["END:VEVENT", "END:VCALENDAR"])
    }
}

/// Unix seconds of a UTC date and time.
func utc(_ y: Int, _ mo: Int, _ d: Int, _ h: Int = 0, _ mi: Int = 0) -> Int64 {
    LocalDateTime(year: y, month: mo, day: d, hour: h, minute: mi)?.localSeconds ?? 0
}

@Suite("Reading VEVENTs")
struct ICalendarReaderTests {
    @Test("RFC 5545 §4's meeting: TZID America/New_York read from tzdata, ORGANIZER, folded ATTENDEE")
    func rfcExample() throws {
        let object = ICalendarReader.read(try Fixture.bytes("rfc5545-4-meeting.ics"))
        #expect(object.diagnostics == [])
        let event = try #require(object.events.first)
        #expect(event.uid == "guid-1.example.com")
        #expect(event.summary == "XYZ Project Review")
        #expect(event.location == "1CP Conference Room 4350")
        #expect(event.start?.zone == "America/New_York")
        #expect(event.start?.epochSeconds == utc(1998, 3, 12, 13, 30))
        #expect(event.end?.epochSeconds == utc(1998, 3, 12, 14, 30))
        #expect(event.organizer?.email == "mrbig@example.com")
        #expect(event.organizer?.domain == "example.com")
        #expect(event.stamp == utc(1998, 3, 9, 23, 10))
        #expect(object.method == nil)
    }

    @Test("Exchange's REQUEST: a Windows zone name read from its VTIMEZONE, escapes, CN with a comma")
    func exchange() throws {
        let object = ICalendarReader.read(try Fixture.bytes("exchange-request.ics"))
        #expect(object.method == "REQUEST")
        #expect(object.diagnostics.map(\.code) == [.timeZoneFromVTimezone])
        let event = try #require(object.events.first)
        #expect(event.start?.offsetSeconds == 7200)
        #expect(event.start?.epochSeconds == utc(2031, 6, 14, 17, 30))
        #expect(event.end?.epochSeconds == utc(2031, 6, 14, 20, 0))
        #expect(event.start?.zone == nil)
        #expect(event.sequence == 1)
        #expect(event.description == "Reihe 7, Platz 12\nEinlass 19:00")
        #expect(event.location == "Großer Saal; Lothringerstraße 20")
        #expect(event.organizer?.commonName == "Konzerthaus Wien, Kasse")
        #expect(event.status == "CONFIRMED")
    }

    @Test("PUBLISH with LF line ends: an all-day stay and a dinner with DURATION")
    func allDayAndDuration() throws {
        let object = ICalendarReader.read(try Fixture.bytes("publish-all-day.ics"))
        #expect(object.events.count == 2)
        let stay = object.events[0]
        #expect(stay.start?.isDate == true && stay.end?.isDate == true)
        #expect(stay.start?.local == LocalDateTime(year: 2031, month: 7, day: 4))
        #expect(stay.end?.local == LocalDateTime(year: 2031, month: 7, day: 7))
        #expect(stay.location == "70 Rowes Wharf, Boston")
        let dinner = object.events[1]
        #expect(dinner.end?.epochSeconds == utc(2031, 7, 5, 20, 30))
        #expect(dinner.summary == "Dinner at the Rowes Wharf Sea Grille with a title long enough to be folded across lines")
    }

    @Test("without DTEND or DURATION: a DATE lasts a day, a DATE-TIME ends when it starts (RFC 5545 §3.6.1)")
    func defaultEnds() throws {
        let day = try #require(ICalendarReader.read(Fixture.event(["UID:a", "DTSTART;VALUE=DATE:20310101"])).events.first)
        #expect(day.end?.local == LocalDateTime(year: 2031, month: 1, day: 2))
        let moment = try #require(ICalendarReader.read(Fixture.event(["UID:a", "DTSTART:20310101T100000Z"])).events.first)
        #expect(moment.end == moment.start)
    }

    @Test("DURATION across a change of offset: days on the wall clock, hours exact (RFC 5545 §3.3.6)")
    func durationAcrossDST() throws {
        // Europe/Berlin moves to +02:00 on 2031-03-30 at 02:00.
        let nominal = try #require(
            ICalendarReader.read(Fixture.event(["UID:a", "DTSTART;TZID=Europe/Berlin:20310329T120000", "DURATION:P1D"])).events.first)
        #expect(nominal.end?.local == LocalDateTime(year: 2031, month: 3, day: 30, hour: 12))
        #expect(nominal.end?.offsetSeconds == 7200)
        let exact = try #require(
            ICalendarReader.read(Fixture.event(["UID:a", "DTSTART;TZID=Europe/Berlin:20310329T120000", "DURATION:PT24H"])).events.first)
        #expect(exact.end?.local == LocalDateTime(year: 2031, month: 3, day: 30, hour: 13))
        #expect(exact.end?.epochSeconds == nominal.start?.epochSeconds.map { $0 + 86_400 })
    }

    @Test("floating and UTC times; an unknown TZID floats with a note")
    func forms() throws {
        let floating = try #require(ICalendarReader.read(Fixture.event(["UID:a", "DTSTART:20310101T100000"])).events.first)
        #expect(floating.start?.form == .floating && floating.start?.epochSeconds == nil)
        let object = ICalendarReader.read(Fixture.event(["UID:a", "DTSTART;TZID=Mars/Olympus:20310101T100000"]))
        #expect(object.events.first?.start?.form == .floating)
        #expect(object.diagnostics.map(\.code) == [.unknownTimeZone])
        let quoted = ICalendarReader.read(Fixture.event(["UID:a", "DTSTART;TZID=\"Europe/Zurich\":20310101T100000"]))
        #expect(quoted.events.first?.start?.epochSeconds == utc(2031, 1, 1, 9))
    }

    @Test("a recurring event is its first instance, with a note; with DTSTART excluded it is skipped")
    func recurring() throws {
        let object = ICalendarReader.read(Fixture.event(["UID:a", "DTSTART:20310101T100000Z", "RRULE:FREQ=WEEKLY;COUNT=4"]))
        #expect(object.events.first?.isRecurring == true)
        #expect(object.events.first?.start?.epochSeconds == utc(2031, 1, 1, 10))
        #expect(object.diagnostics.map(\.code) == [.recurring])
        let excluded = ICalendarReader.read(
            Fixture.event(["UID:a", "DTSTART:20310101T100000Z", "RDATE:20310108T100000Z", "EXDATE:20310101T100000Z"]))
        #expect(excluded.events.isEmpty)
        #expect(excluded.diagnostics.map(\.code) == [.recurrenceNotExpanded])
    }

    @Test("REPLY and COUNTER are not bookings", arguments: ["REPLY", "COUNTER", "REFRESH"])
    func methods(method: String) {
        let object = ICalendarReader.read(Fixture.event(["UID:a", "DTSTART:20310101T100000Z"], calendar: ["METHOD:\(method)"]))
        #expect(object.events.isEmpty)
        #expect(object.diagnostics.map(\.code) == [.methodIgnored])
    }

    @Test("CANCEL is read, and says so; its events need no DTSTART (RFC 5546 §3.2.5)")
    func cancel() {
        let object = ICalendarReader.read(Fixture.event(["UID:a", "DTSTART:20310101T100000Z"], calendar: ["METHOD:CANCEL"]))
        #expect(object.isCancel && object.events.count == 1)
        let bare = ICalendarReader.read(Fixture.event(["UID:a", "SEQUENCE:2"], calendar: ["METHOD:CANCEL"]))
        #expect(bare.events.first?.start == nil && bare.events.first?.sequence == 2)
        #expect(bare.diagnostics == [])
        let status = ICalendarReader.read(Fixture.event(["UID:a", "STATUS:CANCELLED"]))
        #expect(status.events.count == 1)
    }

    @Test("a DTEND before DTSTART is ignored with a note")
    func endBeforeStart() {
        let object = ICalendarReader.read(Fixture.event(["UID:a", "DTSTART:20310101T100000Z", "DTEND:20310101T090000Z"]))
        #expect(object.events.first?.end == object.events.first?.start)
        #expect(object.diagnostics.map(\.code) == [.invalidValue])
    }

    @Test("events without UID or DTSTART are skipped with a note")
    func missing() {
        #expect(ICalendarReader.read(Fixture.event(["DTSTART:20310101T100000Z"])).diagnostics.map(\.code) == [.missingProperty])
        #expect(ICalendarReader.read(Fixture.event(["UID:a"])).diagnostics.map(\.code) == [.missingProperty])
        let bad = ICalendarReader.read(Fixture.event(["UID:a", "DTSTART:2031-01-01"]))
        #expect(bad.events.isEmpty && bad.diagnostics.map(\.code) == [.invalidValue])
    }

    @Test("a bare VEVENT and a missing END are read, with notes")
    func lenient() {
        let bare = ICalendarReader.read(Array("METHOD:PUBLISH\nBEGIN:VEVENT\nUID:a\nDTSTART:20310101T100000Z\nEND:VEVENT\n".utf8))
        #expect(bare.events.count == 1 && bare.method == "PUBLISH")
        let open = ICalendarReader.read(Array("BEGIN:VCALENDAR\nBEGIN:VEVENT\nUID:a\nDTSTART:20310101T100000Z\n".utf8))
        #expect(open.events.count == 1)
        #expect(open.diagnostics.map(\.code) == [.unbalancedComponent, .unbalancedComponent])
    }

    @Test("structured data: base64 X-APPLE-STRUCTURED-DATA and RFC 9073 STRUCTURED-DATA as text")
    func structuredData() throws {
        let json = #"{"@type":"EventReservation","reservationId":"Q1"}"#
        let base64 = Data(json.utf8).base64EncodedString()
        let object = ICalendarReader.read(
            Fixture.event([
                "UID:a", "DTSTART:20310101T100000Z",
                "X-APPLE-STRUCTURED-DATA;VALUE=BINARY;ENCODING=BASE64;X-APPLE-STRUCTURED-TYPE=application/ld+json:\(base64)",
                #"STRUCTURED-DATA;VALUE=TEXT;FMTTYPE=application/ld+json:{"@type":"Event"\,"name":"x"}"#,
                "STRUCTURED-DATA;VALUE=URI:https://example.com/x.json",
                "STRUCTURED-DATA;FMTTYPE=text/html:<p>",
            ]))
        #expect(object.events.first?.structuredData == [json, #"{"@type":"Event","name":"x"}"#])
    }

    @Test("SEQUENCE and DTSTAMP")
    func ordering() throws {
        let event = try #require(
            ICalendarReader.read(Fixture.event(["UID:a", "DTSTART:20310101T100000Z", "SEQUENCE:3", "DTSTAMP:20261118T101500Z"])).events.first)
        #expect(event.sequence == 3 && event.stamp == utc(2026, 11, 18, 10, 15))
        let bad = ICalendarReader.read(Fixture.event(["UID:a", "DTSTART:20310101T100000Z", "SEQUENCE:-1"]))
        #expect(bad.events.first?.sequence == 0 && bad.diagnostics.map(\.code) == [.invalidValue])
    }

    @Test(
        "ORGANIZER: its mailto: URI names one address, or the problem says why not; two ORGANIZERs are counted (RFC 5545 §3.6.1)",
        arguments: [
            (["ORGANIZER;CN=EPIC Steak:mailto:events%40epicsteak.example"], "events@epicsteak.example", nil),
            (["ORGANIZER:mailto:events@attacker.example?to=events@epicsteak.example"], nil, OrganizerProblem.severalAddresses(2)),
            (["ORGANIZER:mailto:events@attacker.example#@epicsteak.example"], nil, .fragment),
            (["ORGANIZER:mailto:events@attacker.example%2C@epicsteak.example"], nil, .malformed(.invalidAddress)),
            (["ORGANIZER:urn:uuid:1234"], nil, .notMailto),
            (
                ["ORGANIZER:mailto:events@epicsteak.example", "ORGANIZER:mailto:events@attacker.example"], "events@epicsteak.example",
                .severalOrganizers(2)
            ),
            ([], nil, nil),
        ])
    func organizer(lines: [String], email: String?, problem: OrganizerProblem?) throws {
        let event = try #require(ICalendarReader.read(Fixture.event(["UID:a", "DTSTART:20310101T100000Z"] + lines)).events.first)
        #expect(event.organizer?.email == email)
        #expect(event.organizerProblem == problem)
        #expect(event.organizerCount == lines.count)
    }
}

@Suite("Inputs fuzz-icalendar found")
struct ICalendarFuzzFindingsTests {
    @Test("a VTIMEZONE rule with BYDAY=-0SU", arguments: ["fuzz-byday-zero.ics"])
    func finding(name: String) throws {
        _ = ICalendarReader.read(try Fixture.bytes(name))
    }
}
