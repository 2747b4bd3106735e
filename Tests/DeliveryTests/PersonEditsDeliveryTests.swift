import Foundation
import ICalendar
import ReservoirBase
import Testing

@testable import Delivery
@testable import EventStore

/// Updates of an event the person changed at the destination: read, merged, written on the tag read.
@Suite("Calendar delivery keeps the person's edits")
struct PersonEditsDeliveryTests {
    /// Content lines of `text`, unfolded.
    static func lines(_ text: String?, _ prefix: String) -> [String] {
        (text ?? "").replacingOccurrences(of: "\r\n ", with: "").components(separatedBy: "\r\n").filter { $0.hasPrefix(prefix) }
    }

    /// `text` as a person's calendar app leaves it: a note added to the description, an alarm,
    /// a category and an X- property of its own; LF line ends, as khal's writer may use.
    static func personEdited(_ text: String, tag: String = "X-KHAL-NOTE:window table") -> String {
        text.replacingOccurrences(of: "DESCRIPTION:Party of 2\r\n", with: "DESCRIPTION:Party of 2 - Ann's birthday\r\n")
            .replacingOccurrences(
                of: "END:VEVENT\r\n",
                with: "CATEGORIES:Birthday\r\n\(tag)\r\nBEGIN:VALARM\r\nACTION:AUDIO\r\nTRIGGER:-PT15M\r\nEND:VALARM\r\nEND:VEVENT\r\n"
            )
            .replacingOccurrences(of: "\r\n", with: "\n")
    }

    /// Replaces the file the way an editor or vdirsyncer does: a new file renamed over it.
    static func replaceFile(_ path: String, with text: String) throws {
        try text.write(toFile: path + ".new", atomically: false, encoding: .utf8)
        #expect(rename(path + ".new", path) == 0)
    }

    @Test("vdir: a move and then a cancellation change the time and status and keep the person's note, alarm, category and X- property")
    func vdirMoveKeepsEdits() throws {
        let fixture = try DeliveryFixture()
        defer { fixture.remove() }
        let delivery = fixture.delivery(try VdirCollection(path: fixture.vdirPath))
        try fixture.apply(at: "2031-05-12T19:30:00", id: "<a@x>", date: 1000)
        #expect(delivery.pushPending().map(\.outcome) == [.created])
        try Self.replaceFile(fixture.file(), with: Self.personEdited(try String(contentsOfFile: fixture.file(), encoding: .utf8)))

        try fixture.apply(at: "2031-05-12T18:30:00", id: "<b@x>", date: 2000)
        let moved = delivery.pushPending()
        #expect(moved.map(\.outcome) == [.updated])
        #expect(moved.first?.replacedUnreadableCopy == nil)
        var text = try String(contentsOfFile: fixture.file(), encoding: .utf8)
        #expect(Self.lines(text, "DTSTART") == ["DTSTART:20310513T013000Z"])
        #expect(Self.lines(text, "SEQUENCE") == ["SEQUENCE:1"])
        #expect(Self.lines(text, "DESCRIPTION:Party") == ["DESCRIPTION:Party of 2 - Ann's birthday"])
        #expect(Self.lines(text, "CATEGORIES") == ["CATEGORIES:FOOD", "CATEGORIES:Birthday"])
        #expect(Self.lines(text, "X-KHAL-NOTE") == ["X-KHAL-NOTE:window table"])
        #expect(Self.lines(text, "ACTION") == ["ACTION:DISPLAY", "ACTION:AUDIO"])

        try fixture.apply(at: "2031-05-12T18:30:00", status: .cancelled, id: "<c@x>", date: 3000)
        #expect(delivery.pushPending().map(\.outcome) == [.cancelled])
        text = try String(contentsOfFile: fixture.file(), encoding: .utf8)
        #expect(Self.lines(text, "STATUS") == ["STATUS:CANCELLED"])
        #expect(Self.lines(text, "SEQUENCE") == ["SEQUENCE:2"])
        #expect(Self.lines(text, "DESCRIPTION:Party") == ["DESCRIPTION:Party of 2 - Ann's birthday"])
        #expect(Self.lines(text, "ACTION") == ["ACTION:AUDIO"])
        #expect(Self.lines(text, "X-KHAL-NOTE") == ["X-KHAL-NOTE:window table"])
        // No temporary file left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.vdirPath).count == 1)
    }

    @Test("an edit between the read and the write fails If-Match; the newer copy is read and merged, not the first")
    func editDuringMerge() throws {
        let fixture = try DeliveryFixture()
        defer { fixture.remove() }
        try fixture.apply(at: "2031-05-12T19:30:00", id: "<a@x>", date: 1000)
        let first = try #require(try fixture.store.events().first)
        let pushed = ICalendarWriter().object(first)
        try fixture.apply(at: "2031-05-12T18:30:00", id: "<b@x>", date: 2000)
        let server = ScriptedCollection([
            .preconditionFailed, .done(etag: "\"2\"", body: Self.personEdited(pushed, tag: "X-EDIT:first")),
            .preconditionFailed, .done(etag: "\"3\"", body: Self.personEdited(pushed, tag: "X-EDIT:second")),
            .done(etag: "\"4\"", body: nil),
        ])
        let attempts = fixture.delivery(server).pushPending()
        #expect(attempts.map(\.outcome) == [.created])
        #expect(server.requests == ["PUT create", "GET", "PUT replace \"2\"", "GET", "PUT replace \"3\""])
        let written = server.bodies.last
        #expect(Self.lines(written, "X-EDIT") == ["X-EDIT:second"])
        #expect(Self.lines(written, "DTSTART") == ["DTSTART:20310513T013000Z"])
        #expect(Self.lines(written, "DESCRIPTION:Party") == ["DESCRIPTION:Party of 2 - Ann's birthday"])
        #expect(try fixture.store.deliveryRecords().first?.etag == "\"4\"")
    }

    @Test("a copy that is not a calendar is replaced by the store's revision, and the attempt says so")
    func unreadableCopy() throws {
        let fixture = try DeliveryFixture()
        defer { fixture.remove() }
        try fixture.apply(at: "2031-05-12T19:30:00", id: "<a@x>", date: 1000)
        let server = ScriptedCollection([.preconditionFailed, .done(etag: "\"2\"", body: "<html>moved</html>"), .done(etag: "\"3\"", body: nil)])
        let attempts = fixture.delivery(server).pushPending()
        #expect(attempts.map(\.outcome) == [.created])
        #expect(attempts.first?.replacedUnreadableCopy == .notACalendar)
        let stored = try #require(try fixture.store.events().first)
        #expect(server.bodies.last == ICalendarWriter().object(stored))
    }

    @Test("an update reads the copy first and writes on the tag read, not on the tag of the last push")
    func updateReadsFirst() throws {
        let fixture = try DeliveryFixture()
        defer { fixture.remove() }
        try fixture.apply(at: "2031-05-12T19:30:00", id: "<a@x>", date: 1000)
        let first = try #require(try fixture.store.events().first)
        let edited = Self.personEdited(ICalendarWriter().object(first))
        let server = ScriptedCollection([
            .done(etag: "\"1\"", body: nil), .done(etag: "\"5\"", body: edited), .done(etag: "\"6\"", body: nil),
        ])
        let delivery = fixture.delivery(server)
        #expect(delivery.pushPending().map(\.outcome) == [.created])
        try fixture.apply(at: "2031-05-12T18:30:00", id: "<b@x>", date: 2000)
        #expect(delivery.pushPending().map(\.outcome) == [.updated])
        #expect(server.requests == ["PUT create", "GET", "PUT replace \"5\""])
        #expect(Self.lines(server.bodies.last, "X-KHAL-NOTE") == ["X-KHAL-NOTE:window table"])
        #expect(Self.lines(server.bodies.last, "DTSTART") == ["DTSTART:20310513T013000Z"])
    }

    @Test("a server that sends no tag with the copy: the merge is written on the tag of the last push")
    func untaggedRead() throws {
        let fixture = try DeliveryFixture()
        defer { fixture.remove() }
        try fixture.apply(at: "2031-05-12T19:30:00", id: "<a@x>", date: 1000)
        let first = try #require(try fixture.store.events().first)
        let server = ScriptedCollection([
            .done(etag: "\"1\"", body: nil), .done(etag: nil, body: Self.personEdited(ICalendarWriter().object(first))),
            .done(etag: "\"2\"", body: nil),
        ])
        let delivery = fixture.delivery(server)
        #expect(delivery.pushPending().map(\.outcome) == [.created])
        try fixture.apply(at: "2031-05-12T18:30:00", id: "<b@x>", date: 2000)
        #expect(delivery.pushPending().map(\.outcome) == [.updated])
        #expect(server.requests == ["PUT create", "GET", "PUT replace \"1\""])
        #expect(Self.lines(server.bodies.last, "X-KHAL-NOTE") == ["X-KHAL-NOTE:window table"])
    }
}
