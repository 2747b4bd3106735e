import TestRequirements
import Testing

@testable import TimeZones

/// VTIMEZONE text (RFC 5545 §3.6.5), read back by python3-icalendar: its conversion of wall times
/// in the written zone must give the instants `TimeZoneRules.resolve` gives.
@Suite("VTIMEZONE writer")
struct VTimezoneWriterTests {
    static func lines(_ text: String) -> [String] {
        text.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
    }

    @Test("Europe/Berlin: its footer rule as two yearly RRULEs, CRLF line ends")
    func berlin() throws {
        let text = VTimezoneWriter.text(for: try TimeZoneRules.load(zone: "Europe/Berlin"), years: 2025...2035)
        let lines = Self.lines(text)
        #expect(lines.first == "BEGIN:VTIMEZONE")
        #expect(lines.contains("TZID:Europe/Berlin"))
        #expect(lines.contains("RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU"))
        #expect(lines.contains("RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU"))
        #expect(lines.contains("DTSTART:20250330T020000"))
        #expect(lines.contains("DTSTART:20251026T030000"))
        #expect(lines.contains("TZOFFSETFROM:+0100") && lines.contains("TZOFFSETTO:+0200") && lines.contains("TZNAME:CEST"))
        #expect(lines.suffix(2) == ["END:VTIMEZONE", ""])
        #expect(!text.replacingCRLF.contains("\n\n"))
    }

    @Test("Asia/Kolkata: one STANDARD observance at +05:30")
    func kolkata() throws {
        let lines = Self.lines(VTimezoneWriter.text(for: try TimeZoneRules.load(zone: "Asia/Kolkata"), years: 2030...2031))
        #expect(lines.filter { $0.hasPrefix("BEGIN:STANDARD") || $0.hasPrefix("BEGIN:DAYLIGHT") } == ["BEGIN:STANDARD"])
        #expect(lines.contains("TZOFFSETTO:+0530") && lines.contains("TZNAME:IST"))
    }

    @Test("Asia/Jerusalem's rule at 26:00 is written change by change")
    func explicitObservances() throws {
        let lines = Self.lines(VTimezoneWriter.text(for: try TimeZoneRules.load(zone: "Asia/Jerusalem"), years: 2030...2032))
        #expect(!lines.contains { $0.hasPrefix("RRULE") })
        #expect(lines.filter { $0 == "BEGIN:DAYLIGHT" }.count == 3)
        #expect(lines.filter { $0 == "BEGIN:STANDARD" }.count == 4)
    }

    @Test("long TZIDs are folded at 75 octets (RFC 5545 §3.1)")
    func folding() throws {
        let name = String(repeating: "Abcdefghij/", count: 10) + "Zone"
        let text = VTimezoneWriter.text(for: try TimeZoneRules.load(zone: "UTC"), years: 2030...2030, tzid: name)
        for line in Self.lines(text) { #expect(line.utf8.count <= 75) }
        #expect(text.replacingOccurrences("\r\n ", "").contains("TZID:" + name))
    }

    static let zones = [
        "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata", "Asia/Kathmandu", "America/St_Johns", "Pacific/Chatham",
        "Asia/Jerusalem", "America/Nuuk", "America/Santiago",
    ]

    static let script = """
        import sys, icalendar
        calendar = icalendar.Calendar.from_ical(sys.stdin.read())
        for event in calendar.walk("VEVENT"):
            start = event["DTSTART"].dt
            print("floating" if start.tzinfo is None else int(start.timestamp()))
        """

    static let icalendarAvailable = PythonPeer.available(["icalendar"])

    @Test(
        "python3-icalendar converts wall times in each written zone to the instants of the rules",
        .enabled(if: Requirement.met(icalendarAvailable), "no python3 with icalendar (apt-get install python3 python3-icalendar)"))
    func icalendarAgrees() throws {
        var calendar = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Reservoir//TimeZonesTests//EN"].joined(separator: "\r\n") + "\r\n"
        var expected: [(String, String)] = []
        var generator = SystemPeerTests.Generator(state: 5545)
        var events = ""
        for name in Self.zones {
            let rules = try TimeZoneRules.load(zone: name)
            // icalendar resolves a TZID it does not know from the VTIMEZONE in the calendar.
            let tzid = "Reservoir-" + name.replacingOccurrences("/", "-")
            calendar += VTimezoneWriter.text(for: rules, years: 2026...2036, tzid: tzid)
            var walls: [LocalDateTime] = []
            for _ in 0..<60 {
                walls.append(LocalDateTime(localSeconds: Int64.random(in: 1_767_225_600...2_082_758_400, using: &generator)))
            }
            // The wall times either side of each change, and inside a gap.
            for change in rules.transitions(from: 1_767_225_600, to: 2_082_758_400) {
                let wall = change.atUTC + Int64(change.before.utcOffsetSeconds)
                walls += [LocalDateTime(localSeconds: wall - 3601), LocalDateTime(localSeconds: wall + 7201)]
                if change.after.utcOffsetSeconds > change.before.utcOffsetSeconds { walls.append(LocalDateTime(localSeconds: wall + 60)) }
            }
            for wall in walls {
                let resolution = rules.resolve(local: wall)
                // pytz, under icalendar 4, takes the later of two occurrences: compare the rest.
                if case .ambiguous = resolution { continue }
                events += "BEGIN:VEVENT\r\nUID:\(expected.count)@test\r\nDTSTAMP:20260101T000000Z\r\n"
                events += "DTSTART;TZID=\(tzid):\(wall.rfc5545)\r\nEND:VEVENT\r\n"
                expected.append(("\(resolution.utc)", "\(name) \(wall)"))
            }
        }
        calendar += events + "END:VCALENDAR\r\n"
        let (output, reason) = PythonPeer.run(Self.script, input: calendar, needing: ["icalendar"])
        let answers = try #require(output, "\(reason)")
        #expect(answers.count == expected.count)
        var disagreements = 0
        for (answer, (mine, what)) in zip(answers, expected) where answer != mine {
            disagreements += 1
            if disagreements <= 10 { Issue.record("\(what): icalendar \(answer), TimeZones \(mine)") }
        }
        #expect(disagreements == 0)
    }
}

extension String {
    var replacingCRLF: String { replacingOccurrences("\r\n", "\n") }

    /// Plain replacement without Foundation's overloads.
    func replacingOccurrences(_ target: String, _ replacement: String) -> String {
        var result = ""
        var rest = Substring(self)
        while let range = rest.firstRange(of: target) {
            result += rest[..<range.lowerBound] + replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}
