import Foundation
import ICalendar
import ReservoirBase
import Testing

@testable import Delivery
@testable import EventStore

/// A store in a fresh directory, a vdir beside it, and the booking of the samples.
struct DeliveryFixture {
    let directory: String
    let store: SQLiteEventStore
    let vdirPath: String

    init() throws {
        directory = NSTemporaryDirectory() + "reservoir-delivery-\(UUID().uuidString)"
        store = try SQLiteEventStore(path: directory + "/events.sqlite3")
        vdirPath = directory + "/calendar"
    }

    func remove() { try? FileManager.default.removeItem(atPath: directory) }

    func delivery(_ collection: any CalendarCollection, deleteCancelled: Bool = false) -> CalendarDelivery {
        CalendarDelivery(
            ledger: store, destinations: [(.vdir(path: vdirPath), collection)],
            options: .init(deleteCancelled: deleteCancelled), clock: .pinned(at: 1_000))
    }

    @discardableResult
    func apply(at local: String, status: EventStatus = .confirmed, id: String, date: Int64, item: String = "1") throws -> EventChange {
        let epoch = CivilTime.epochSeconds(ofLocal: local)! + 7 * 3600
        let event = CalendarEvent(
            key: EventKey(owner: .domain("epicsteak.example"), container: "IWDSCA", item: item), category: .food, title: "Reservation: EPIC Steak",
            start: EventTime(text: local + "-07:00", local: local, offsetSeconds: -7 * 3600, epochSeconds: epoch),
            end: nil, location: "EPIC Steak", notes: "Party of 2", url: nil, status: status, reservationJSON: "{}")
        return try store.apply(
            event, from: MessageProvenance(messageID: id, path: nil, owner: .domain("epicsteak.example"), messageDate: date, arrival: date))
    }

    func file(_ item: String = "1") -> String {
        vdirPath + "/"
            + CalendarDelivery.resourceName(uid: EventKey(owner: .domain("epicsteak.example"), container: "IWDSCA", item: item).calendarUID)
    }
}

@Suite("Calendar delivery")
struct CalendarDeliveryTests {
    static func lines(_ text: String?, _ prefix: String) -> [String] {
        (text ?? "").components(separatedBy: "\r\n").filter { $0.hasPrefix(prefix) }
    }

    @Test("confirm, move and cancel: the vdir holds one file per event at the store's sequence, without METHOD")
    func vdirLifecycle() throws {
        let fixture = try DeliveryFixture()
        defer { fixture.remove() }
        let vdir = try VdirCollection(path: fixture.vdirPath)
        let delivery = fixture.delivery(vdir)
        let key = EventKey(owner: .domain("epicsteak.example"), container: "IWDSCA", item: "1")

        try fixture.apply(at: "2031-05-12T19:30:00", id: "<a@x>", date: 1000)
        #expect(delivery.push([key]).map(\.outcome) == [.created])
        var text = try String(contentsOfFile: fixture.file(), encoding: .utf8)
        #expect(Self.lines(text, "SEQUENCE") == ["SEQUENCE:0"])
        #expect(Self.lines(text, "METHOD").isEmpty)
        #expect(Self.lines(text, "DTSTART") == ["DTSTART:20310513T023000Z"])
        // Pushing again changes nothing: the destination holds this sequence.
        #expect(delivery.push([key]).isEmpty)
        #expect(delivery.pushPending().isEmpty)

        try fixture.apply(at: "2031-05-12T18:30:00", id: "<b@x>", date: 2000)
        #expect(delivery.pushPending().map(\.outcome) == [.updated])
        text = try String(contentsOfFile: fixture.file(), encoding: .utf8)
        #expect(Self.lines(text, "SEQUENCE") == ["SEQUENCE:1"])
        #expect(Self.lines(text, "DTSTART") == ["DTSTART:20310513T013000Z"])

        try fixture.apply(at: "2031-05-12T18:30:00", status: .cancelled, id: "<c@x>", date: 3000)
        #expect(delivery.push([key]).map(\.outcome) == [.cancelled])
        text = try String(contentsOfFile: fixture.file(), encoding: .utf8)
        #expect(Self.lines(text, "STATUS") == ["STATUS:CANCELLED"])
        #expect(Self.lines(text, "SEQUENCE") == ["SEQUENCE:2"])
        // Only the event's file is there: no temporary file left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.vdirPath) == [CalendarDelivery.resourceName(uid: key.calendarUID)])
        #expect(try fixture.store.pendingDeliveries(to: CalendarDestination.vdir(path: fixture.vdirPath).name).isEmpty)
    }

    @Test("with deleteCancelled a cancellation removes the file")
    func deleteCancelled() throws {
        let fixture = try DeliveryFixture()
        defer { fixture.remove() }
        let delivery = fixture.delivery(try VdirCollection(path: fixture.vdirPath), deleteCancelled: true)
        try fixture.apply(at: "2031-05-12T19:30:00", id: "<a@x>", date: 1000)
        #expect(delivery.pushPending().map(\.outcome) == [.created])
        try fixture.apply(at: "2031-05-12T19:30:00", status: .cancelled, id: "<c@x>", date: 3000)
        #expect(delivery.pushPending().map(\.outcome) == [.deleted])
        #expect(!FileManager.default.fileExists(atPath: fixture.file()))
        #expect(delivery.pushPending().isEmpty)
    }

    @Test("a copy edited at the destination with a higher SEQUENCE is kept, an older one replaced")
    func revisionRuleOnConflict() throws {
        let fixture = try DeliveryFixture()
        defer { fixture.remove() }
        let delivery = fixture.delivery(try VdirCollection(path: fixture.vdirPath))
        try fixture.apply(at: "2031-05-12T19:30:00", id: "<a@x>", date: 1000)
        _ = delivery.pushPending()

        // Someone (a calendar app through vdirsyncer) saves a newer revision of the event.
        let edited = try String(contentsOfFile: fixture.file(), encoding: .utf8)
            .replacingOccurrences(of: "SEQUENCE:0", with: "SEQUENCE:5")
            .replacingOccurrences(of: "SUMMARY:Reservation: EPIC Steak", with: "SUMMARY:Dinner with Ann")
        try edited.write(toFile: fixture.file() + ".new", atomically: false, encoding: .utf8)
        rename(fixture.file() + ".new", fixture.file())
        try fixture.apply(at: "2031-05-12T18:30:00", id: "<b@x>", date: 2000)
        #expect(delivery.pushPending().map(\.outcome) == [.keptNewerCopy])
        #expect(try String(contentsOfFile: fixture.file(), encoding: .utf8).contains("Dinner with Ann"))

        // An older copy put there (a restored backup) is replaced by the store's revision.
        try fixture.apply(at: "2031-05-12T17:30:00", id: "<c@x>", date: 3000)
        let older = edited.replacingOccurrences(of: "SEQUENCE:5", with: "SEQUENCE:0")
        try older.write(toFile: fixture.file() + ".new", atomically: false, encoding: .utf8)
        rename(fixture.file() + ".new", fixture.file())
        #expect(delivery.pushPending().map(\.outcome) == [.updated])
        let text = try String(contentsOfFile: fixture.file(), encoding: .utf8)
        #expect(Self.lines(text, "SEQUENCE") == ["SEQUENCE:2"])
        #expect(Self.lines(text, "DTSTART") == ["DTSTART:20310513T003000Z"])
    }

    @Test("a file removed at the destination is created again by the next change")
    func removedAtDestination() throws {
        let fixture = try DeliveryFixture()
        defer { fixture.remove() }
        let delivery = fixture.delivery(try VdirCollection(path: fixture.vdirPath))
        try fixture.apply(at: "2031-05-12T19:30:00", id: "<a@x>", date: 1000)
        _ = delivery.pushPending()
        try FileManager.default.removeItem(atPath: fixture.file())
        try fixture.apply(at: "2031-05-12T18:30:00", id: "<b@x>", date: 2000)
        #expect(delivery.pushPending().map(\.outcome) == [.updated])
        #expect(FileManager.default.fileExists(atPath: fixture.file()))
    }

    @Test("a failed push leaves the event waiting with its reason; the next push delivers it")
    func failureWaits() throws {
        let fixture = try DeliveryFixture()
        defer { fixture.remove() }
        let down = ScriptedCollection([.failed(DeliveryFailure(.unreachable, "connection refused"))])
        try fixture.apply(at: "2031-05-12T19:30:00", id: "<a@x>", date: 1000)
        let first = fixture.delivery(down).pushPending()
        #expect(first.map(\.outcome) == [.failed(DeliveryFailure(.unreachable, ""))])
        let waiting = try fixture.delivery(down).waiting()
        #expect(waiting.count == 1)
        #expect(waiting.first?.pending.record?.lastError == "unreachable: connection refused")
        #expect(waiting.first?.pending.record?.failures == 1)

        let up = ScriptedCollection([.done(etag: "\"1\"", body: nil)])
        #expect(fixture.delivery(up).pushPending().map(\.outcome) == [.created])
        #expect(up.requests == ["PUT create"])
        #expect(try fixture.delivery(up).waiting().isEmpty)
    }

    @Test("create answered 412 (pushed before, the answer lost): the same revision is recognised, not pushed twice")
    func lostAnswer() throws {
        let fixture = try DeliveryFixture()
        defer { fixture.remove() }
        try fixture.apply(at: "2031-05-12T19:30:00", id: "<a@x>", date: 1000)
        let stored = try #require(try fixture.store.events().first)
        let remote = ICalendarWriter().object(stored)
        let server = ScriptedCollection([.preconditionFailed, .done(etag: "\"7\"", body: remote)])
        #expect(fixture.delivery(server).pushPending().map(\.outcome) == [.alreadyThere])
        #expect(server.requests == ["PUT create", "GET"])
        #expect(try fixture.store.deliveryRecords().first?.etag == "\"7\"")
    }

    @Test("a replace answered 412 twice in a row is a conflict, tried again later")
    func conflictTwice() throws {
        let fixture = try DeliveryFixture()
        defer { fixture.remove() }
        try fixture.apply(at: "2031-05-12T19:30:00", id: "<a@x>", date: 1000)
        let old = "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nSEQUENCE:0\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        try fixture.apply(at: "2031-05-12T18:30:00", id: "<b@x>", date: 2000)
        let server = ScriptedCollection([
            .preconditionFailed, .done(etag: "\"2\"", body: old), .preconditionFailed, .done(etag: "\"3\"", body: old),
            .preconditionFailed, .done(etag: "\"4\"", body: old),
        ])
        let outcome = fixture.delivery(server).pushPending().map(\.outcome)
        #expect(outcome == [.failed(DeliveryFailure(.conflict, ""))])
        #expect(server.requests == ["PUT create", "GET", "PUT replace \"2\"", "GET", "PUT replace \"3\"", "GET"])
        #expect(try fixture.store.pendingDeliveries(to: CalendarDestination.vdir(path: fixture.vdirPath).name).count == 1)
    }

    @Test("a destination that is down is tried once per run, not once per event")
    func downDestinationTriedOnce() throws {
        let fixture = try DeliveryFixture()
        defer { fixture.remove() }
        for item in ["1", "2", "3"] { try fixture.apply(at: "2031-05-12T19:30:00", id: "<\(item)@x>", date: 1000, item: item) }
        let down = ScriptedCollection([.failed(DeliveryFailure(.timeout, "no answer in 10 s"))])
        let attempts = fixture.delivery(down).pushPending()
        #expect(attempts.map(\.outcome) == [.failed(DeliveryFailure(.timeout, ""))])
        #expect(down.requests == ["PUT create"])
        #expect(try fixture.delivery(down).waiting().count == 3)
        // A failure of one event (the server refused that object) does not stop the others.
        let picky = ScriptedCollection([.failed(DeliveryFailure(.refused, "HTTP 415")), .done(etag: nil, body: nil), .done(etag: nil, body: nil)])
        #expect(fixture.delivery(picky).pushPending().map(\.outcome.word) == ["failed", "created", "created"])
    }

    @Test("past the deadline nothing is sent and the event waits")
    func deadline() throws {
        let fixture = try DeliveryFixture()
        defer { fixture.remove() }
        try fixture.apply(at: "2031-05-12T19:30:00", id: "<a@x>", date: 1000)
        let server = ScriptedCollection([.done(etag: nil, body: nil)])
        let attempts = fixture.delivery(server).pushPending(deadline: Deadline(monotonicMilliseconds: 0))
        #expect(attempts.map(\.outcome) == [.failed(DeliveryFailure(.outOfTime, ""))])
        #expect(server.requests.isEmpty)
    }
}

@Suite("Calendar destinations")
struct CalendarDestinationTests {
    @Test("--calendar values: CalDAV URLs and vdir paths, credentials refused in the URL")
    func parsing() throws {
        #expect(
            try CalendarDestination(parsing: "https://cal.example/dav/jane/reservations").name
                == "caldav:https://cal.example/dav/jane/reservations/")
        #expect(try CalendarDestination(parsing: "vdir:/home/jane/cal/").name == "vdir:/home/jane/cal")
        #expect(throws: DeliveryError.self) { try CalendarDestination(parsing: "vdir:cal") }
        for bad in ["https://jane:secret@cal.example/dav/", "ftp://cal.example/", "cal.example/dav", "vdir:", "https://", "https://cal.example/?x=1"]
        {
            #expect(throws: DeliveryError.self) { try CalendarDestination(parsing: bad) }
        }
    }

    @Test("SEQUENCE read back from a copy: absent is 0, garbage is no event")
    func sequenceOfCopy() {
        #expect(CalendarObjectRevision.sequence(of: "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nSEQUENCE:12\r\nEND:VEVENT\r\n") == 12)
        #expect(CalendarObjectRevision.sequence(of: "BEGIN:VCALENDAR\nBEGIN:VEVENT\nUID:x\nEND:VEVENT\n") == 0)
        #expect(CalendarObjectRevision.sequence(of: "begin:vevent\nsequence;x=y:3\nend:vevent") == 3)
        #expect(CalendarObjectRevision.sequence(of: "<html>502 Bad Gateway</html>") == nil)
    }
}

/// A collection that answers from a script, and records the requests it got.
final class ScriptedCollection: CalendarCollection, @unchecked Sendable {
    // @unchecked: used from one test's thread only.
    private var answers: [CollectionAnswer]
    private(set) var requests: [String] = []
    /// The bodies of the PUTs, in order.
    private(set) var bodies: [String] = []

    init(_ answers: [CollectionAnswer]) { self.answers = answers }

    private func next() -> CollectionAnswer {
        answers.isEmpty ? .failed(DeliveryFailure(.refused, "no more answers")) : answers.removeFirst()
    }

    func put(_ name: String, body: String, condition: WriteCondition, deadline: Deadline) -> CollectionAnswer {
        bodies.append(body)
        switch condition {
        case .create: requests.append("PUT create")
        case .replace(let etag): requests.append("PUT replace \(etag)")
        }
        return next()
    }

    func get(_ name: String, deadline: Deadline) -> CollectionAnswer {
        requests.append("GET")
        return next()
    }

    func delete(_ name: String, etag: String?, deadline: Deadline) -> CollectionAnswer {
        requests.append("DELETE \(etag ?? "*")")
        return next()
    }
}
