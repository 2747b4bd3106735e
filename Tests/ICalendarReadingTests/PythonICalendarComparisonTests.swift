import Foundation
import TestRequirements
import Testing
import TimeZones

@testable import ICalendarReading

/// Debian's python3-icalendar as an independent reader: a corpus of generated invitations read by
/// both, compared event by event (UID, SEQUENCE, SUMMARY, start and end). Skipped with its reason
/// when python3-icalendar is absent (failed under `CI=true`).
@Suite("The reader agrees with python3-icalendar on generated invitations")
struct PythonICalendarComparisonTests {
    static let python = "/usr/bin/python3"
    /// Objects in the corpus; `RESERVOIR_ICALENDAR_OBJECTS` sets another count.
    static let objects = ProcessInfo.processInfo.environment["RESERVOIR_ICALENDAR_OBJECTS"].flatMap(Int.init) ?? 400

    static let available: Bool =
        FileManager.default.isExecutableFile(atPath: python) && (try? run(["-c", "import icalendar"], input: Data())) != nil

    /// One event as both readers report it.
    struct Reading: Equatable, CustomStringConvertible {
        var uid: String
        var sequence: Int
        var summary: String
        /// `date:YYYYMMDD`, `floating:YYYYMMDDTHHMMSS` or `instant:<Unix seconds>`.
        var start: String
        var end: String
        var description: String { "\(uid) #\(sequence) “\(summary)” \(start) → \(end)" }
    }

    @Test(
        "same events, UIDs, SEQUENCEs, summaries and start and end instants",
        .enabled(if: Requirement.met(available), "python3-icalendar is not installed (apt-get install python3-icalendar)"))
    func agree() throws {
        // Before any input is written to a python3 that cannot read it (SIGPIPE ends the tests).
        try #require(Self.available, "python3-icalendar is not installed (apt-get install python3-icalendar)")
        var generator = InvitationGenerator(seed: 0x5EED_1CA1)
        let corpus = (0..<Self.objects).map { _ in generator.object() }
        let theirs = try Self.python(corpus)
        #expect(theirs.count == corpus.count)
        var events = 0
        for (index, object) in corpus.enumerated() where index < theirs.count {
            let ours = ICalendarReader.read(Array(object.utf8)).events.map(Self.reading)
            events += ours.count
            #expect(ours == theirs[index], "object \(index):\n\(object)")
        }
        print("python3-icalendar comparison: \(corpus.count) objects, \(events) events, all equal")
        #expect(events > corpus.count)
    }

    static func reading(_ event: ICalendarEvent) -> Reading {
        Reading(
            uid: event.uid, sequence: event.sequence, summary: event.summary ?? "", start: event.start.map(time) ?? "",
            end: event.end.map(time) ?? "")
    }

    static func time(_ time: ICalendarTime) -> String {
        if time.isDate { return "date:" + time.local.dateText }
        if let epoch = time.epochSeconds { return "instant:\(epoch)" }
        return "floating:" + time.local.rfc5545
    }

    /// python3-icalendar's reading of each object: its VEVENTs in order.
    static func python(_ corpus: [String]) throws -> [[Reading]] {
        let script = """
            import sys, json, datetime, icalendar
            out = []
            for text in json.load(sys.stdin):
                events = []
                for ev in icalendar.Calendar.from_ical(text).walk('VEVENT'):
                    start = ev.decoded('DTSTART')
                    if 'DTEND' in ev:
                        end = ev.decoded('DTEND')
                    elif 'DURATION' in ev:
                        end = start + ev.decoded('DURATION')
                    elif isinstance(start, datetime.datetime):
                        end = start
                    else:
                        end = start + datetime.timedelta(days=1)
                    def form(t):
                        if not isinstance(t, datetime.datetime):
                            return 'date:' + t.strftime('%Y%m%d')
                        if t.tzinfo is None:
                            return 'floating:' + t.strftime('%Y%m%dT%H%M%S')
                        return 'instant:%d' % int(t.timestamp())
                    events.append({'uid': str(ev.get('UID')), 'sequence': int(ev.get('SEQUENCE', 0)),
                                   'summary': str(ev.get('SUMMARY', '')), 'start': form(start), 'end': form(end)})
                out.append(events)
            json.dump(out, sys.stdout)
            """
        let input = try JSONSerialization.data(withJSONObject: corpus)
        let output = try run(["-c", script], input: input)
        let decoded = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[[String: Any]]] ?? []
        return decoded.map { events in
            events.map {
                Reading(
                    uid: $0["uid"] as? String ?? "", sequence: $0["sequence"] as? Int ?? -1, summary: $0["summary"] as? String ?? "",
                    start: $0["start"] as? String ?? "", end: $0["end"] as? String ?? "")
            }
        }
    }

    static func run(_ arguments: [String], input: Data) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = arguments
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        let writer = Thread {
            stdin.fileHandleForWriting.write(input)
            try? stdin.fileHandleForWriting.close()
        }
        writer.start()
        let data = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw CocoaError(.fileReadUnknown) }
        return String(decoding: data, as: UTF8.self)
    }
}

/// Invitations as calendar programs and booking systems write them, varied by a seeded
/// generator: methods, zones (IANA, UTC, floating, all-day), DTEND or DURATION or neither,
/// escaped text, quoted parameters, several events, lines folded at random ASCII positions, CRLF
/// or LF. DURATIONs with days go on DATE and UTC starts only: python3-icalendar adds a duration
/// to a zoned time as exact time, RFC 5545 §3.3.6 its days on the wall clock.
struct InvitationGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    /// SplitMix64.
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func int(_ range: ClosedRange<Int>) -> Int { range.lowerBound + Int(next() % UInt64(range.count)) }
    mutating func pick<T>(_ items: [T]) -> T { items[int(0...(items.count - 1))] }

    static let zones = [
        "Europe/Berlin", "America/New_York", "Asia/Kolkata", "Australia/Sydney", "America/Los_Angeles", "Asia/Tokyo", "Europe/London",
        "Pacific/Chatham", "America/Sao_Paulo",
    ]
    static let words = [
        "Dinner", "Table for 2", "Konzert", "Großer Saal", "Massage", "Check-in", "Flight C7 412", "Zürich HB → Milano", "☕ Coffee",
        "Room 4350", "Tour", "a, b", "x; y", "back\\slash", "line\nbreak",
    ]

    mutating func text() -> String {
        (0..<int(1...4)).map { _ in pick(Self.words) }.joined(separator: " ")
    }

    static func escaped(_ text: String) -> String {
        var out = ""
        for c in text {
            switch c {
            case "\\": out += "\\\\"
            case ";": out += "\\;"
            case ",": out += "\\,"
            case "\n": out += pick(["\\n", "\\N"], at: out.count)
            default: out.append(c)
            }
        }
        return out
    }

    static func pick(_ items: [String], at index: Int) -> String { items[index % items.count] }

    mutating func dateTime() -> (value: String, parameters: String, isDate: Bool, isUTC: Bool) {
        let year = int(2027...2034)
        let month = int(1...12)
        let day = int(1...28)
        let date = String(format: "%04d%02d%02d", year, month, day)
        let time = String(format: "T%02d%02d%02d", int(0...23), pick([0, 15, 30, 45]), pick([0, 0, 30]))
        switch int(0...5) {
        case 0: return (date, pick([";VALUE=DATE", ""]), true, false)
        case 1: return (date + time + "Z", "", false, true)
        case 2: return (date + time, "", false, false)
        default:
            let zone = pick(Self.zones)
            return (date + time, pick([";TZID=\(zone)", ";TZID=\"\(zone)\""]), false, false)
        }
    }

    mutating func event(index: Int) -> [String] {
        let start = dateTime()
        var lines = [
            "BEGIN:VEVENT", "UID:\(pick(["", "booking-"]))\(next() % 1_000_000)-\(index)@\(pick(["example.com", "hotel.example", "air.example"]))",
            "DTSTAMP:20261121T\(String(format: "%02d%02d%02d", int(0...23), int(0...59), int(0...59)))Z",
            "DTSTART\(start.parameters):\(start.value)",
        ]
        if int(0...3) > 0 { lines.append("SEQUENCE:\(int(0...12))") }
        lines.append("SUMMARY\(pick(["", ";LANGUAGE=de-DE"])):\(Self.escaped(text()))")
        switch int(0...2) {
        case 0:
            // The same form as DTSTART, a little later.
            let end = start.value.dropLast(start.isUTC ? 1 : 0)
            let later = String(end.prefix(end.count - 1)) + (end.last == "0" ? "9" : "0")
            if start.isDate {
                lines.append("DTEND\(start.parameters):\(Self.nextDay(start.value))")
            } else {
                lines.append("DTEND\(start.parameters):\(later)\(start.isUTC ? "Z" : "")")
            }
        case 1:
            if start.isDate {
                lines.append("DURATION:P\(int(1...3))D")
            } else if start.isUTC {
                lines.append("DURATION:P\(int(0...2))DT\(int(1...5))H\(pick(["", "30M", "15M20S"]))")
            } else {
                lines.append("DURATION:\(pick(["PT1H", "PT90M", "PT2H30M", "PT45M", "PT3H0M10S"]))")
            }
        default: break
        }
        if int(0...1) == 1 {
            lines.append("ORGANIZER;CN=\"\(pick(["Box office, main", "Harborview Spa", "Jane: Doe"]))\":mailto:\(pick(["a", "events"]))@example.com")
        }
        if int(0...2) == 0 { lines.append("LOCATION:\(Self.escaped(text()))") }
        if int(0...3) == 0 { lines.append("X-UNKNOWN;X-P=\"1,2\";Y=3:free text") }
        lines.append("END:VEVENT")
        return lines
    }

    static func nextDay(_ date: String) -> String {
        let b = Array(date.utf8).map { Int($0) - 48 }
        let year = b[0] * 1000 + b[1] * 100 + b[2] * 10 + b[3]
        let month = b[4] * 10 + b[5]
        let day = b[6] * 10 + b[7] + 1  // days stay within 1…28, so the 29th exists
        return String(format: "%04d%02d%02d", year, month, day)
    }

    /// One object, folded and joined as a sender writes it.
    mutating func object() -> String {
        var lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Reservoir tests//Generator//EN"]
        if let method = pick([nil, "PUBLISH", "REQUEST", "CANCEL"] as [String?]) { lines.append("METHOD:\(method)") }
        for index in 0..<int(1...3) { lines += event(index: index) }
        lines.append("END:VCALENDAR")
        let ending = pick(["\r\n", "\n"])
        return lines.map { fold($0, ending: ending) }.joined()
    }

    /// Folds at random positions between ASCII characters (RFC 5545 §3.1 folds octets; this
    /// keeps python3-icalendar's decoding of each line valid).
    mutating func fold(_ line: String, ending: String) -> String {
        var out = ""
        var length = 0
        var limit = int(8...75)
        for c in line {
            if length >= limit, c.isASCII, out.last?.isASCII ?? false {
                out += ending + pick([" ", "\t"])
                length = 1
                limit = int(8...75)
            }
            out.append(c)
            length += c.utf8.count
        }
        return out + ending
    }
}
