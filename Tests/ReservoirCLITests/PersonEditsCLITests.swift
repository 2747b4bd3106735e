import Foundation
import PostgresTestSupport
import TestRequirements
import Testing

extension ProcessSuites {
    /// The person's own changes to an event Reservoir put in their calendar, made as a calendar
    /// app makes them (python3-icalendar reads the object, adds and writes it back whole), must
    /// survive the "moved" and "cancelled" mails that update the event: in Radicale through
    /// CalDAV, and in a vdir as khal leaves it.
    @Suite("the person's edits survive updates")
    struct PersonEditsCLITests {
        static let python = "/usr/bin/python3"
        static let name = "IWDSCA_1_epicsteak.example@reservoir.ics"

        static var hasPythonICalendar: Bool {
            guard let r = try? ChildProcess.capture([python, "-c", "import icalendar"]) else { return false }
            return r.status == 0
        }

        /// The event of `text` as a person edits it: a note appended to the description, a
        /// category, a colour, an X- property and a sound alarm 15 minutes before.
        static func edit(_ text: String, in tmp: TemporaryDirectory) throws -> String {
            let script = """
                import datetime, icalendar, sys
                cal = icalendar.Calendar.from_ical(open(sys.argv[1], 'rb').read())
                for ev in cal.walk('VEVENT'):
                    ev['DESCRIPTION'] = str(ev.get('DESCRIPTION', '')) + "\\nAnn's birthday, window table"
                    ev.add('CATEGORIES', ['Birthday'])
                    ev.add('COLOR', 'tomato')
                    ev.add('X-PERSON-NOTE', 'bring the voucher')
                    alarm = icalendar.Alarm()
                    alarm.add('ACTION', 'AUDIO')
                    alarm.add('TRIGGER', datetime.timedelta(minutes=-15))
                    ev.add_component(alarm)
                open(sys.argv[2], 'wb').write(cal.to_ical())
                """
            let input = tmp.path + "/person-in.ics"
            let output = tmp.path + "/person-out.ics"
            try text.write(toFile: input, atomically: true, encoding: .utf8)
            let r = try ChildProcess.capture([python, "-c", script, input, output])
            #expect(r.status == 0, "\(String(decoding: r.stderr, as: UTF8.self))")
            return try String(contentsOfFile: output, encoding: .utf8)
        }

        /// Content lines of `text`, unfolded (RFC 5545 §3.1).
        static func lines(_ text: String) -> [String] {
            text.replacingOccurrences(of: "\r\n ", with: "").replacingOccurrences(of: "\r\n\t", with: "")
                .components(separatedBy: "\r\n").filter { !$0.isEmpty }
        }

        /// Checks that the person's additions are in `text`, once each.
        static func expectPersonEdits(_ text: String, _ step: String) {
            let lines = lines(text)
            func count(_ prefix: String) -> Int { lines.filter { $0.hasPrefix(prefix) }.count }
            #expect(lines.contains { $0.hasPrefix("DESCRIPTION:") && $0.contains("Ann's birthday\\, window table") }, "\(step): note lost")
            #expect(lines.contains { $0.hasPrefix("CATEGORIES") && $0.contains("Birthday") }, "\(step): category lost")
            #expect(count("COLOR:tomato") == 1, "\(step): colour")
            #expect(count("X-PERSON-NOTE:bring the voucher") == 1, "\(step): X- property")
            #expect(count("ACTION:AUDIO") == 1, "\(step): the person's alarm")
            #expect(count("TRIGGER:-PT15M") == 1, "\(step): the person's alarm")
        }

        static func value(_ text: String, _ name: String) -> [String] {
            lines(text).filter { $0.hasPrefix(name + ":") || $0.hasPrefix(name + ";") }
        }

        @Test(
            "Radicale: the person's alarm, note, category, colour and X- property survive the move and the cancellation",
            .enabled(
                if: Requirement.met(CalDAVDeliveryTests.hasRadicale && hasPythonICalendar),
                "radicale and python3-icalendar are needed (apt-get install radicale python3-icalendar)"))
        func radicale() throws {
            let server = try RadicaleServer()
            defer { server.stop() }
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let store = "sqlite:\(tmp.path)/events.sqlite3"
            #expect(try CalDAVDeliveryTests.filter(1, store: store, calendar: server.url, netrc: server.netrc).status == 0)
            try server.put(Self.name, try Self.edit(try server.get(Self.name), in: tmp))

            let moved = try CalDAVDeliveryTests.filter(2, store: store, calendar: server.url, netrc: server.netrc)
            #expect(moved.status == 0 && moved.stderr.isEmpty, "\(moved.stderr)")
            var text = try server.get(Self.name)
            #expect(Self.value(text, "DTSTART") == ["DTSTART:20310513T013000Z"])
            #expect(Self.value(text, "SEQUENCE") == ["SEQUENCE:1"])
            #expect(Self.value(text, "X-RESERVOIR-ALARM") == ["X-RESERVOIR-ALARM:reminder"])
            Self.expectPersonEdits(text, "moved")

            let cancelled = try CalDAVDeliveryTests.filter(3, store: store, calendar: server.url, netrc: server.netrc)
            #expect(cancelled.status == 0 && cancelled.stderr.isEmpty, "\(cancelled.stderr)")
            text = try server.get(Self.name)
            #expect(Self.value(text, "STATUS") == ["STATUS:CANCELLED"])
            #expect(Self.value(text, "SEQUENCE") == ["SEQUENCE:2"])
            #expect(Self.value(text, "X-RESERVOIR-ALARM").isEmpty)
            Self.expectPersonEdits(text, "cancelled")
            // Nothing waits: the merged revisions were recorded as delivered.
            let sync = try ReservoirBinary.run(["sync", "--store", store, "--calendar", server.url, "--netrc", server.netrc])
            #expect(sync.text == "0 pushed, 0 waiting\n")
        }

        @Test(
            "vdir: the file as the person's app rewrote it keeps their additions through the move and the cancellation",
            .enabled(if: Requirement.met(hasPythonICalendar), "python3-icalendar is needed (apt-get install python3-icalendar)"))
        func vdir() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let vdir = tmp.path + "/calendar"
            let file = vdir + "/" + Self.name
            #expect(try VdirDeliveryTests.filter(1, tmp, calendar: "vdir:" + vdir).status == 0)
            // Written beside and renamed over, as khal and vdirsyncer replace a file.
            try Self.edit(try String(contentsOfFile: file, encoding: .utf8), in: tmp).write(toFile: file + ".tmp", atomically: false, encoding: .utf8)
            #expect(rename(file + ".tmp", file) == 0)

            let moved = try VdirDeliveryTests.filter(2, tmp, calendar: "vdir:" + vdir)
            #expect(moved.status == 0 && moved.stderr.isEmpty, "\(moved.stderr)")
            var text = try String(contentsOfFile: file, encoding: .utf8)
            #expect(Self.value(text, "DTSTART") == ["DTSTART:20310513T013000Z"])
            Self.expectPersonEdits(text, "moved")

            let cancelled = try VdirDeliveryTests.filter(3, tmp, calendar: "vdir:" + vdir)
            #expect(cancelled.status == 0 && cancelled.stderr.isEmpty, "\(cancelled.stderr)")
            text = try String(contentsOfFile: file, encoding: .utf8)
            #expect(Self.value(text, "STATUS") == ["STATUS:CANCELLED"])
            Self.expectPersonEdits(text, "cancelled")
            #expect(VdirDeliveryTests.files(vdir) == [Self.name])
        }

        @Test("vdir: a file that is not a calendar any more is replaced by the move, and the filter says so")
        func unreadableCopy() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let vdir = tmp.path + "/calendar"
            let file = vdir + "/" + Self.name
            #expect(try VdirDeliveryTests.filter(1, tmp, calendar: "vdir:" + vdir).status == 0)
            try "dinner moved, see you at 6\n".write(toFile: file + ".tmp", atomically: false, encoding: .utf8)
            #expect(rename(file + ".tmp", file) == 0)
            let moved = try VdirDeliveryTests.filter(2, tmp, calendar: "vdir:" + vdir)
            #expect(moved.status == 0)
            #expect(moved.stderr.contains("could not be read (not-a-calendar); replaced by the store's revision"), "\(moved.stderr)")
            let text = try String(contentsOfFile: file, encoding: .utf8)
            #expect(Self.value(text, "DTSTART") == ["DTSTART:20310513T013000Z"])
            // A copy that reads is merged without a word.
            let cancelled = try VdirDeliveryTests.filter(3, tmp, calendar: "vdir:" + vdir)
            #expect(cancelled.status == 0 && cancelled.stderr.isEmpty, "\(cancelled.stderr)")
        }

        @Test(
            "Xandikos: scan after the person's edit writes the move and keeps the edit; the server takes the merged object",
            .enabled(
                if: Requirement.met(FileManager.default.isExecutableFile(atPath: CalDAVDeliveryTests.xandikos) && hasPythonICalendar),
                "xandikos and python3-icalendar are needed (apt-get install xandikos python3-icalendar)"))
        func xandikos() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let port = try LoopbackPort.free()
            let server = Process()
            server.executableURL = URL(fileURLWithPath: CalDAVDeliveryTests.xandikos)
            server.arguments = ["--defaults", "-d", tmp.path + "/data", "-l", "127.0.0.1", "-p", String(port)]
            server.standardOutput = FileHandle.nullDevice
            server.standardError = FileHandle.nullDevice
            try server.run()
            defer {
                kill(server.processIdentifier, SIGKILL)
                server.waitUntilExit()
            }
            try LoopbackPort.waitUntilListening(port)
            let url = "http://127.0.0.1:\(port)/user/calendars/calendar/"
            let store = "sqlite:\(tmp.path)/events.sqlite3"
            func scan(_ number: Int) throws -> ReservoirBinary.Result {
                try ReservoirBinary.run(
                    ["scan", try ReservoirBinary.sample(number), "--keys", ReservoirBinary.keys, "--allowed-domains", ReservoirBinary.allowed]
                        + ["--now", ReservoirBinary.now, "--store", store, "--calendar", url])
            }
            func curl(_ arguments: [String]) throws -> String {
                String(decoding: try ChildProcess.capture(["/usr/bin/curl", "-s"] + arguments).stdout, as: UTF8.self)
            }
            #expect(try scan(1).status == 0)
            let edited = try Self.edit(try curl([url + Self.name]), in: tmp)
            try edited.write(toFile: tmp.path + "/put.ics", atomically: true, encoding: .utf8)
            let status = try curl([
                "-o", "/dev/null", "-w", "%{http_code}", "-T", tmp.path + "/put.ics", "-H", "Content-Type: text/calendar", url + Self.name,
            ])
            #expect(["201", "204"].contains(status))

            let moved = try scan(2)
            #expect(moved.status == 0, "\(moved.stderr)")
            let text = try curl([url + Self.name])
            #expect(Self.value(text, "DTSTART") == ["DTSTART:20310513T013000Z"])
            #expect(Self.value(text, "SEQUENCE") == ["SEQUENCE:1"])
            Self.expectPersonEdits(text, "moved")
        }
    }
}
