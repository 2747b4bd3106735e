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
        key: EventKey(owner: .domain("epicsteak.example"), container: container, item: item), category: .food, title: "Reservation: EPIC Steak",
        start: EventTime(text: text, local: local, offsetSeconds: offset, epochSeconds: epoch),
        end: nil, location: "EPIC Steak, 369 The Embarcadero, San Francisco", notes: "Party of 2",
        url: nil, status: status, reservationJSON: "{}")
}

func message(_ id: String, date: Int64, domain: String? = "epicsteak.example", arrival: Int64 = 100) -> MessageProvenance {
    MessageProvenance(messageID: id, path: nil, owner: domain.map(BookingOwner.domain) ?? .unproven, messageDate: date, arrival: arrival)
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
        #expect(
            try store.event(EventKey(owner: .domain("epicsteak.example"), container: "IWDSCA", item: "1"))?.event.start?.local
                == "2031-05-12T18:30:00")
        #expect(try store.event(EventKey(owner: .domain("epicsteak.example"), container: "IWDSCA", item: "1"))?.sequence == 1)
    }

    @Test("an older message processed after a newer one does not overwrite it")
    func olderMessage() throws {
        let tmp = TemporaryStore()
        defer { tmp.remove() }
        let store = try tmp.open()
        _ = try store.apply(dinner(at: "2031-05-12T18:30:00", status: .cancelled), from: message("<c@x>", date: 3000))
        let older = try store.apply(dinner(at: "2031-05-12T19:30:00"), from: message("<a@x>", date: 1000))
        #expect(older.kind == "older-than-stored")
        let stored = try #require(try store.event(EventKey(owner: .domain("epicsteak.example"), container: "IWDSCA", item: "1")))
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

    @Test("another domain's cancellation is its own booking: the owner's stays confirmed")
    func otherDomain() throws {
        let tmp = TemporaryStore()
        defer { tmp.remove() }
        let store = try tmp.open()
        _ = try store.apply(dinner(at: "2031-05-12T19:30:00"), from: message("<a@x>", date: 1000))
        let forged = try store.apply(
            dinner(at: "2031-05-12T19:30:00", status: .cancelled),
            from: message("<evil@x>", date: 2000, domain: "attacker.example"))
        #expect(forged.stored.event.key.owner == .domain("attacker.example"))
        #expect(try store.event(EventKey(owner: .domain("epicsteak.example"), container: "IWDSCA", item: "1"))?.event.status == .confirmed)
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

    /// A store as reservoir's schema 4 left it (before bookings were keyed per owner), copied
    /// from that schema: one event of epicsteak.example with its history line, one created
    /// without a proof (`--allow-unverified`), and a delivery of the first to a vdir.
    static let schema4 = """
        CREATE TABLE events (
            container TEXT NOT NULL, item TEXT NOT NULL, category TEXT NOT NULL, title TEXT NOT NULL,
            start_text TEXT, start_local TEXT, start_offset INTEGER, start_epoch INTEGER,
            end_text TEXT, end_local TEXT, end_offset INTEGER, end_epoch INTEGER,
            location TEXT, notes TEXT NOT NULL, url TEXT, status TEXT NOT NULL,
            checkin_opens INTEGER, checkin_closes INTEGER, reservation_json TEXT NOT NULL,
            sequence INTEGER NOT NULL, owner_domain TEXT, last_message_date INTEGER, last_arrival INTEGER,
            created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, start_zone TEXT, end_zone TEXT,
            PRIMARY KEY (container, item)
        );
        CREATE TABLE history (
            id INTEGER PRIMARY KEY AUTOINCREMENT, container TEXT NOT NULL, item TEXT NOT NULL,
            sequence INTEGER NOT NULL, change TEXT NOT NULL, message_id TEXT, path TEXT, signing_domain TEXT,
            message_date INTEGER, applied_at INTEGER NOT NULL, summary TEXT NOT NULL
        );
        CREATE INDEX history_key ON history (container, item);
        CREATE TABLE scanned_files (key TEXT PRIMARY KEY, size INTEGER NOT NULL, modified INTEGER NOT NULL);
        CREATE TABLE deliveries (
            destination TEXT NOT NULL, container TEXT NOT NULL, item TEXT NOT NULL, delivered_sequence INTEGER,
            etag TEXT, failures INTEGER NOT NULL DEFAULT 0, last_error TEXT, last_attempt INTEGER,
            claimed_by TEXT, claimed_until INTEGER, PRIMARY KEY (destination, container, item)
        );
        INSERT INTO events (container, item, category, title, start_text, start_local, start_offset, start_epoch,
            notes, status, reservation_json, sequence, owner_domain, last_message_date, last_arrival, created_at, updated_at)
            VALUES ('IWDSCA', '1', 'food', 'Reservation: EPIC Steak', '2031-05-12T19:30:00-07:00', '2031-05-12T19:30:00',
                -25200, 1936492200, '', 'CONFIRMED', '{}', 0, 'epicsteak.example', 1000, 1000, 1000, 1000),
            ('LOCAL', '1', 'food', 'Reservation: Corner', '2031-05-13T19:30:00-07:00', '2031-05-13T19:30:00',
                -25200, 1936578600, '', 'CONFIRMED', '{}', 0, NULL, NULL, 1000, 1000, 1000);
        INSERT INTO history (container, item, sequence, change, message_id, signing_domain, message_date, applied_at, summary)
            VALUES ('IWDSCA', '1', 0, 'created', '<a@x>', 'epicsteak.example', 1000, 1000, 'created');
        INSERT INTO deliveries (destination, container, item, delivered_sequence, etag, failures)
            VALUES ('vdir:/cal', 'IWDSCA', '1', 0, NULL, 0);
        PRAGMA user_version = 4;
        """

    /// A store as an older reservoir left it: the schema-4 copy taken further back by
    /// `downgrade` (SQL that undoes migrations). Its directory and path.
    static func storeAsLeftBy(_ downgrade: String = "") throws -> (directory: String, path: String) {
        let directory = NSTemporaryDirectory() + "reservoir-upgrade-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/events.sqlite3"
        try SQLiteDatabase(path: path, busyTimeoutMilliseconds: 1000).execute(Self.schema4 + downgrade)
        return (directory, path)
    }

    @Test("IMAP state: per account and mailbox, replaced on record, kept across an open; a store of schema 8 gains the table")
    func imapMailboxState() throws {
        let (directory, path) = try Self.storeAsLeftBy()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try SQLiteEventStore(path: path)
        let inbox = "imaps://jane@imap.example.org:993/INBOX"
        #expect(try store.imapMailboxState(inbox) == nil)
        try store.recordIMAPMailboxState(inbox, IMAPMailboxState(uidValidity: 7, lastUID: 3))
        try store.recordIMAPMailboxState(inbox, IMAPMailboxState(uidValidity: 7, lastUID: 12))
        #expect(try store.imapMailboxState(inbox) == IMAPMailboxState(uidValidity: 7, lastUID: 12))
        #expect(try store.imapMailboxState("imaps://jane@imap.example.org:993/Travel") == nil)
        let joe = store.scoped(to: Account(normalizedAddress: "joe@example.org"))
        #expect(try joe.imapMailboxState(inbox) == nil, "another account's place is its own")
        try joe.recordIMAPMailboxState(inbox, IMAPMailboxState(uidValidity: 9, lastUID: 1))
        #expect(try SQLiteEventStore(path: path).imapMailboxState(inbox) == IMAPMailboxState(uidValidity: 7, lastUID: 12))
        // A store of schema 8, without the table, is upgraded and reads none.
        let (older, olderPath) = try Self.storeAsLeftBy()
        defer { try? FileManager.default.removeItem(atPath: older) }
        _ = try SQLiteEventStore(path: olderPath)
        try SQLiteDatabase(path: olderPath, busyTimeoutMilliseconds: 1000).execute("DROP TABLE imap_mailboxes; PRAGMA user_version = 8;")
        #expect(throws: EventStoreError.self) { _ = try SQLiteEventStore(readingAt: olderPath) }
        #expect(try SQLiteEventStore(path: olderPath).imapMailboxState(inbox) == nil)
    }

    @Test("a store of schema 4 is keyed per owner in place: owners from owner_domain, UIDs and deliveries kept")
    func upgradeFromFour() throws {
        let (directory, path) = try Self.storeAsLeftBy()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(throws: EventStoreError.self) { _ = try SQLiteEventStore(readingAt: path) }
        let upgraded = try SQLiteEventStore(path: path)
        let events = try upgraded.events()
        #expect(events.map(\.event.key.owner) == [.domain("epicsteak.example"), .unproven])
        #expect(events.allSatisfy { $0.event.key.account == .implicit }, "a single-user store's events go to the implicit account")
        #expect(try upgraded.accounts().map(\.account) == [.implicit])
        // The UID calendars already hold: the legacy form, so the next push updates that copy.
        #expect(events.map(\.uid) == ["IWDSCA-1@reservoir", "LOCAL-1@reservoir"])
        #expect(try upgraded.history("IWDSCA").map(\.key.owner) == [.domain("epicsteak.example")])
        let record = try #require(try upgraded.deliveryRecords().first)
        #expect(record.key.owner == .domain("epicsteak.example"))
        #expect(record.uid == "IWDSCA-1@reservoir")
        // Delivered at sequence 0: nothing waits for it; the unverified one waits.
        #expect(try upgraded.pendingDeliveries(to: "vdir:/cal").map(\.event.event.key.container) == ["LOCAL"])
        // The same booking goes on updating the migrated event, keeping its UID.
        var moved = Self.upgradeEvent
        moved.start = EventTime(
            text: "2031-05-12T20:30:00-07:00", local: "2031-05-12T20:30:00", offsetSeconds: -25_200, epochSeconds: 1_936_495_800)
        let change = try upgraded.apply(
            moved, from: MessageProvenance(messageID: "<b@x>", path: nil, owner: .domain("epicsteak.example"), messageDate: 2000, arrival: 2000))
        #expect(change.kind == "updated")
        #expect(change.stored.uid == "IWDSCA-1@reservoir")
        #expect(change.stored.sequence == 1)
        let version = try SQLiteDatabase(path: path, busyTimeoutMilliseconds: 1000).prepare("PRAGMA user_version").rows().first?.integer(0)
        #expect(version == SQLiteEventStore.schemaVersion)
    }

    @Test("a store of schema 6 keeps its scanned files as the implicit account's; another account's scan starts afresh")
    func upgradeFromSix() throws {
        let (directory, path) = try Self.storeAsLeftBy()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = try SQLiteEventStore(path: path)
        // The table as schema 6 made it: keyed by the file alone.
        try SQLiteDatabase(path: path, busyTimeoutMilliseconds: 1000).execute(
            """
            DROP TABLE scanned_files;
            CREATE TABLE scanned_files (key TEXT PRIMARY KEY, size INTEGER NOT NULL, modified INTEGER NOT NULL, outcome TEXT, settings TEXT);
            INSERT INTO scanned_files VALUES ('Maildir/cur/1', 3311, 1794503643, 'trusted', 'v1');
            PRAGMA user_version = 6;
            """)
        #expect(throws: EventStoreError.self) { _ = try SQLiteEventStore(readingAt: path) }
        let upgraded = try SQLiteEventStore(path: path)
        #expect(try upgraded.scannedFiles()["Maildir/cur/1"]?.settings == "v1")
        let jane = upgraded.scoped(to: Account(normalizedAddress: "jane@example.org"))
        #expect(try jane.scannedFiles().isEmpty)
        try jane.markScanned([ScannedFile(key: "Maildir/cur/1", size: 3311, modified: 1_794_503_643, outcome: "refused", settings: "v2")])
        #expect(try upgraded.scannedFiles()["Maildir/cur/1"]?.outcome == "trusted")
        let version = try SQLiteDatabase(path: path, busyTimeoutMilliseconds: 1000).prepare("PRAGMA user_version").rows().first?.integer(0)
        #expect(version == SQLiteEventStore.schemaVersion)
    }

    /// SQL taking a store of the current schema back to schema 5 (before scanned files kept
    /// their outcome), with a file a scan of schema 5 recorded.
    static let toSchema5 = """
        ALTER TABLE scanned_files DROP COLUMN outcome;
        ALTER TABLE scanned_files DROP COLUMN settings;
        INSERT INTO scanned_files (key, size, modified) VALUES ('Maildir/1794503643.M1P4242Q1.mail.home.example', 3311, 1794503643);
        PRAGMA user_version = 5;
        """

    @Test("a store of schema 5 keeps its scanned files, without an outcome until they are read again")
    func upgradeFromFive() throws {
        let (directory, path) = try Self.storeAsLeftBy()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = try SQLiteEventStore(path: path)
        try SQLiteDatabase(path: path, busyTimeoutMilliseconds: 1000).execute(Self.toSchema5)
        #expect(throws: EventStoreError.self) { _ = try SQLiteEventStore(readingAt: path) }
        let upgraded = try SQLiteEventStore(path: path)
        let key = "Maildir/1794503643.M1P4242Q1.mail.home.example"
        // Recorded without an outcome: the next scan reads it again once (RescanDecisions).
        #expect(try upgraded.scannedFiles()[key] == ScannedFile(key: key, size: 3311, modified: 1_794_503_643))
        #expect(try upgraded.events().count == 2)
        try upgraded.markScanned([ScannedFile(key: key, size: 3311, modified: 1_794_503_643, outcome: "trusted", settings: "")])
        #expect(try SQLiteEventStore(readingAt: path).scannedFiles()[key]?.outcome == "trusted")
        let version = try SQLiteDatabase(path: path, busyTimeoutMilliseconds: 1000).prepare("PRAGMA user_version").rows().first?.integer(0)
        #expect(version == SQLiteEventStore.schemaVersion)
    }

    @Test("a store of schema 7 gains the proof column: its events read without a proof, and each change records its own")
    func upgradeFromSeven() throws {
        let (directory, path) = try Self.storeAsLeftBy()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = try SQLiteEventStore(path: path)
        try SQLiteDatabase(path: path, busyTimeoutMilliseconds: 1000).execute("ALTER TABLE events DROP COLUMN proof; PRAGMA user_version = 7;")
        #expect(throws: EventStoreError.self) { _ = try SQLiteEventStore(readingAt: path) }
        let upgraded = try SQLiteEventStore(path: path)
        #expect(try upgraded.events().map(\.proof) == [nil, nil])
        var moved = Self.upgradeEvent
        moved.title = "Reservation: EPIC Steak (moved)"
        let sealed = MessageProvenance(
            messageID: "<arc@x>", path: nil, owner: .domain("epicsteak.example"), messageDate: 3000, arrival: 3000,
            proof: .arc(sealer: "mx.forwarder.example"))
        #expect(try upgraded.apply(moved, from: sealed).stored.proof == .arc(sealer: "mx.forwarder.example"))
        var pass = Self.upgradeEvent
        pass.key = EventKey(owner: .walletPass(passType: "pass.com.example.boarding"), container: "M4XT9B", item: "1")
        let passed = MessageProvenance(
            messageID: "<pass@x>", path: nil, owner: .walletPass(passType: "pass.com.example.boarding"), messageDate: 3000, arrival: 3000,
            proof: .signedPass(passType: "pass.com.example.boarding"))
        _ = try upgraded.apply(pass, from: passed)
        let read = try SQLiteEventStore(readingAt: path).events()
        #expect(read.first { $0.event.key.container == "IWDSCA" }?.proof == .arc(sealer: "mx.forwarder.example"))
        #expect(read.first { $0.event.key.container == "M4XT9B" }?.proof == .signedPass(passType: "pass.com.example.boarding"))
        #expect(read.first { $0.event.key.container == "LOCAL" }?.proof == nil)
        // A word this build does not know is refused, not read as no proof.
        try SQLiteDatabase(path: path, busyTimeoutMilliseconds: 1000).execute("UPDATE events SET proof = 'telepathy' WHERE container = 'LOCAL'")
        #expect(throws: EventStoreError.self) { _ = try SQLiteEventStore(readingAt: path).events() }
    }

    @Test("a store of schema 2 (before calendar delivery) is upgraded in place: its events kept, all of them waiting for a calendar")
    func upgradeFromTwo() throws {
        let (directory, path) = try Self.storeAsLeftBy("DROP TABLE deliveries; PRAGMA user_version = 2;")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Read-only, a schema-2 store is refused rather than misread.
        #expect(throws: EventStoreError.self) { _ = try SQLiteEventStore(readingAt: path) }
        let upgraded = try SQLiteEventStore(path: path)
        #expect(try upgraded.events().count == 2)
        #expect(try upgraded.pendingDeliveries(to: "vdir:/cal").count == 2)
        let version = try SQLiteDatabase(path: path, busyTimeoutMilliseconds: 1000).prepare("PRAGMA user_version").rows().first?.integer(0)
        #expect(version == SQLiteEventStore.schemaVersion)
        #expect(SQLiteEventStore.schemaVersion == 10)
    }

    @Test("a store of schema 8 (before IMAP state and pending senders) is upgraded in place: its events kept, the new tables made")
    func upgradeFromEight() throws {
        let (directory, path) = try Self.storeAsLeftBy()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = try SQLiteEventStore(path: path)
        try SQLiteDatabase(path: path, busyTimeoutMilliseconds: 1000).execute(
            "DROP TABLE imap_mailboxes; DROP TABLE allowed_senders; DROP TABLE pending_reservations; PRAGMA user_version = 8;")
        #expect(throws: EventStoreError.self) { _ = try SQLiteEventStore(readingAt: path) }
        let upgraded = try SQLiteEventStore(path: path)
        #expect(try upgraded.events().count == 2)
        try upgraded.decideSender(SenderDecision(domain: "airline.example", choice: .allow, decidedAt: 1, decidedBy: "jane"))
        #expect(try upgraded.choice(for: "airline.example") == .allow)
        #expect(try upgraded.pendingReservations(receivedSince: 0).isEmpty)
        let version = try SQLiteDatabase(path: path, busyTimeoutMilliseconds: 1000).prepare("PRAGMA user_version").rows().first?.integer(0)
        #expect(version == 10)
    }

    @Test("a store of schema 3 (before time zones) is upgraded in place: its events kept without a zone, new ones keep theirs")
    func upgradeFromThree() throws {
        let (directory, path) = try Self.storeAsLeftBy(
            "ALTER TABLE events DROP COLUMN start_zone; ALTER TABLE events DROP COLUMN end_zone; PRAGMA user_version = 3;")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(throws: EventStoreError.self) { _ = try SQLiteEventStore(readingAt: path) }
        let upgraded = try SQLiteEventStore(path: path)
        let kept = try #require(try upgraded.events().first)
        #expect(kept.event.start == Self.upgradeEvent.start)
        #expect(kept.event.key.owner == .domain("epicsteak.example"))
        #expect(kept.event.start?.zone == nil)
        var zoned = Self.upgradeEvent
        zoned.key = EventKey(owner: .domain("epicsteak.example"), container: "ZONED", item: "1")
        zoned.start = EventTime(
            text: "2031-05-12T19:30:00", local: "2031-05-12T19:30:00", offsetSeconds: -25_200, epochSeconds: 1_936_492_200,
            zone: "America/Los_Angeles")
        _ = try upgraded.apply(
            zoned, from: MessageProvenance(messageID: "<b@x>", path: nil, owner: .domain("epicsteak.example"), messageDate: 1001, arrival: 1001))
        let read = try #require(try SQLiteEventStore(readingAt: path).events().first { $0.event.key.container == "ZONED" })
        #expect(read.event.start == zoned.start)
        let version = try SQLiteDatabase(path: path, busyTimeoutMilliseconds: 1000).prepare("PRAGMA user_version").rows().first?.integer(0)
        #expect(version == SQLiteEventStore.schemaVersion)
    }

    static let upgradeEvent = CalendarEvent(
        key: EventKey(owner: .domain("epicsteak.example"), container: "IWDSCA", item: "1"), category: .food, title: "Reservation: EPIC Steak",
        start: EventTime(text: "2031-05-12T19:30:00-07:00", local: "2031-05-12T19:30:00", offsetSeconds: -25_200, epochSeconds: 1_936_492_200),
        end: nil, location: nil, notes: "", url: nil, status: .confirmed, reservationJSON: "{}")
}
