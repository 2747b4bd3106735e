import Testing

@testable import TimeZones

/// The footer's POSIX TZ strings (RFC 8536 §3.3).
@Suite("POSIX TZ strings")
struct POSIXTimeZoneRuleTests {
    @Test(
        "accepted forms",
        arguments: [
            "UTC0", "EST5EDT,M3.2.0,M11.1.0", "CET-1CEST,M3.5.0,M10.5.0/3", "<+0545>-5:45", "<-03>3<-02>,M3.5.0/-2,M10.5.0/-1",
            "NZST-12NZDT,M9.5.0,M4.1.0/3", "<+1245>-12:45<+1345>,M9.5.0/2:45,M4.1.0/3:45", "AAA3BBB,J1/0,J365/25", "XXX-1:02:03YYY,0,365",
            "IST-2IDT,M3.4.4/26,M10.5.0", "<-02>2<-01>,M3.5.0/-1,M10.5.0/0",
        ])
    func accepted(_ text: String) throws {
        _ = try POSIXTimeZoneRule(parsing: Array(text.utf8))
    }

    @Test(
        "refused forms",
        arguments: [
            "", "U", "UT0", "EST", "EST5EDT", "EST5EDT,M3.2.0", "EST5EDT,M13.2.0,M11.1.0", "EST5EDT,M3.6.0,M11.1.0", "EST5EDT,M3.2.7,M11.1.0",
            "EST25", "EST5EDT,J0,J365", "EST5EDT,366,1", "EST5EDT,M3.2.0/168,M11.1.0", "<AB>5", "<ABC5", "EST5 ", "EST5EDT,M3.2.0,M11.1.0x",
            "EST5:60",
        ])
    func refused(_ text: String) {
        #expect(throws: TimeZoneError(.invalidRule)) { try POSIXTimeZoneRule(parsing: Array(text.utf8)) }
    }

    @Test("offsets: west of Greenwich is positive in the string, negative as a UTC offset")
    func offsets() throws {
        let rule = try POSIXTimeZoneRule(parsing: Array("<+0545>-5:45".utf8))
        #expect(rule.standard == LocalTimeType(utcOffsetSeconds: 20_700, isDST: false, abbreviation: "+0545"))
        let newYork = try POSIXTimeZoneRule(parsing: Array("EST5EDT,M3.2.0,M11.1.0".utf8))
        #expect(newYork.daylight?.type.utcOffsetSeconds == -14_400)
        #expect(newYork.daylight?.startTime == 7200)
    }
}
