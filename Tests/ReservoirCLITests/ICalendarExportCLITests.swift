import Foundation
import TestRequirements
import Testing

@Suite("events --ics of the sample Maildir")
struct ICalendarExportCLITests {
    /// The sample Maildir scanned into a fresh store; returns the store argument.
    static func scannedStore(_ tmp: TemporaryDirectory) throws -> String {
        let store = "sqlite:\(tmp.path)/events.sqlite3"
        let scan = try ReservoirBinary.run([
            "scan", ReservoirBinary.samples.path, "--keys", ReservoirBinary.keys,
            "--allowed-domains", ReservoirBinary.allowed, "--now", ReservoirBinary.now, "--store", store,
        ])
        #expect(scan.status == 0, "\(scan.stderr)")
        return store
    }

    @Test("an unchanged store exports byte-identical under different clocks")
    func byteIdentical() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let store = try Self.scannedStore(tmp)
        let first = try ReservoirBinary.run(["events", "--ics", "--all", "--store", store, "--now", ReservoirBinary.now])
        let second = try ReservoirBinary.run(["events", "--ics", "--all", "--store", store, "--now", "2029-02-03T04:05:06Z"])
        #expect(first.status == 0 && second.status == 0, "\(first.stderr)\(second.stderr)")
        #expect(!first.stdout.isEmpty)
        #expect(first.stdout == second.stdout)
        #expect(first.text.contains("\r\nSUMMARY:Flight: C7 412 from SFO to SEA\r\n"))
        #expect(first.text.contains("\r\nSUMMARY:Train: EC 15 from Zürich HB to Milano Centrale\r\n"))
        #expect(first.text.contains("\r\nSUMMARY:Hotel: Harborview Hotel Boston\r\n"))
        #expect(first.text.contains("\r\nSUMMARY:Reservation: EPIC Steak\r\n"))
    }

    static let python = "/usr/bin/python3"

    static let pythonICalendar: Bool = {
        guard FileManager.default.isExecutableFile(atPath: python) else { return false }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", "import icalendar"]
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }()

    @Test(
        "python3-icalendar reads every stored event with its UID, DTSTART, SUMMARY, STATUS and SEQUENCE",
        .enabled(if: Requirement.met(pythonICalendar), "python3-icalendar is not installed (apt-get install python3-icalendar)"))
    func pythonPeer() throws {
        try #require(Self.pythonICalendar, "python3-icalendar is not installed (apt-get install python3-icalendar)")
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let store = try Self.scannedStore(tmp)
        let ics = try ReservoirBinary.run(["events", "--ics", "--all", "--store", store, "--now", ReservoirBinary.now])
        let json = try ReservoirBinary.run(["events", "--json", "--all", "--store", store, "--now", ReservoirBinary.now])
        #expect(ics.status == 0 && json.status == 0)
        let script = """
            import sys, icalendar
            cal = icalendar.Calendar.from_ical(sys.stdin.buffer.read())
            for ev in cal.walk('VEVENT'):
                start, end = ev.decoded('DTSTART'), ev.decoded('DTEND')
                def zone(name):
                    return ev[name].params.get('TZID', 'UTC' if getattr(ev.decoded(name), 'tzinfo', None) else '-')
                print('%s|%s|%s|%s|%s|%d|%s|%s|%s' % (ev.get('UID'), start.strftime('%Y%m%dT%H%M%S'),
                    ev.get('SUMMARY'), ev.get('STATUS'), ev.get('SEQUENCE'), len(ev.walk('VALARM')),
                    zone('DTSTART'), zone('DTEND'), end.strftime('%Y%m%dT%H%M%S')))
            """
        let parsed = try ReservoirBinary.run(
            ["-c", script], stdin: ics.stdout, executable: URL(fileURLWithPath: Self.python))
        #expect(parsed.status == 0, "\(parsed.stderr)")
        let rows = parsed.text.split(separator: "\n").map { $0.split(separator: "|", omittingEmptySubsequences: false).map(String.init) }
        // Every stored event, as the store lists it, is in the export with its title, status and sequence.
        let events = try #require(try JSONSerialization.jsonObject(with: json.stdout) as? [[String: Any]])
        #expect(rows.count == 6)
        #expect(rows.allSatisfy { $0.count == 9 })
        let fromStore = Set(
            events.map { "\($0["title"] ?? "")|\(($0["status"] as? String ?? "").uppercased())|\($0["sequence"] ?? "")" })
        let fromExport = Set(rows.map { "\($0[2])|\($0[3])|\($0[4])" })
        #expect(fromStore == fromExport)
        let byUID = Dictionary(rows.map { ($0[0], $0) }, uniquingKeysWith: { a, _ in a })
        let dinner = try #require(byUID["IWDSCA_1_epicsteak.example@reservoir"])
        #expect(dinner[2] == "Reservation: EPIC Steak")
        #expect(dinner[3] == "CANCELLED")
        #expect(Int(dinner[4]).map { $0 >= 2 } == true)
        let flight = try #require(rows.first { $0[2] == "Flight: C7 412 from SFO to SEA" })
        // 08:15-07:00 at SFO, arriving 10:22-07:00 at SEA: on the airports' clocks, in their zone.
        #expect(flight[1] == "20310603T081500")
        #expect(flight[6] == "America/Los_Angeles" && flight[7] == "America/Los_Angeles")
        #expect(flight[8] == "20310603T102200")
        #expect(ics.text.contains("\r\nBEGIN:VTIMEZONE\r\nTZID:America/Los_Angeles\r\n"))
        #expect(flight[3] == "CONFIRMED")
        // The check-in alarm and the 3 h reminder.
        #expect(flight[5] == "2")
        // The stations name no zone (no country, no coordinates): the offset is all there is, UTC.
        let train = try #require(rows.first { $0[2] == "Train: EC 15 from Zürich HB to Milano Centrale" })
        #expect(train[1] == "20310714T073300" && train[6] == "UTC")
        // The hotel: check-in 3 June to check-out 6 June as dates, no time of day, no zone.
        let hotel = try #require(rows.first { $0[2] == "Hotel: Harborview Hotel Boston" })
        #expect(hotel[1] == "20310603T000000" && hotel[8] == "20310606T000000" && hotel[6] == "-")
        #expect(ics.text.contains("\r\nDTSTART;VALUE=DATE:20310603\r\nDTEND;VALUE=DATE:20310606\r\nTRANSP:TRANSPARENT\r\n"))
        // RFC 5545 §3.1: a long UID is folded; read the lines unfolded.
        let unfolded = ics.text.replacingOccurrences(of: "\r\n ", with: "")
        for row in rows {
            #expect(unfolded.contains("\r\nUID:\(row[0])\r\n"))
            #expect(unfolded.contains("\r\nSEQUENCE:\(row[4])\r\n"))
        }
    }

    @Test(
        "the configuration file's reminders and calendar-color reach events --ics: a lead per category, or none at all",
        .enabled(if: Requirement.met(pythonICalendar), "python3-icalendar is not installed (apt-get install python3-icalendar)"))
    func configuredReminders() throws {
        try #require(Self.pythonICalendar, "python3-icalendar is not installed (apt-get install python3-icalendar)")
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let store = try Self.scannedStore(tmp)
        let script = """
            import sys, icalendar
            for ev in icalendar.Calendar.from_ical(sys.stdin.buffer.read()).walk('VEVENT'):
                for alarm in ev.walk('VALARM'):
                    print('%s|%s' % (ev.get('SUMMARY'), alarm.get('TRIGGER').to_ical().decode()))
            """
        func triggers(_ config: String) throws -> [String] {
            let path = tmp.path + "/config.toml"
            try config.write(toFile: path, atomically: true, encoding: .utf8)
            let ics = try ReservoirBinary.run(
                ["events", "--ics", "--all", "--store", store, "--now", ReservoirBinary.now], environment: ["RESERVOIR_CONFIG": path])
            #expect(ics.status == 0, "\(ics.stderr)")
            let parsed = try ReservoirBinary.run(["-c", script], stdin: ics.stdout, executable: URL(fileURLWithPath: Self.python))
            return parsed.text.split(separator: "\n").map(String.init)
        }
        let flight = "Flight: C7 412 from SFO to SEA"
        let standard = try triggers("")
        #expect(standard.contains("\(flight)|-PT3H"))
        #expect(standard.contains("Hotel: Harborview Hotel Boston|-PT6H"))
        let tuned = try triggers("[reminders]\nflight = \"PT4H30M\"\nlodging = \"off\"\n")
        #expect(tuned.contains("\(flight)|-PT4H30M"))
        #expect(!tuned.contains { $0.hasPrefix("Hotel:") })
        // The calendar's colour from the same file, beside its name.
        let path = tmp.path + "/config.toml"
        try "calendar-color = \"Teal\"\n".write(toFile: path, atomically: true, encoding: .utf8)
        let colored = try ReservoirBinary.run(
            ["events", "--ics", "--all", "--store", store, "--now", ReservoirBinary.now], environment: ["RESERVOIR_CONFIG": path])
        #expect(colored.text.contains("\r\nX-WR-CALNAME:Reservations\r\n") && colored.text.contains("\r\nCOLOR:teal\r\n"))
        try "calendar-color = \"#008080\"\n".write(toFile: path, atomically: true, encoding: .utf8)
        let refused = try ReservoirBinary.run(["events", "--ics", "--store", store], environment: ["RESERVOIR_CONFIG": path])
        #expect(refused.status != 0 && refused.stderr.contains("calendar-color"))
        // Off: only the flights' check-in alarms, which are not reminders, stay.
        let off = try triggers("reminders = false\n")
        #expect(!off.isEmpty && off.allSatisfy { !$0.contains("|-P") })
    }
}
