import Testing
import TimeZones

@testable import ICalendarReading

@Suite("DATE, DATE-TIME, DURATION, UTC-OFFSET and VTIMEZONE values")
struct ICalendarValueTests {
    @Test(
        "DURATION (RFC 5545 §3.3.6)",
        arguments: [
            ("P15DT5H0M20S", 15, Int64(18_020)), ("P7W", 49, 0), ("-PT15M", 0, -900), ("+P1D", 1, 0), ("PT1H30M", 0, 5_400),
            ("pt2h", 0, 7_200), ("P1W2D", 9, 0),
        ])
    func durations(text: String, days: Int, seconds: Int64) {
        #expect(ICalendarDuration(parsing: text) == ICalendarDuration(days: days, seconds: seconds))
    }

    @Test("not durations", arguments: ["", "P", "PT", "P1H", "1D", "PT1D", "P1DT", "PT5", "P99999999D", "PTT1H"])
    func notDurations(text: String) {
        #expect(ICalendarDuration(parsing: text) == nil)
    }

    @Test(
        "DATE and DATE-TIME forms",
        arguments: [
            ("20310614", true, false), ("20310614T193000", false, false), ("20310614T193000Z", false, true), ("20310614t193060z", false, true),
        ])
    func dateTimes(text: String, isDate: Bool, isUTC: Bool) throws {
        let read = try #require(DateTimeText.read(text))
        #expect(read.isDate == isDate && read.isUTC == isUTC)
    }

    @Test("not dates", arguments: ["2031-06-14", "20311314", "20310230", "20310614T250000", "20310614T1930", "20310614T193000+0100"])
    func notDates(text: String) {
        #expect(DateTimeText.read(text) == nil)
    }

    @Test("UTC offsets", arguments: [("+0100", 3600), ("-0330", -12_600), ("+054500", 20_700)])
    func offsets(text: String, seconds: Int) {
        #expect(UTCOffset.seconds(text) == seconds)
    }

    @Test("a VTIMEZONE's yearly rules: the offset in effect each side of both changes")
    func vtimezone() throws {
        let document = ICalendarParser.parse(try Fixture.bytes("exchange-request.ics"))
        let zone = try #require(document.calendars.first?.components("VTIMEZONE").first)
        func offset(_ m: Int, _ d: Int, _ h: Int) -> Int? {
            LocalDateTime(year: 2031, month: m, day: d, hour: h).flatMap { ZoneResolver.offset(in: zone, at: $0) }
        }
        // 2031: last Sunday of March is the 30th, of October the 26th.
        #expect(offset(1, 10, 12) == 3600)
        #expect(offset(3, 30, 1) == 3600)
        #expect(offset(3, 30, 3) == 7200)
        #expect(offset(10, 26, 2) == 7200)
        #expect(offset(10, 26, 4) == 3600)
        #expect(offset(12, 31, 23) == 3600)
    }

    @Test(
        "BYDAY ordinals out of the month name no day (found by fuzz-icalendar)", arguments: ["-0SU", "0SU", "6SU", "-6SU", "-9223372036854775808SU"])
    func ordinals(byday: String) throws {
        let start = try #require(LocalDateTime(year: 1601, month: 1, day: 1, hour: 2))
        #expect(YearlyRule("FREQ=YEARLY;BYDAY=\(byday);BYMONTH=3").onset(year: 2031, like: start) == nil)
        #expect(
            YearlyRule("FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3").onset(year: 2031, like: start)
                == LocalDateTime(year: 2031, month: 3, day: 30, hour: 2)?.localSeconds)
    }

    @Test("a VTIMEZONE without rules: the offset of the latest onset, else the first's TZOFFSETFROM")
    func fixedObservances() throws {
        let text =
            "BEGIN:VTIMEZONE\nTZID:Custom\nBEGIN:STANDARD\nDTSTART:20200101T000000\nTZOFFSETFROM:+0300\nTZOFFSETTO:+0530\nEND:STANDARD\nEND:VTIMEZONE\n"
        let zone = try #require(ICalendarParser.parse(Array(text.utf8)).calendars.first?.components.first)
        #expect(LocalDateTime(year: 2031, month: 1, day: 1).flatMap { ZoneResolver.offset(in: zone, at: $0) } == 19_800)
        #expect(LocalDateTime(year: 2019, month: 1, day: 1).flatMap { ZoneResolver.offset(in: zone, at: $0) } == 10_800)
    }
}
