import Foundation
import ReservoirBase
import Testing

@testable import EventStore

/// A fresh store in a temporary directory, removed at the end of the test.
struct TemporaryStore {
    let directory: String
    let path: String

    init() {
        directory = NSTemporaryDirectory() + "reservoir-store-\(UUID().uuidString)"
        path = directory + "/nested/events.sqlite3"
    }

    func open() throws -> SQLiteEventStore { try SQLiteEventStore(path: path) }
    func remove() { try? FileManager.default.removeItem(atPath: directory) }
}

func dinner(
    at local: String, offset: Int = -7 * 3600, status: EventStatus = .confirmed,
    container: String = "IWDSCA", item: String = "1"
) -> CalendarEvent {
    let epoch = CivilTime.epochSeconds(ofLocal: local).map { $0 - Int64(offset) }
    let sign = offset < 0 ? "-" : "+"
    let text = local + sign + CivilTime.pad(abs(offset) / 3600, 2) + ":00"
    return CalendarEvent(
        key: EventKey(container: container, item: item), category: .food, title: "Reservation: EPIC Steak",
        start: EventTime(text: text, local: local, offsetSeconds: offset, epochSeconds: epoch),
        end: nil, location: "EPIC Steak, 369 The Embarcadero, San Francisco", notes: "Party of 2",
        url: nil, status: status, reservationJSON: "{}")
}

func message(_ id: String, date: Int64, domain: String? = "epicsteak.example", arrival: Int64 = 100) -> MessageProvenance {
    MessageProvenance(messageID: id, path: nil, signingDomain: domain, messageDate: date, arrival: arrival)
}

@Suite("SQLite event store")
struct SQLiteEventStoreTests {
    @Test("a store opened for reading lists what is stored, refuses writes, and does not exist until written")
    func readingOnly() throws {
        let tmp = TemporaryStore()
        defer { tmp.remove() }
        #expect(throws: EventStoreError(.cannotOpen, "")) { _ = try SQLiteEventStore(readingAt: tmp.path) }
        do {
            let store = try tmp.open()
            _ = try store.apply(dinner(at: "2031-05-12T19:30:00"), from: message("<a@x>", date: 1000))
        }
        let reader = try SQLiteEventStore(readingAt: tmp.path)
        #expect(try reader.events().map(\.event.key.container) == ["IWDSCA"])
        #expect(throws: EventStoreError(.readOnly, "")) {
            _ = try reader.apply(dinner(at: "2031-05-12T18:30:00"), from: message("<b@x>", date: 2000))
        }
    }

    @Test("a group's changes are committed together: another connection sees none of them until it ends")
    func groupCommit() throws {
        let tmp = TemporaryStore()
        defer { tmp.remove() }
        let store = try tmp.open()
        let reader = try tmp.open()
        var seenInside: [StoredEvent]?
        var kinds: [String] = []
        try store.grouped {
            for (n, container) in ["AAA111", "BBB222"].enumerated() {
                kinds.append(
                    (try? store.apply(
                        dinner(at: "2031-05-12T19:30:00", container: container),
                        from: message("<\(n)@x>", date: 1000)))?.kind ?? "failed")
            }
            // The group's own connection sees its changes; the next one applied in it builds on them.
            kinds.append(
                (try? store.apply(
                    dinner(at: "2031-05-12T18:30:00", container: "AAA111"),
                    from: message("<2@x>", date: 2000)))?.kind ?? "failed")
            seenInside = try? reader.events()
        }
        #expect(kinds == ["created", "created", "updated"])
        #expect(seenInside?.isEmpty == true)
        #expect(try reader.events().map(\.event.key.container) == ["AAA111", "BBB222"])
        #expect(try reader.history("AAA111").map(\.change) == [.created, .updated])
    }

    @Test("a change that fails inside a group undoes only itself; one that aborts the transaction undoes the group")
    func groupFailures() throws {
        let tmp = TemporaryStore()
        defer { tmp.remove() }
        let store = try tmp.open()
        // Triggers stand in for a failing disk: ABORT fails one statement, ROLLBACK the whole
        // transaction (sqlite.org/lang_createtrigger.html, "The RAISE() function").
        let admin = try SQLiteDatabase(path: tmp.path, busyTimeoutMilliseconds: 1000)
        try admin.execute(
            """
            CREATE TRIGGER fail_one BEFORE INSERT ON history WHEN NEW.container = 'FAILS1'
            BEGIN SELECT RAISE(ABORT, 'refused'); END;
            CREATE TRIGGER fail_all BEFORE INSERT ON history WHEN NEW.container = 'FAILSALL'
            BEGIN SELECT RAISE(ROLLBACK, 'rolled back'); END;
            """)
        func apply(_ container: String) -> String {
            (try? store.apply(
                dinner(at: "2031-05-12T19:30:00", container: container),
                from: message("<\(container)@x>", date: 1000)))?.kind ?? "failed"
        }
        var kinds: [String] = []
        try store.grouped { kinds = ["AAA111", "FAILS1", "BBB222"].map(apply) }
        #expect(kinds == ["created", "failed", "created"])
        #expect(try store.events().map(\.event.key.container) == ["AAA111", "BBB222"])

        #expect(throws: EventStoreError.self) {
            try store.grouped { kinds = ["CCC333", "FAILSALL", "DDD444"].map(apply) }
        }
        #expect(kinds == ["created", "failed", "failed"])
        #expect(try store.events().map(\.event.key.container) == ["AAA111", "BBB222"])
        // The store works normally afterwards.
        #expect(apply("EEE555") == "created")
    }

    @Test("confirm, move and cancel leave one event, cancelled, at sequence 2")
    func lifecycle() throws {
        let tmp = TemporaryStore()
        defer { tmp.remove() }
        let store = try tmp.open()
        let created = try store.apply(dinner(at: "2031-05-12T19:30:00"), from: message("<a@x>", date: 1000))
        guard case .created(let first) = created else {
            Issue.record("expected created, got \(created.kind)")
            return
        }
        #expect(first.sequence == 0)

        let moved = try store.apply(dinner(at: "2031-05-12T18:30:00"), from: message("<b@x>", date: 2000))
        guard case .updated(let second, let previous) = moved else {
            Issue.record("expected updated, got \(moved.kind)")
            return
        }
        #expect(second.sequence == 1)
        #expect(previous.event.start?.local == "2031-05-12T19:30:00")

        let cancelled = try store.apply(dinner(at: "2031-05-12T18:30:00", status: .cancelled), from: message("<c@x>", date: 3000))
        guard case .cancelled(let third, _) = cancelled else {
            Issue.record("expected cancelled, got \(cancelled.kind)")
            return
        }
        #expect(third.sequence == 2)

        let all = try store.events()
        #expect(all.count == 1)
        #expect(all.first?.event.status == .cancelled)
        #expect(all.first?.event.start?.local == "2031-05-12T18:30:00")
        #expect(try store.history("IWDSCA").map(\.change) == [.created, .updated, .cancelled])
    }

    @Test("the same message again changes nothing")
    func replay() throws {
        let tmp = TemporaryStore()
        defer { tmp.remove() }
        let store = try tmp.open()
        _ = try store.apply(dinner(at: "2031-05-12T19:30:00"), from: message("<a@x>", date: 1000))
        _ = try store.apply(dinner(at: "2031-05-12T18:30:00"), from: message("<b@x>", date: 2000))
        // Replaying the first message must not move the dinner back.
        let replay = try store.apply(dinner(at: "2031-05-12T19:30:00"), from: message("<a@x>", date: 1000, arrival: 500))
        #expect(replay.kind == "unchanged")
        #expect(try store.event(EventKey(container: "IWDSCA", item: "1"))?.event.start?.local == "2031-05-12T18:30:00")
        #expect(try store.event(EventKey(container: "IWDSCA", item: "1"))?.sequence == 1)
    }

    @Test("an older message processed after a newer one does not overwrite it")
    func olderMessage() throws {
        let tmp = TemporaryStore()
        defer { tmp.remove() }
        let store = try tmp.open()
        _ = try store.apply(dinner(at: "2031-05-12T18:30:00", status: .cancelled), from: message("<c@x>", date: 3000))
        let older = try store.apply(dinner(at: "2031-05-12T19:30:00"), from: message("<a@x>", date: 1000))
        #expect(older.kind == "older-than-stored")
        let stored = try #require(try store.event(EventKey(container: "IWDSCA", item: "1")))
        #expect(stored.event.status == .cancelled)
        #expect(stored.sequence == 0)
    }

    @Test("identical content from a new message is unchanged and keeps the sequence")
    func identicalContent() throws {
        let tmp = TemporaryStore()
        defer { tmp.remove() }
        let store = try tmp.open()
        _ = try store.apply(dinner(at: "2031-05-12T19:30:00"), from: message("<a@x>", date: 1000))
        let again = try store.apply(dinner(at: "2031-05-12T19:30:00"), from: message("<reminder@x>", date: 2000))
        #expect(again.kind == "unchanged")
        #expect(again.stored.sequence == 0)
    }

    @Test("only the domain that created a booking may change it")
    func otherDomain() throws {
        let tmp = TemporaryStore()
        defer { tmp.remove() }
        let store = try tmp.open()
        _ = try store.apply(dinner(at: "2031-05-12T19:30:00"), from: message("<a@x>", date: 1000))
        let forged = try store.apply(
            dinner(at: "2031-05-12T19:30:00", status: .cancelled),
            from: message("<evil@x>", date: 2000, domain: "attacker.example"))
        #expect(forged.kind == "refused-other-domain")
        #expect(try store.event(EventKey(container: "IWDSCA", item: "1"))?.event.status == .confirmed)
        #expect(try store.history("IWDSCA").last?.change == .refusedOtherDomain)
    }

    @Test("items of one booking are separate events")
    func items() throws {
        let tmp = TemporaryStore()
        defer { tmp.remove() }
        let store = try tmp.open()
        _ = try store.apply(dinner(at: "2031-05-12T19:30:00", container: "K7Q2PX", item: "UA123"), from: message("<a@x>", date: 1000))
        _ = try store.apply(dinner(at: "2031-05-15T08:00:00", container: "K7Q2PX", item: "UA456"), from: message("<a@x>", date: 1000))
        let all = try store.events()
        #expect(all.map(\.event.key.item) == ["UA123", "UA456"])
    }

    @Test("the store file is private to its owner and survives reopening")
    func fileMode() throws {
        let tmp = TemporaryStore()
        defer { tmp.remove() }
        do {
            let store = try tmp.open()
            _ = try store.apply(dinner(at: "2031-05-12T19:30:00"), from: message("<a@x>", date: 1000))
        }
        let attributes = try FileManager.default.attributesOfItem(atPath: tmp.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let reopened = try tmp.open()
        #expect(try reopened.events().count == 1)
    }

    @Test("a store created in a directory its group may write (a shared system store) is 0660, past the umask")
    func sharedStoreMode() throws {
        let tmp = TemporaryStore()
        defer { tmp.remove() }
        let shared = tmp.directory + "/shared"
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: true)
        #expect(chmod(shared, 0o2770) == 0)
        // The test process's umask (022 here) would take the group's write bit.
        do {
            let store = try SQLiteEventStore(path: shared + "/events.sqlite3")
            _ = try store.apply(dinner(at: "2031-05-12T19:30:00"), from: message("<a@x>", date: 1000))
        }
        let attributes = try FileManager.default.attributesOfItem(atPath: shared + "/events.sqlite3")
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o660)
        #expect(SQLiteEventStore.fileMode(inDirectoryWithMode: 0o700) == 0o600)
        #expect(SQLiteEventStore.fileMode(inDirectoryWithMode: 0o2775) == 0o660)
    }

    @Test("a released store is closed and its WAL emptied: the next process has nothing to read back")
    func closedStoreCheckpoints() throws {
        let tmp = TemporaryStore()
        defer { tmp.remove() }
        func walBytes() -> Int {
            ((try? FileManager.default.attributesOfItem(atPath: tmp.path + "-wal"))?[.size] as? NSNumber)?.intValue ?? 0
        }
        do {
            let store = try tmp.open()
            for n in 0..<20 {
                _ = try store.apply(dinner(at: "2031-05-12T19:30:00", container: "C\(n)"), from: message("<\(n)@x>", date: 1000))
            }
            #expect(walBytes() > 0)
        }
        #expect(walBytes() == 0)
        #expect(try tmp.open().events().count == 20)
    }

    @Test("a store written by a newer schema is refused, not damaged")
    func newerSchema() throws {
        let tmp = TemporaryStore()
        defer { tmp.remove() }
        do {
            let store = try tmp.open()
            _ = store
        }
        let db = try SQLiteDatabase(path: tmp.path, busyTimeoutMilliseconds: 100)
        try db.execute("PRAGMA user_version = 99")
        #expect(throws: EventStoreError(.schemaTooNew, "")) { try tmp.open() }
    }

    @Test(
        "store URLs",
        arguments: [
            ("postgres://db.example/reservoir", EventStoreError.Kind.unsupportedURL),
            ("ftp://x/y", EventStoreError.Kind.unsupportedURL),
            ("x-a:b://c", EventStoreError.Kind.unsupportedURL),
            ("file:/x://y", EventStoreError.Kind.unsupportedURL),
        ])
    func storeURL(url: String, kind: EventStoreError.Kind) {
        #expect(throws: EventStoreError(kind, "")) { _ = try EventStoreLocation.open(url) }
    }

    /// A plain path may hold colons and slashes; only "://" makes it a URL of an unknown kind,
    /// found as `String.contains` finds it: a slash a combining mark is part of is not a slash.
    @Test(
        "searching by characters",
        arguments: [
            ("ftp://x", "://", true), ("a:b://c", "://", true), ("://", "://", true), ("dir/a:b/c", "://", false),
            (":/", "://", false), ("a:/b", "://", false), ("a:/\u{301}/b", "://", false), ("a://\u{301}b", "://", false),
            ("", "://", false), ("caf\u{E9}", "e", false), ("Too many clients", "many", true),
        ])
    func characterSearch(text: String, needle: String, expected: Bool) {
        #expect(CharacterSearch.contains(text, needle) == expected)
        #expect(text.contains(needle) == expected)
    }

    /// A store holding one event, taken back to an older schema by `downgrade` (SQL that
    /// undoes the later migrations), as an older reservoir left it: its directory and path.
    static func storeAsLeftBy(_ downgrade: String) throws -> (directory: String, path: String) {
        let directory = NSTemporaryDirectory() + "reservoir-upgrade-\(UUID().uuidString)"
        let path = directory + "/events.sqlite3"
        do {
            let store = try SQLiteEventStore(path: path)
            _ = try store.apply(
                Self.upgradeEvent,
                from: MessageProvenance(messageID: "<a@x>", path: nil, signingDomain: "epicsteak.example", messageDate: 1000, arrival: 1000))
        }
        try SQLiteDatabase(path: path, busyTimeoutMilliseconds: 1000).execute(downgrade)
        return (directory, path)
    }

    @Test("a store of schema 2 (before calendar delivery) is upgraded in place: its events kept, all of them waiting for a calendar")
    func upgradeFromTwo() throws {
        let (directory, path) = try Self.storeAsLeftBy("DROP TABLE deliveries; PRAGMA user_version = 2")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Read-only, a schema-2 store is refused rather than misread.
        #expect(throws: EventStoreError.self) { _ = try SQLiteEventStore(readingAt: path) }
        let upgraded = try SQLiteEventStore(path: path)
        #expect(try upgraded.events().count == 1)
        #expect(try upgraded.pendingDeliveries(to: "vdir:/cal").count == 1)
        let version = try SQLiteDatabase(path: path, busyTimeoutMilliseconds: 1000).prepare("PRAGMA user_version").rows().first?.integer(0)
        #expect(version == SQLiteEventStore.schemaVersion)
        #expect(SQLiteEventStore.schemaVersion == 4)
    }

    @Test("a store of schema 3 (before time zones) is upgraded in place: its events kept without a zone, new ones keep theirs")
    func upgradeFromThree() throws {
        let (directory, path) = try Self.storeAsLeftBy(
            "ALTER TABLE events DROP COLUMN start_zone; ALTER TABLE events DROP COLUMN end_zone; PRAGMA user_version = 3")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(throws: EventStoreError.self) { _ = try SQLiteEventStore(readingAt: path) }
        let upgraded = try SQLiteEventStore(path: path)
        let kept = try #require(try upgraded.events().first)
        #expect(kept.event.start == Self.upgradeEvent.start)
        #expect(kept.event.start?.zone == nil)
        var zoned = Self.upgradeEvent
        zoned.key = EventKey(container: "ZONED", item: "1")
        zoned.start = EventTime(
            text: "2031-05-12T19:30:00", local: "2031-05-12T19:30:00", offsetSeconds: -25_200, epochSeconds: 1_936_492_200,
            zone: "America/Los_Angeles")
        _ = try upgraded.apply(
            zoned, from: MessageProvenance(messageID: "<b@x>", path: nil, signingDomain: "epicsteak.example", messageDate: 1001, arrival: 1001))
        let read = try #require(try SQLiteEventStore(readingAt: path).events().first { $0.event.key.container == "ZONED" })
        #expect(read.event.start == zoned.start)
        let version = try SQLiteDatabase(path: path, busyTimeoutMilliseconds: 1000).prepare("PRAGMA user_version").rows().first?.integer(0)
        #expect(version == 4)
    }

    static let upgradeEvent = CalendarEvent(
        key: EventKey(container: "IWDSCA", item: "1"), category: .food, title: "Reservation: EPIC Steak",
        start: EventTime(text: "2031-05-12T19:30:00-07:00", local: "2031-05-12T19:30:00", offsetSeconds: -25_200, epochSeconds: 1_936_492_200),
        end: nil, location: nil, notes: "", url: nil, status: .confirmed, reservationJSON: "{}")
}
