import EventStore
import Foundation
import ReservoirBase
import Testing

@testable import ICalendar

@Suite("Merging a copy edited at a destination")
struct CalendarObjectMergeTests {
    let writer = ICalendarWriter()

    /// The object Reservoir wrote first, and the revision after the booking moved an hour earlier.
    var first: String { writer.object(stored()) }
    var moved: String { writer.object(stored(local: "2031-05-12T18:30:00", sequence: 1)) }

    /// Content lines of `text`, unfolded.
    static func lines(_ text: String) -> [String] {
        text.replacingOccurrences(of: "\r\n ", with: "").components(separatedBy: "\r\n").filter { !$0.isEmpty }
    }

    static func lines(_ text: String, _ prefix: String) -> [String] { lines(text).filter { $0.hasPrefix(prefix) } }

    /// `text` with `lines` inserted before the first line that starts with `before`.
    static func inserting(_ added: [String], before: String, in text: String) -> String {
        var all = lines(text)
        let index = all.firstIndex { $0.hasPrefix(before) } ?? all.count
        all.insert(contentsOf: added, at: index)
        return all.joined(separator: "\r\n") + "\r\n"
    }

    static func replacing(_ prefix: String, with line: String?, in text: String) -> String {
        lines(text).compactMap { $0.hasPrefix(prefix) ? line : $0 }.joined(separator: "\r\n") + "\r\n"
    }

    static let personAlarm = ["BEGIN:VALARM", "ACTION:AUDIO", "TRIGGER:-PT15M", "END:VALARM"]

    @Test("an unedited copy becomes exactly the new revision")
    func unedited() {
        let result = CalendarObjectMerge.merge(server: first, ours: moved)
        #expect(result.text == moved)
        #expect(result.unreadable == nil)
        #expect(!result.keptPersonDescription)
    }

    @Test("the person's alarm, notes, categories, colour, attachment and X- properties survive a move; the time is the new one")
    func personEditsKept() {
        var edited = Self.replacing("DESCRIPTION:Party of 2", with: "DESCRIPTION:Party of 2\\nAsk for the window table", in: first)
        edited = Self.inserting(
            ["CATEGORIES:Birthday", "COLOR:tomato", "X-MOZ-SNOOZE-TIME:20310512T170000Z", "ATTACH:https://example.org/menu.pdf"]
                + Self.personAlarm, before: "END:VEVENT", in: edited)
        let result = CalendarObjectMerge.merge(server: edited, ours: moved)
        let lines = Self.lines(result.text)
        #expect(result.unreadable == nil)
        #expect(result.keptPersonDescription)
        #expect(Self.lines(result.text, "DTSTART") == ["DTSTART:20310513T013000Z"])
        #expect(Self.lines(result.text, "SEQUENCE") == ["SEQUENCE:1"])
        #expect(Self.lines(result.text, "DESCRIPTION:Party") == ["DESCRIPTION:Party of 2\\nAsk for the window table"])
        #expect(Self.lines(result.text, "CATEGORIES") == ["CATEGORIES:FOOD", "CATEGORIES:Birthday"])
        for kept in ["COLOR:tomato", "X-MOZ-SNOOZE-TIME:20310512T170000Z", "ATTACH:https://example.org/menu.pdf", "ACTION:AUDIO"] {
            #expect(lines.contains(kept), "\(kept) lost")
        }
        // Reservoir's reminder once, the person's beside it.
        #expect(Self.lines(result.text, "BEGIN:VALARM").count == 2)
        #expect(Self.lines(result.text, "X-RESERVOIR-ALARM") == ["X-RESERVOIR-ALARM:reminder"])
        // Merged again with the same revision, nothing changes.
        #expect(CalendarObjectMerge.merge(server: result.text, ours: moved).text == result.text)
        // The digest still names Reservoir's text, so the next update keeps the person's again.
        let again = CalendarObjectMerge.merge(server: result.text, ours: writer.object(stored(local: "2031-05-12T17:30:00", sequence: 2)))
        #expect(again.keptPersonDescription)
        #expect(Self.lines(again.text, "DTSTART") == ["DTSTART:20310513T003000Z"])
        #expect(Self.lines(again.text, "BEGIN:VALARM").count == 2)
    }

    @Test("an unedited DESCRIPTION takes Reservoir's new text; one the person removed stays removed")
    func descriptionRule() {
        let newNotes = writer.object(stored(sequence: 1, notes: "Party of 4"))
        let unedited = CalendarObjectMerge.merge(server: first, ours: newNotes)
        #expect(Self.lines(unedited.text, "DESCRIPTION:Party") == ["DESCRIPTION:Party of 4"])
        #expect(!unedited.keptPersonDescription)

        let removed = Self.replacing("DESCRIPTION:Party", with: nil, in: first)
        let result = CalendarObjectMerge.merge(server: removed, ours: newNotes)
        #expect(Self.lines(result.text, "DESCRIPTION:Party").isEmpty)
        #expect(result.keptPersonDescription)

        // A digest that does not match, over Reservoir's own new text: not the person's edit, and
        // stable when merged again.
        let stale = Self.replacing("X-RESERVOIR-DESCRIPTION-DIGEST", with: "X-RESERVOIR-DESCRIPTION-DIGEST:0", in: first)
        let once = CalendarObjectMerge.merge(server: stale, ours: moved)
        #expect(!once.keptPersonDescription)
        #expect(CalendarObjectMerge.merge(server: once.text, ours: moved).text == once.text)

        // Line breaks written differently by the person's client are not an edit.
        let crlf = first.replacingOccurrences(of: "DESCRIPTION:Party of 2", with: "DESCRIPTION:Party of 2\\n")
        #expect(!CalendarObjectMerge.merge(server: crlf, ours: newNotes).keptPersonDescription)
    }

    @Test("a copy written before the markers: Reservoir's old reminder is replaced, the person's kept, the notes are Reservoir's")
    func legacyCopy() {
        let old = ICalendarWriter().vevent(stored(notes: "Party of 2"), zones: ZoneTable([]))
        var legacy = (["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Reservoir//Reservoir//EN"] + old + ["END:VCALENDAR"]).joined(separator: "\r\n")
        legacy = Self.replacing("DESCRIPTION:Party of 2", with: "DESCRIPTION:Party of 2 (edited)", in: legacy)
        legacy = Self.inserting(Self.personAlarm, before: "END:VEVENT", in: legacy)
        #expect(Self.lines(legacy, "X-RESERVOIR").isEmpty)
        let result = CalendarObjectMerge.merge(server: legacy, ours: moved)
        #expect(Self.lines(result.text, "BEGIN:VALARM").count == 2)
        #expect(Self.lines(result.text, "ACTION:AUDIO").count == 1)
        #expect(Self.lines(result.text, "DESCRIPTION:Party") == ["DESCRIPTION:Party of 2"])
    }

    @Test("once marked, an unmarked alarm that repeats the summary is the person's")
    func unmarkedAlarmIsPersons() {
        let edited = Self.inserting(
            ["BEGIN:VALARM", "ACTION:DISPLAY", "TRIGGER:-PT10M", "DESCRIPTION:Reservation: EPIC Steak", "END:VALARM"], before: "END:VEVENT",
            in: first)
        let result = CalendarObjectMerge.merge(server: edited, ours: moved)
        #expect(Self.lines(result.text, "TRIGGER") == ["TRIGGER:-PT2H", "TRIGGER:-PT10M"])
    }

    @Test("LOCATION, GEO, URL, TRANSP: Reservoir's when it writes one, else the person's")
    func ownedWhenWritten() {
        let edited = Self.replacing("LOCATION:", with: "LOCATION:Upstairs room", in: first)
        #expect(
            Self.lines(CalendarObjectMerge.merge(server: edited, ours: moved).text, "LOCATION")
                == ["LOCATION:EPIC Steak\\, 369 The Embarcadero\\, San Francisco\\, CA 94105"])
        let noPlace = writer.object(stored(sequence: 1, location: nil))
        #expect(Self.lines(CalendarObjectMerge.merge(server: edited, ours: noPlace).text, "LOCATION") == ["LOCATION:Upstairs room"])
        let summary = Self.replacing("SUMMARY:", with: "SUMMARY:Dinner with Ann", in: first)
        #expect(Self.lines(CalendarObjectMerge.merge(server: summary, ours: moved).text, "SUMMARY") == ["SUMMARY:Reservation: EPIC Steak"])
    }

    @Test("one master per UID; instances kept once per RECURRENCE-ID; other UIDs and components dropped; METHOD dropped")
    func components() {
        let uid = Self.lines(first, "UID:")[0]
        let instance = [
            "BEGIN:VEVENT", uid, "RECURRENCE-ID:20310519T023000Z", "DTSTART:20310519T030000Z", "SUMMARY:Moved once", "END:VEVENT",
        ]
        let duplicateMaster = ["BEGIN:VEVENT", uid, "DTSTART:19990101T000000Z", "SUMMARY:Second master", "END:VEVENT"]
        let stranger = ["BEGIN:VEVENT", "UID:someone-else", "DTSTART:19990101T000000Z", "END:VEVENT"]
        let todo = ["BEGIN:VTODO", "UID:todo", "END:VTODO"]
        var server = Self.inserting(["METHOD:PUBLISH", "X-WR-CALNAME:Mine"], before: "BEGIN:VEVENT", in: first)
        server = Self.inserting(instance + instance + duplicateMaster + stranger + todo, before: "END:VCALENDAR", in: server)
        let result = CalendarObjectMerge.merge(server: server, ours: moved)
        #expect(result.unreadable == nil)
        #expect(Self.lines(result.text, "BEGIN:VEVENT").count == 2)
        #expect(Self.lines(result.text, "RECURRENCE-ID") == ["RECURRENCE-ID:20310519T023000Z"])
        #expect(Self.lines(result.text, "SUMMARY") == ["SUMMARY:Reservation: EPIC Steak", "SUMMARY:Moved once"])
        #expect(Self.lines(result.text, "UID:someone-else").isEmpty)
        #expect(Self.lines(result.text, "BEGIN:VTODO").isEmpty)
        #expect(Self.lines(result.text, "METHOD").isEmpty)
        #expect(Self.lines(result.text, "X-WR-CALNAME") == ["X-WR-CALNAME:Mine"])
        #expect(Self.lines(result.text, "VERSION") == ["VERSION:2.0"])
    }

    @Test("a VTIMEZONE of the copy stays when a kept line names it, and goes otherwise")
    func timeZones() {
        let paris = ["BEGIN:VTIMEZONE", "TZID:Europe/Paris", "BEGIN:STANDARD", "DTSTART:19701025T030000", "END:STANDARD", "END:VTIMEZONE"]
        let tokyo = ["BEGIN:VTIMEZONE", "TZID:Asia/Tokyo", "BEGIN:STANDARD", "DTSTART:19700101T000000", "END:STANDARD", "END:VTIMEZONE"]
        var server = Self.inserting(paris + tokyo, before: "BEGIN:VEVENT", in: first)
        server = Self.inserting(["EXDATE;TZID=\"Europe/Paris\":20310519T033000"], before: "END:VEVENT", in: server)
        let result = CalendarObjectMerge.merge(server: server, ours: moved)
        #expect(Self.lines(result.text, "TZID:") == ["TZID:Europe/Paris"])
        #expect(Self.lines(result.text, "EXDATE") == ["EXDATE;TZID=\"Europe/Paris\":20310519T033000"])
    }

    @Test("a cancellation merges too: cancelled, Reservoir's alarm gone, the person's alarm and notes kept")
    func cancellation() {
        var edited = Self.replacing("DESCRIPTION:Party of 2", with: "DESCRIPTION:Ann's birthday", in: first)
        edited = Self.inserting(Self.personAlarm, before: "END:VEVENT", in: edited)
        let result = CalendarObjectMerge.merge(server: edited, ours: writer.object(stored(status: .cancelled, sequence: 2)))
        #expect(Self.lines(result.text, "STATUS") == ["STATUS:CANCELLED"])
        #expect(Self.lines(result.text, "X-RESERVOIR-ALARM").isEmpty)
        #expect(Self.lines(result.text, "ACTION") == ["ACTION:AUDIO"])
        #expect(Self.lines(result.text, "DESCRIPTION:Ann") == ["DESCRIPTION:Ann's birthday"])
    }

    static let unreadableCopies: [(String, CalendarObjectMerge.Unreadable)] = {
        let deep: String = String(repeating: "BEGIN:X\r\n", count: 9) + String(repeating: "END:X\r\n", count: 9)
        let long: String = "BEGIN:VCALENDAR\r\n" + String(repeating: "X-A:1\r\n", count: 20_001) + "END:VCALENDAR\r\n"
        let many: String = "BEGIN:VCALENDAR\r\n" + String(repeating: "BEGIN:X\r\nEND:X\r\n", count: 1_000) + "END:VCALENDAR\r\n"
        let large: String = "BEGIN:VCALENDAR\r\nX-A:" + String(repeating: "a", count: 1 << 20) + "\r\nEND:VCALENDAR\r\n"
        var cases: [(String, CalendarObjectMerge.Unreadable)] = [
            ("", .notACalendar), ("hello", .notACalendar), ("BEGIN:VEVENT\r\nEND:VEVENT\r\n", .notACalendar),
            ("BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:x\r\nEND:VCALENDAR\r\n", .notACalendar),
            ("BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nEND:VEVENT\r\n", .notACalendar),
            ("BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:another\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n", .noEvent),
        ]
        cases += [(deep, .tooLarge), (long, .tooLarge), (many, .tooLarge), (large, .tooLarge)]
        return cases
    }()

    @Test(
        "a copy that cannot be read is replaced by Reservoir's object, and the result says why",
        arguments: Self.unreadableCopies)
    func unreadable(_ server: String, _ reason: CalendarObjectMerge.Unreadable) {
        let result = CalendarObjectMerge.merge(server: server, ours: moved)
        #expect(result.text == moved)
        #expect(result.unreadable == reason)
    }

    @Test("a line with a control character cannot smuggle a second DTSTART into the event; it is dropped")
    func controlCharacters() {
        let server = Self.inserting(["X-EVIL:x\rDTSTART:19990101T000000Z", "X-NUL:a\u{0}b", "X-TAB:a\tb"], before: "END:VEVENT", in: first)
        let result = CalendarObjectMerge.merge(server: server, ours: moved)
        #expect(Self.lines(result.text, "DTSTART") == ["DTSTART:20310513T013000Z"])
        #expect(!result.text.contains("X-EVIL") && !result.text.contains("X-NUL"))
        #expect(Self.lines(result.text, "X-TAB") == ["X-TAB:a\tb"])
    }

    @Test("the merged object is folded at 75 octets and a long kept value comes back whole; LF-only copies with a byte order mark are read")
    func folding() {
        let note = String(repeating: "Fenster, bitte. ", count: 20)
        let edited = Self.replacing("DESCRIPTION:Party", with: "DESCRIPTION:" + ICalendarWriter.escape(note), in: first)
            .replacingOccurrences(of: "\r\n", with: "\n")
        let result = CalendarObjectMerge.merge(server: "\u{FEFF}" + edited, ours: moved)
        #expect(result.unreadable == nil)
        #expect(result.text.components(separatedBy: "\r\n").allSatisfy { $0.utf8.count <= 75 })
        #expect(Self.lines(result.text, "DESCRIPTION:Fenster") == ["DESCRIPTION:" + ICalendarWriter.escape(note)])
    }

    @Test("objects for destinations carry the markers; exported calendars do not")
    func markers() {
        #expect(
            Self.lines(first, "X-RESERVOIR-DESCRIPTION-DIGEST") == [
                "X-RESERVOIR-DESCRIPTION-DIGEST:\(CalendarObjectMerge.descriptionDigest("Party of 2"))"
            ])
        #expect(Self.lines(first, "X-RESERVOIR-ALARM") == ["X-RESERVOIR-ALARM:reminder"])
        #expect(Self.lines(writer.write([stored()]), "X-RESERVOIR").isEmpty)
        #expect(CalendarObjectMerge.descriptionDigest("a\r\nb\n") == CalendarObjectMerge.descriptionDigest("a\nb"))
        #expect(CalendarObjectMerge.descriptionDigest("a") != CalendarObjectMerge.descriptionDigest("b"))
    }

    @Test("a flight's check-in alarm is marked; an old unmarked one is replaced, not doubled")
    func checkinAlarm() throws {
        var flight = stored(notes: "Seat: 14A\nCheck-in URL: https://air.example/checkin?pnr=K7Q2PX")
        flight.event.category = .flight
        flight.event.checkinCloses = try #require(flight.event.start?.epochSeconds)
        let object = writer.object(flight)
        #expect(Self.lines(object, "X-RESERVOIR-ALARM") == ["X-RESERVOIR-ALARM:checkin", "X-RESERVOIR-ALARM:reminder"])
        let old = ICalendarWriter().vevent(flight, zones: ZoneTable([]))
        let legacy = (["BEGIN:VCALENDAR", "VERSION:2.0"] + old + ["END:VCALENDAR", ""]).joined(separator: "\r\n")
        flight.sequence = 1
        let result = CalendarObjectMerge.merge(server: legacy, ours: writer.object(flight))
        #expect(result.unreadable == nil)
        #expect(Self.lines(result.text, "BEGIN:VALARM").count == 2)
        #expect(Self.lines(result.text, "DESCRIPTION:Check-in opens").count == 1)
    }
}
