import EventStore
import Foundation
import PostgresTestSupport
import ReservoirBase
import Testing

@testable import EventStorePostgres

@Suite("PostgreSQL event store", .enabled(if: PostgresServer.isAvailable, Comment(rawValue: PostgresServer.skipReason)))
struct PostgresEventStoreTests {
    static let key = EventKey(owner: .domain("epicsteak.example"), container: "IWDSCA", item: "1")

    @Test("eight writers applying the same new reservation at once create it exactly once")
    func concurrentFirstWriters() throws {
        let url = try PostgresServer.shared.get().makeDatabase()
        // The schema is created by the racing writers themselves, to exercise the migration lock.
        let kinds = try runConcurrently(count: 8) { _ throws -> String in
            let store = try PostgresEventStore(url: url)
            return try store.apply(dinner(at: "2031-05-12T19:30:00"), from: message("<a@x>", date: 1000)).kind
        }
        #expect(kinds.filter { $0 == "created" }.count == 1)
        #expect(kinds.filter { $0 == "unchanged" }.count == 7)
        let store = try PostgresEventStore(url: url)
        #expect(try store.events().count == 1)
        #expect(try store.history("IWDSCA").map(\.change) == [.created])
    }

    @Test("concurrent different updates are each applied once, none lost")
    func concurrentUpdates() throws {
        let url = try PostgresServer.shared.get().makeDatabase()
        let first = try PostgresEventStore(url: url)
        _ = try first.apply(dinner(at: "2031-05-12T12:00:00"), from: message("<0@x>", date: 1000))
        let writers = 8
        // Every writer brings a distinct time and a distinct, increasing date; whatever order
        // the row lock grants them in, each is either applied or older than one applied.
        let kinds = try runConcurrently(count: writers) { index throws -> String in
            let store = try PostgresEventStore(url: url)
            let local = "2031-05-12T1\(index):30:00"
            return try store.apply(dinner(at: local), from: message("<\(index + 1)@x>", date: 1001 + Int64(index))).kind
        }
        let updated = kinds.filter { $0 == "updated" }.count
        #expect(updated + kinds.filter { $0 == "older-than-stored" }.count == writers)
        let stored = try #require(try first.event(Self.key))
        #expect(stored.sequence == updated)
        // The newest message always wins.
        #expect(stored.event.start?.local == "2031-05-12T1\(writers - 1):30:00")
        let history = try first.history("IWDSCA")
        #expect(history.count == writers + 1)
        #expect(history.filter { $0.change == .updated }.map(\.sequence) == Array(1...updated))
    }

    @Test("under SERIALIZABLE isolation colliding writers are retried, none lost")
    func serializableRetries() throws {
        let base = try PostgresServer.shared.get().makeDatabase()
        // libpq URI query values are percent-decoded: options=-c default_transaction_isolation=serializable
        let url = base + "&options=-c%20default_transaction_isolation%3Dserializable"
        let first = try PostgresEventStore(url: url)
        _ = try first.apply(dinner(at: "2031-05-12T12:00:00"), from: message("<0@x>", date: 1000))
        let writers = 4
        let kinds = try runConcurrently(count: writers) { index throws -> String in
            let store = try PostgresEventStore(url: url)
            return try store.apply(
                dinner(at: "2031-05-12T1\(index):45:00"),
                from: message("<s\(index)@x>", date: 1001 + Int64(index))
            ).kind
        }
        let updated = kinds.filter { $0 == "updated" }.count
        #expect(updated + kinds.filter { $0 == "older-than-stored" }.count == writers)
        let stored = try #require(try first.event(Self.key))
        #expect(stored.sequence == updated)
        #expect(stored.event.start?.local == "2031-05-12T1\(writers - 1):45:00")
        #expect(try first.history("IWDSCA").count == writers + 1)
    }

    @Test("an apply after a server restart reconnects and succeeds")
    func survivesRestart() throws {
        let server = try PostgresServer()
        defer { server.stop() }
        let url = try server.makeDatabase()
        let store = try PostgresEventStore(url: url)
        _ = try store.apply(dinner(at: "2031-05-12T19:30:00"), from: message("<a@x>", date: 1000))
        try server.restart()
        let moved = try store.apply(dinner(at: "2031-05-12T18:30:00"), from: message("<b@x>", date: 2000))
        #expect(moved.kind == "updated")
        try server.restart()
        #expect(try store.events().first?.sequence == 1)
        #expect(try store.history("IWDSCA").map(\.change) == [.created, .updated])
    }

    @Test("a stopped server is reported as lost connection, not a crash or a hang")
    func serverGone() throws {
        let server = try PostgresServer()
        let url = try server.makeDatabase()
        let store = try PostgresEventStore(url: url)
        server.stop()
        #expect(throws: EventStoreError(.connectionLost, "")) {
            _ = try store.apply(dinner(at: "2031-05-12T19:30:00"), from: message("<a@x>", date: 1000))
        }
        #expect(throws: EventStoreError(.connectionLost, "")) { _ = try store.events() }
        #expect(throws: EventStoreError(.cannotOpen, "")) { _ = try PostgresEventStore(url: url) }
    }

    @Test("reopening keeps the data and the schema version")
    func reopen() throws {
        let url = try PostgresServer.shared.get().makeDatabase()
        do {
            let store = try PostgresEventStore(url: url)
            _ = try store.apply(dinner(at: "2031-05-12T19:30:00"), from: message("<a@x>", date: 1000))
        }
        let again = try PostgresEventStore(url: url)
        #expect(try again.events().count == 1)
        #expect(
            try PostgresServer.shared.get().psqlColumn(url: url, "SELECT max(version) FROM schema_version") == [
                String(PostgresEventStore.schemaVersion)
            ])
        #expect(PostgresEventStore.schemaVersion == 11)
    }

    /// Statements taking a database back to schema 5, before scanned files kept their outcome.
    static let toSchema5 = [
        "ALTER TABLE scanned_files DROP COLUMN outcome, DROP COLUMN settings", "DELETE FROM schema_version WHERE version >= 6",
    ]

    /// Statements taking a database back to schema 6: no row-level security, scan state keyed
    /// by the file alone, no proof column.
    static let toSchema6 =
        ["events", "history", "deliveries", "scanned_files"].flatMap { table in
            [
                "DROP POLICY IF EXISTS account_rows ON \(table)", "DROP POLICY IF EXISTS account_directory ON \(table)",
                "ALTER TABLE \(table) NO FORCE ROW LEVEL SECURITY", "ALTER TABLE \(table) DISABLE ROW LEVEL SECURITY",
            ]
        } + [
            "ALTER TABLE scanned_files DROP CONSTRAINT scanned_files_pkey", "ALTER TABLE scanned_files DROP COLUMN account",
            "ALTER TABLE scanned_files ADD PRIMARY KEY (key)", "ALTER TABLE events DROP COLUMN IF EXISTS proof",
            "DELETE FROM schema_version WHERE version >= 7",
        ]

    /// Statements taking a database back to schema 4, before bookings were keyed per owner:
    /// the owner back in `owner_domain` (empty: NULL), the key (container, item), no UIDs.
    static let toSchema4 = [
        "ALTER TABLE events ADD COLUMN owner_domain text",
        "UPDATE events SET owner_domain = NULLIF(owner, '')",
        "ALTER TABLE events DROP CONSTRAINT events_pkey",
        "ALTER TABLE events DROP COLUMN account, DROP COLUMN owner, DROP COLUMN uid",
        "ALTER TABLE events ADD PRIMARY KEY (container, item)",
        "DROP INDEX history_key", "ALTER TABLE history DROP COLUMN account, DROP COLUMN owner",
        "CREATE INDEX history_key ON history (container, item)",
        "ALTER TABLE deliveries DROP CONSTRAINT deliveries_pkey", "ALTER TABLE deliveries DROP COLUMN account, DROP COLUMN owner, DROP COLUMN uid",
        "ALTER TABLE deliveries ADD PRIMARY KEY (destination, container, item)",
        "DELETE FROM schema_version WHERE version >= 5",
    ]

    /// A database holding one event (and one stored without a proof, and a delivery of the
    /// first), taken back to schema 4 and further by `downgrade` (statements that undo the
    /// later migrations), as an older reservoir left it.
    static func databaseAsLeftBy(_ downgrade: [String]) throws -> (server: PostgresServer, url: String) {
        let server = try PostgresServer.shared.get()
        let url = try server.makeDatabase()
        do {
            let store = try PostgresEventStore(url: url)
            _ = try store.apply(dinner(at: "2031-05-12T19:30:00"), from: message("<a@x>", date: 1000))
            _ = try store.apply(dinner(at: "2031-05-13T19:30:00", container: "LOCAL"), from: message("<u@x>", date: nil, domain: nil))
            #expect(try store.claimDelivery(of: Self.key, uid: Self.key.legacyCalendarUID, to: "vdir:/cal", by: "a", now: 1, until: 100))
            try store.finishDelivery(of: Self.key, to: "vdir:/cal", by: "a", result: .delivered(sequence: 0, etag: nil), at: 2)
        }
        for statement in Self.toSchema6 + Self.toSchema5 + Self.toSchema4 + downgrade { _ = try server.psqlColumn(url: url, statement) }
        return (server, url)
    }

    @Test("a store of schema 4 is keyed per owner in place: owners from owner_domain, UIDs and deliveries kept")
    func upgradeFromFour() throws {
        let (server, url) = try Self.databaseAsLeftBy([])
        let upgraded = try PostgresEventStore(url: url)
        #expect(try server.psqlColumn(url: url, "SELECT max(version) FROM schema_version") == [String(PostgresEventStore.schemaVersion)])
        let events = try upgraded.events()
        #expect(events.map(\.event.key.owner) == [.domain("epicsteak.example"), .unproven])
        #expect(events.allSatisfy { $0.event.key.account == .implicit }, "a single-user store's events go to the implicit account")
        #expect(events.map(\.uid) == ["IWDSCA-1@reservoir", "LOCAL-1@reservoir"])
        #expect(try upgraded.history("IWDSCA").map(\.key.owner) == [.domain("epicsteak.example")])
        #expect(try upgraded.deliveryRecords().map(\.key) == [Self.key])
        #expect(try upgraded.deliveryRecords().map(\.uid) == ["IWDSCA-1@reservoir"])
        #expect(try upgraded.pendingDeliveries(to: "vdir:/cal").map(\.event.event.key.container) == ["LOCAL"])
        let moved = try upgraded.apply(dinner(at: "2031-05-12T20:30:00"), from: message("<b@x>", date: 2000))
        #expect(moved.kind == "updated")
        #expect(moved.stored.uid == "IWDSCA-1@reservoir")
    }

    @Test("a store of schema 5 keeps its scanned files, without an outcome until they are read again")
    func upgradeFromFive() throws {
        let server = try PostgresServer.shared.get()
        let url = try server.makeDatabase()
        do {
            let store = try PostgresEventStore(url: url)
            _ = try store.apply(dinner(at: "2031-05-12T19:30:00"), from: message("<a@x>", date: 1000))
        }
        for statement in Self.toSchema5 {
            _ = try server.psqlColumn(url: url, statement)
        }
        _ = try server.psqlColumn(
            url: url, "INSERT INTO scanned_files (key, size, modified) VALUES ('Maildir/1794503643.M1P4242Q1.mail.home.example', 3311, 1794503643)")
        #expect(try server.psqlColumn(url: url, "SELECT max(version) FROM schema_version") == ["5"])
        let upgraded = try PostgresEventStore(url: url)
        #expect(try server.psqlColumn(url: url, "SELECT max(version) FROM schema_version") == [String(PostgresEventStore.schemaVersion)])
        let key = "Maildir/1794503643.M1P4242Q1.mail.home.example"
        #expect(try upgraded.scannedFiles()[key] == ScannedFile(key: key, size: 3311, modified: 1_794_503_643))
        #expect(try upgraded.events().count == 1)
        try upgraded.markScanned([ScannedFile(key: key, size: 3311, modified: 1_794_503_643, outcome: "trusted", settings: "")])
        #expect(try PostgresEventStore(url: url).scannedFiles()[key]?.outcome == "trusted")
    }

    @Test("a store of schema 2 (before calendar delivery) is upgraded in place: its events kept, all of them waiting for a calendar")
    func upgradeFromTwo() throws {
        let (server, url) = try Self.databaseAsLeftBy([
            "DROP TABLE deliveries", "ALTER TABLE events DROP COLUMN start_zone, DROP COLUMN end_zone",
            "DELETE FROM schema_version WHERE version >= 3",
        ])
        let upgraded = try PostgresEventStore(url: url)
        #expect(try server.psqlColumn(url: url, "SELECT max(version) FROM schema_version") == [String(PostgresEventStore.schemaVersion)])
        #expect(try upgraded.events().count == 2)
        #expect(try upgraded.pendingDeliveries(to: "vdir:/cal").map(\.event.event.key.container) == ["IWDSCA", "LOCAL"])
    }

    @Test("a store of schema 3 (before time zones) is upgraded in place: its events kept without a zone, new ones keep theirs")
    func upgradeFromThree() throws {
        let (server, url) = try Self.databaseAsLeftBy([
            "ALTER TABLE events DROP COLUMN start_zone, DROP COLUMN end_zone", "DELETE FROM schema_version WHERE version >= 4",
        ])
        let upgraded = try PostgresEventStore(url: url)
        #expect(try server.psqlColumn(url: url, "SELECT max(version) FROM schema_version") == [String(PostgresEventStore.schemaVersion)])
        let kept = try #require(try upgraded.events().first)
        #expect(kept.event.start?.zone == nil)
        #expect(kept.event.start?.local == "2031-05-12T19:30:00")
        var zoned = dinner(at: "2031-05-12T19:30:00")
        zoned.key = EventKey(owner: .domain("epicsteak.example"), container: "ZONED", item: "1")
        zoned.start = EventTime(
            text: "2031-05-12T19:30:00", local: "2031-05-12T19:30:00", offsetSeconds: -25_200, epochSeconds: 1_936_492_200,
            zone: "America/Los_Angeles")
        _ = try upgraded.apply(zoned, from: message("<b@x>", date: 1001))
        let read = try #require(try PostgresEventStore(url: url).events().first { $0.event.key.container == "ZONED" })
        #expect(read.event.start == zoned.start)
    }

    @Test("row-level security: a session that names no account reads and writes nothing; one account never sees another's rows")
    func rowLevelSecurity() throws {
        let server = try PostgresServer.shared.get()
        let (url, superuserURL) = try server.makeDatabase(ownedBy: PostgresServer.ordinaryRole)
        let jane = try PostgresEventStore(url: url, account: Account(normalizedAddress: "jane@example.org"))
        let joe = jane.scoped(to: Account(normalizedAddress: "joe@example.org"))
        _ = try jane.apply(dinner(at: "2031-05-12T19:30:00"), from: message("<a@x>", date: 1000))
        _ = try joe.apply(dinner(at: "2031-05-12T19:30:00"), from: message("<a@x>", date: 1000))
        _ = try joe.apply(dinner(at: "2031-06-01T19:30:00", container: "JOE2"), from: message("<b@x>", date: 1000))
        try joe.markScanned([ScannedFile(key: "/mail/1", size: 1, modified: 1, outcome: "trusted", settings: "")])
        try joe.recordIMAPMailboxState("imaps://mail.example.org/INBOX", IMAPMailboxState(uidValidity: 7, lastUID: 42))
        #expect(try joe.claimDelivery(of: Self.key, uid: "u", to: "vdir:/cal", by: "a", now: 1, until: 100))
        // Behind the store's back, as reservoir's own role: a query that forgets the account
        // (the setting unset, or set to nobody's) returns nothing from any table.
        for table in ["events", "history", "deliveries", "scanned_files", "imap_mailboxes"] {
            #expect(try server.psqlColumn(url: url, "SELECT count(*) FROM \(table)") == ["0"], "\(table)")
            #expect(try server.psqlColumn(url: superuserURL, "SELECT count(*) FROM \(table)") != ["0"], "\(table) holds rows")
        }
        #expect(try server.psqlColumn(url: url, "SET reservoir.account = 'jane@example.org'; SELECT container FROM events") == ["IWDSCA"])
        #expect(
            try server.psqlColumn(url: url, "SET reservoir.account = 'joe@example.org'; SELECT container FROM events ORDER BY container")
                == ["IWDSCA", "JOE2"])
        // Nor can it write a row into another account, or change or delete another's.
        #expect(throws: PostgresServer.ServerError.self) {
            try server.psql(
                url: url,
                "SET reservoir.account = 'jane@example.org'; UPDATE events SET account = 'joe@example.org' WHERE container = 'IWDSCA'")
        }
        #expect(
            try server.psqlColumn(
                url: url, "SET reservoir.account = 'jane@example.org'; DELETE FROM events WHERE container = 'JOE2' RETURNING 1") == [])
        #expect(try joe.events().count == 2)
        // The tables' owner is held to the policies too (FORCE), and the role is an ordinary one.
        #expect(try server.psqlColumn(url: superuserURL, "SELECT count(*) FROM pg_class WHERE relforcerowsecurity AND relrowsecurity") == ["7"])
        // The one read across accounts.
        let listed = try jane.accounts().map { "\($0.account.address)=\($0.events)" }
        #expect(listed == ["jane@example.org=1", "joe@example.org=2"])
        #expect(try jane.events().count == 1, "the directory's setting lasts its own transaction only")
    }

    @Test("a store of schema 6 is upgraded: its scanned files the implicit account's, its tables under row-level security")
    func upgradeFromSix() throws {
        let server = try PostgresServer.shared.get()
        let (url, superuserURL) = try server.makeDatabase(ownedBy: PostgresServer.ordinaryRole)
        do {
            let store = try PostgresEventStore(url: url)
            _ = try store.apply(dinner(at: "2031-05-12T19:30:00"), from: message("<a@x>", date: 1000))
            try store.markScanned([ScannedFile(key: "/mail/1", size: 1, modified: 1, outcome: "trusted", settings: "v1")])
        }
        for statement in Self.toSchema6 { try server.psql(url: superuserURL, statement) }
        #expect(try server.psqlColumn(url: url, "SELECT count(*) FROM events") == ["1"], "no policies at schema 6")
        let upgraded = try PostgresEventStore(url: url)
        #expect(try upgraded.scannedFiles()["/mail/1"]?.settings == "v1")
        #expect(try upgraded.scoped(to: Account(normalizedAddress: "jane@example.org")).scannedFiles().isEmpty)
        #expect(try upgraded.events().count == 1, "the implicit account's events, as before")
        #expect(try server.psqlColumn(url: url, "SELECT count(*) FROM events") == ["0"], "policies on")
    }

    @Test("a schema written by a newer reservoir is refused, not damaged")
    func newerSchema() throws {
        let url = try PostgresServer.shared.get().makeDatabase()
        _ = try PostgresEventStore(url: url)
        try PostgresServer.shared.get().psql(url: url, "INSERT INTO schema_version VALUES (99, now())")
        #expect(throws: EventStoreError(.schemaTooNew, "")) { _ = try PostgresEventStore(url: url) }
    }

    @Test("an up-to-date store opens for a role that may only read")
    func readOnlyRole() throws {
        let server = try PostgresServer.shared.get()
        let url = try server.makeDatabase()
        let writer = try PostgresEventStore(url: url)
        _ = try writer.apply(dinner(at: "2031-05-12T19:30:00"), from: message("<a@x>", date: 1000))
        try server.psql(
            url: url,
            """
            CREATE ROLE reader LOGIN; GRANT SELECT ON events, history, schema_version TO reader
            """)
        let readerURL = url.replacingOccurrences(of: "user=postgres", with: "user=reader")
        let reader = try PostgresEventStore(url: readerURL)
        #expect(try reader.events().count == 1)
        #expect(throws: EventStoreError(.readOnly, "")) {
            _ = try reader.apply(dinner(at: "2031-05-12T20:30:00"), from: message("<b@x>", date: 2000))
        }
    }

    @Test(
        "connection failures name the server but never the password",
        arguments: [
            "postgresql://reservoir:s3cret@127.0.0.1:1/reservoir",
            "postgres://reservoir:s3cret@[::1]:1/reservoir?connect_timeout=2",
        ])
    func unreachable(url: String) {
        do {
            _ = try PostgresEventStore(url: url)
            Issue.record("connected to a closed port")
        } catch {
            #expect(error.kind == .cannotOpen)
            #expect(!error.message.contains("s3cret"))
            #expect(error.message.contains("reservoir@"))
        }
    }

    @Test(
        "malformed or foreign URLs are refused as unsupported",
        arguments: [
            "postgresql://host/db?nonsense_option=1",
            "postgres://[::1/db",
            "mysql://host/db",
            "",
        ])
    func malformed(url: String) {
        #expect(throws: EventStoreError(.unsupportedURL, "")) { _ = try PostgresEventStore(url: url) }
    }

    @Test("EventStoreLocation hands postgres URLs to the opener it is given")
    func location() throws {
        let url = try PostgresServer.shared.get().makeDatabase()
        let store = try EventStoreLocation.open(url, postgres: PostgresEventStore.init(url:account:))
        #expect(store is PostgresEventStore)
        #expect(throws: EventStoreError(.unsupportedURL, "")) { _ = try EventStoreLocation.open(url) }
    }

    @Test(
        "connection failures that go away by themselves are tried again; a wrong password or database is not",
        arguments: [
            ("FATAL:  sorry, too many clients already", true),
            ("connection to server on socket \"/tmp/x/.s.PGSQL.5432\" failed: Connection reset by peer", true),
            ("connection to server at \"127.0.0.1\", port 5432 failed: Connection refused", true),
            ("FATAL:  the database system is starting up", true),
            ("FATAL:  password authentication failed for user \"jane\"", false),
            ("FATAL:  database \"nosuch\" does not exist", false),
        ])
    func transientConnectFailures(message: String, transient: Bool) {
        #expect(PostgresConnection.isTransient(connectFailure: message) == transient)
    }
}

/// Runs `body` on `count` threads released together; the results in index order.
func runConcurrently<T: Sendable>(count: Int, _ body: @escaping @Sendable (Int) throws -> T) throws -> [T] {
    let results = ResultBox<T>(count: count)
    let start = DispatchSemaphore(value: 0)
    let done = DispatchGroup()
    for index in 0..<count {
        done.enter()
        let thread = Thread {
            start.wait()
            results.set(index, Result { try body(index) })
            done.leave()
        }
        thread.start()
    }
    for _ in 0..<count { start.signal() }
    done.wait()
    return try results.values.map { try #require($0).get() }
}

/// Per-thread results. `@unchecked Sendable`: the array is only touched under the lock.
final class ResultBox<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var slots: [Result<T, any Error>?]
    init(count: Int) { slots = Array(repeating: nil, count: count) }
    func set(_ index: Int, _ value: Result<T, any Error>) {
        lock.lock()
        defer { lock.unlock() }
        slots[index] = value
    }
    var values: [Result<T, any Error>?] {
        lock.lock()
        defer { lock.unlock() }
        return slots
    }

}
