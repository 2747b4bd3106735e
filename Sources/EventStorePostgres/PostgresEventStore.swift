public import EventStore
import Glibc
public import ReservoirBase

/// The shared store: one PostgreSQL database written by many delivery hosts and processes at
/// once, with the same contract and decisions (``EventRevision``) as `SQLiteEventStore`.
///
/// Each `apply` is one transaction that locks the event's row (`SELECT … FOR UPDATE`, or
/// `INSERT … ON CONFLICT DO NOTHING` then the lock for a first sighting), so concurrent writers
/// queue on the row and never create a duplicate nor lose a change. Not `Sendable`: one store
/// owns one connection, used by one thread at a time.
public final class PostgresEventStore: EventStore {
    /// The schema version this build writes (the highest row of `schema_version`).
    public static let schemaVersion = Int64(PostgresSchema.migrations.count)
    /// How many times one `apply` runs its transaction when PostgreSQL asks for a retry
    /// (serialization failure 40001, deadlock 40P01) before reporting `.busy`. Under the
    /// default READ COMMITTED isolation the row lock makes writers queue and retries are rare;
    /// a site running SERIALIZABLE sees one per concurrent writer of the same event.
    public static let maximumTransactionAttempts = 10
    /// How many times one `apply` reconnects after losing its connection (a server restarting
    /// can accept a connection and close it again while it shuts down).
    public static let maximumReconnects = 3
    /// Upper bound of the random pause before a retry, so colliding writers spread out.
    public static let maximumRetryPauseMicroseconds: UInt32 = 50_000
    /// Seconds a connection attempt may take, unless the URL says otherwise.
    public static var defaultConnectTimeoutSeconds: Int { PostgresURL.defaultConnectTimeoutSeconds }

    private let connection: PostgresConnection
    /// Where the store is, without the password.
    public let location: String
    /// Whose bookings this handle reads and writes; every statement is scoped to it.
    public let account: Account

    /// Connects to the database a `postgres://` or `postgresql://` URL names (any libpq URI:
    /// `postgresql:///db?host=/run/postgresql`, `postgres://user:pw@host:5432/db?sslmode=require`)
    /// and creates or upgrades the schema. Throws `.unsupportedURL` for a malformed URL,
    /// `.cannotOpen` when the server cannot be reached or refuses the login, `.schemaTooNew`
    /// when a newer reservoir wrote the schema.
    public init(url: String, account: Account = .implicit) throws(EventStoreError) {
        let parsed = try PostgresURL(url)
        location = parsed.description
        self.account = account
        connection = try PostgresConnection(parameters: parsed.connectionParameters, describedAs: parsed.description)
        try migrate()
    }

    private init(connection: PostgresConnection, location: String, account: Account) {
        self.connection = connection
        self.location = location
        self.account = account
    }

    /// The same database, holding `account`'s bookings: one connection, another scope (the
    /// milter records one message for each of its recipients).
    public func scoped(to account: Account) -> PostgresEventStore {
        PostgresEventStore(connection: connection, location: location, account: account)
    }

    // MARK: Schema

    /// Checks the schema without writing first (every filter run opens the store; a read-only
    /// role or a hot standby can still read), and migrates under a lock only when behind.
    private func migrate() throws(EventStoreError) {
        if try query("SELECT to_regclass('schema_version') IS NOT NULL", []).text(0, 0) == "t" {
            let version = try query("SELECT max(version) FROM schema_version", []).integer(0, 0) ?? 0
            if version > Self.schemaVersion {
                throw EventStoreError(
                    .schemaTooNew,
                    "\(location) was written by a newer reservoir (schema \(version)); upgrade reservoir")
            }
            if version == Self.schemaVersion { return }
        }
        try transaction { () throws(PostgresFailure) in
            // Serializes migrations between processes starting at once: concurrent
            // CREATE TABLE IF NOT EXISTS may otherwise fail on the catalog's unique index.
            try connection.execute("SELECT pg_advisory_xact_lock($1)", [String(PostgresSchema.migrationLockKey)])
            try connection.execute(PostgresSchema.versionTable)
            let version = try connection.execute("SELECT max(version) FROM schema_version").integer(0, 0) ?? 0
            if version > Self.schemaVersion {
                throw PostgresFailure(
                    sqlState: nil, message: "schema \(version) is newer than \(Self.schemaVersion)",
                    connectionLost: false, newerSchemaVersion: version)
            }
            for (index, migration) in PostgresSchema.migrations.enumerated() where Int64(index + 1) > version {
                for statement in migration { try connection.execute(statement) }
                try connection.execute(
                    "INSERT INTO schema_version (version, applied_at) VALUES ($1, now())",
                    [String(index + 1)])
            }
        }
    }

    // MARK: EventStore

    public func apply(
        _ key: EventKey, from message: MessageProvenance, revising revise: (StoredEvent?) -> CalendarEvent
    ) throws(EventStoreError) -> EventChange {
        // Filed under this handle's account and the owner of the proof that vouched (EventStore).
        let key = key.filed(for: message, in: account)
        func version(_ stored: EventRow?) -> CalendarEvent {
            var event = revise(stored?.stored)
            event.key = key
            return event
        }
        return try transaction { () throws(PostgresFailure) -> EventChange in
            var stored = try lockedRow(key)
            if stored == nil {
                let step = EventRevision.step(stored: nil, alreadyApplied: false, new: version(nil), from: message)
                // A concurrent first writer may insert the same key between our SELECT and
                // INSERT: DO NOTHING waits for it to commit, then the row is locked below.
                if let row = step.write,
                    try connection.execute(
                        "INSERT INTO events (\(EventRow.layout.names)) VALUES (\(Self.placeholders(EventRow.layout))) "
                            + "ON CONFLICT (account, owner, container, item) DO NOTHING RETURNING 1",
                        row.values.map(\.parameter)
                    ).rowCount == 1
                {
                    if let entry = step.record { try record(entry) }
                    return step.change
                }
                stored = try lockedRow(key)
                guard stored != nil else {
                    // Inserted by another writer and deleted since: nothing reservoir does.
                    throw PostgresFailure(sqlState: "40001", message: "event \(key) vanished during apply", connectionLost: false)
                }
            }
            var alreadyApplied = false
            if let messageID = message.messageID {
                alreadyApplied =
                    try connection.execute(
                        "SELECT 1 FROM history WHERE account = $1 AND owner = $2 AND container = $3 AND item = $4 "
                            + "AND message_id = $5 LIMIT 1",
                        [key.account.address, key.owner.storedText, key.container, key.item, messageID]
                    ).rowCount > 0
            }
            let step = EventRevision.step(stored: stored, alreadyApplied: alreadyApplied, new: version(stored), from: message)
            if let row = step.write { try connection.execute(Self.update, row.values.map(\.parameter)) }
            if let entry = step.record { try record(entry) }
            return step.change
        }
    }

    public func forget(_ id: String, at time: Int64) throws(EventStoreError) -> [StoredEvent] {
        try transaction { () throws(PostgresFailure) -> [StoredEvent] in
            let result = try connection.execute(
                "SELECT \(EventRow.layout.names) FROM events WHERE account = $2 AND (container = $1 OR container || '/' || item = $1) "
                    + "FOR UPDATE", [id, account.address])
            var forgotten: [StoredEvent] = []
            for r in 0..<result.rowCount {
                do throws(EventStoreError) {
                    forgotten.append(try EventRow(values: result.values(r, EventRow.layout)).stored)
                } catch {
                    throw PostgresFailure(sqlState: nil, message: error.message, connectionLost: false, storeError: error)
                }
            }
            for stored in forgotten {
                _ = try connection.execute(
                    "DELETE FROM events WHERE account = $1 AND owner = $2 AND container = $3 AND item = $4",
                    [account.address, stored.event.key.owner.storedText, stored.event.key.container, stored.event.key.item])
                try record(EventRevision.forgotten(stored, at: time))
            }
            return forgotten.sortedByStart()
        }
    }

    /// PostgreSQL applies no row-level security to a superuser or a role with BYPASSRLS
    /// (CREATE ROLE, "BYPASSRLS"), whatever FORCE ROW LEVEL SECURITY says: the account
    /// policies then hold nothing apart (docs/SITE.md, "PostgreSQL for several hosts").
    public func roleBypassingRowSecurity() throws(EventStoreError) -> String? {
        let result = try query("SELECT current_user, rolsuper OR rolbypassrls FROM pg_roles WHERE rolname = current_user", [])
        guard result.rowCount == 1, result.text(0, 1) == "t" else { return nil }
        return result.text(0, 0)
    }

    public func events() throws(EventStoreError) -> [StoredEvent] {
        let result = try query("SELECT \(EventRow.layout.names) FROM events WHERE account = $1", [account.address])
        return try (0..<result.rowCount).map { r throws(EventStoreError) in try EventRow(values: result.values(r, EventRow.layout)).stored }
            .sortedByStart()
    }

    public func events(inBooking container: String, ownedBy owner: BookingOwner) throws(EventStoreError) -> [StoredEvent] {
        let result = try query(
            "SELECT \(EventRow.layout.names) FROM events WHERE account = $1 AND owner = $2 AND container = $3",
            [account.address, owner.storedText, container])
        return try (0..<result.rowCount).map { r throws(EventStoreError) in try EventRow(values: result.values(r, EventRow.layout)).stored }
            .sortedByStart()
    }

    public func event(_ key: EventKey) throws(EventStoreError) -> StoredEvent? {
        let result = try query(
            "SELECT \(EventRow.layout.names) FROM events WHERE account = $1 AND owner = $2 AND container = $3 AND item = $4",
            [account.address, key.owner.storedText, key.container, key.item])
        return result.rowCount > 0 ? try EventRow(values: result.values(0, EventRow.layout)).stored : nil
    }

    public func history(_ id: String) throws(EventStoreError) -> [HistoryEntry] {
        let result = try query(
            "SELECT \(HistoryEntry.layout.names) FROM history WHERE account = $2 AND (container = $1 OR item = $1) ORDER BY id",
            [id, account.address])
        return try (0..<result.rowCount).map { r throws(EventStoreError) in try HistoryEntry(values: result.values(r, HistoryEntry.layout)) }
    }

    // MARK: Rows

    private static func placeholders(_ layout: RowLayout) -> String {
        (1...layout.columns.count).map { "$\($0)" }.joined(separator: ", ")
    }

    /// Rewrites every column but the key, from the same parameter list as the insert.
    private static let update: String = {
        let assignments = EventRow.layout.columns.enumerated().dropFirst(EventKey.columns.count).map {
            "\($0.element.name) = $\($0.offset + 1)"
        }
        return "UPDATE events SET \(assignments.joined(separator: ", ")) WHERE account = $1 AND owner = $2 AND container = $3 AND item = $4"
    }()

    /// The event's row, locked until the transaction ends; nil when none is stored.
    private func lockedRow(_ key: EventKey) throws(PostgresFailure) -> EventRow? {
        let result = try connection.execute(
            "SELECT \(EventRow.layout.names) FROM events WHERE account = $1 AND owner = $2 AND container = $3 AND item = $4 "
                + "FOR UPDATE",
            [key.account.address, key.owner.storedText, key.container, key.item])
        guard result.rowCount > 0 else { return nil }
        do {
            return try EventRow(values: result.values(0, EventRow.layout))
        } catch {
            throw PostgresFailure(sqlState: nil, message: error.message, connectionLost: false, storeError: error)
        }
    }

    private func record(_ entry: HistoryEntry) throws(PostgresFailure) {
        try connection.execute(
            "INSERT INTO history (\(HistoryEntry.layout.names)) VALUES (\(Self.placeholders(HistoryEntry.layout)))",
            entry.values.map(\.parameter))
    }

    // MARK: Transactions and errors

    /// Runs `body` in `BEGIN … COMMIT`. The whole transaction is run again, up to
    /// ``maximumTransactionAttempts`` times, when PostgreSQL reports a serialization failure
    /// or a deadlock, and again after reconnecting (`PQreset`, up to ``maximumReconnects``
    /// times) when the connection dropped.
    /// A retry after a connection lost during `COMMIT` is safe: the message is then found in
    /// the history, or the stored content equals the new one, so it is `unchanged`.
    private func transaction<T>(_ body: () throws(PostgresFailure) -> T) throws(EventStoreError) -> T {
        var attempt = 1
        var reconnects = 0
        while true {
            do {
                try connection.scope(to: account.address)
                try connection.execute("BEGIN")
                let value = try body()
                try connection.execute("COMMIT")
                return value
            } catch {
                if !connection.isBroken, connection.isInTransaction { _ = try? connection.execute("ROLLBACK") }
                if error.connectionLost, reconnects < Self.maximumReconnects {
                    reconnects += 1
                    if connection.reset() { continue }
                }
                if error.isRetryable, attempt < Self.maximumTransactionAttempts {
                    attempt += 1
                    usleep(UInt32.random(in: 1...Self.maximumRetryPauseMicroseconds))
                    continue
                }
                throw storeError(error, attempts: attempt)
            }
        }
    }

    /// One read statement, run again once after a reconnect when the connection dropped.
    private func query(_ sql: String, _ parameters: [String?]) throws(EventStoreError) -> PostgresResult {
        do {
            try connection.scope(to: account.address)
            return try connection.execute(sql, parameters)
        } catch {
            guard error.connectionLost, connection.reset() else { throw storeError(error, attempts: 1) }
            do {
                try connection.scope(to: account.address)
                return try connection.execute(sql, parameters)
            } catch {
                throw storeError(error, attempts: 2)
            }
        }
    }

    /// Maps a failure to the store's error kinds by SQLSTATE class (PostgreSQL manual,
    /// Appendix A, PostgreSQL Error Codes).
    private func storeError(_ failure: PostgresFailure, attempts: Int) -> EventStoreError {
        if let error = failure.storeError { return error }
        if let version = failure.newerSchemaVersion {
            return EventStoreError(
                .schemaTooNew,
                "\(location) was written by a newer reservoir (schema \(version)); upgrade reservoir")
        }
        let state = failure.sqlState ?? ""
        let detail = "PostgreSQL at \(location): \(failure.message)" + (state.isEmpty ? "" : " (SQLSTATE \(state))")
        if failure.connectionLost {
            return EventStoreError(.connectionLost, "lost the connection to \(detail)")
        }
        switch state {
        case "40001", "40P01":
            return EventStoreError(.busy, "gave up after \(attempts) attempts: \(detail)")
        case "55P03", "57014":
            return EventStoreError(.busy, detail)
        case "53100":
            return EventStoreError(.diskFull, detail)
        case "25006", "42501":
            return EventStoreError(.readOnly, detail)
        case "XX001", "XX002":
            return EventStoreError(.corrupt, detail)
        default:
            return EventStoreError(.database, detail)
        }
    }
}

// MARK: Incremental scans

extension PostgresEventStore: ScanStateStore {
    public func scannedFiles() throws(EventStoreError) -> [String: ScannedFile] {
        let result = try query("SELECT key, size, modified, outcome, settings FROM scanned_files WHERE account = $1", [account.address])
        var files: [String: ScannedFile] = [:]
        for row in 0..<result.rowCount {
            guard let key = result.text(row, 0), let size = result.integer(row, 1), let modified = result.integer(row, 2) else { continue }
            files[key] = ScannedFile(
                key: key, size: size, modified: modified, outcome: result.text(row, 3), settings: result.text(row, 4))
        }
        return files
    }

    public func markScanned(_ files: [ScannedFile]) throws(EventStoreError) {
        guard !files.isEmpty else { return }
        try transaction { () throws(PostgresFailure) in
            for file in files {
                _ = try connection.execute(
                    "INSERT INTO scanned_files (account, key, size, modified, outcome, settings) VALUES ($1, $2, $3, $4, $5, $6) "
                        + "ON CONFLICT (account, key) DO UPDATE SET size = excluded.size, modified = excluded.modified, "
                        + "outcome = excluded.outcome, settings = excluded.settings",
                    [account.address, file.key, String(file.size), String(file.modified), file.outcome, file.settings])
            }
        }
    }
}

// MARK: IMAP mailboxes

extension PostgresEventStore: IMAPStateStore {
    public func imapMailboxState(_ mailboxURL: String) throws(EventStoreError) -> IMAPMailboxState? {
        let result = try query(
            "SELECT uidvalidity, last_uid FROM imap_mailboxes WHERE account = $1 AND mailbox_url = $2", [account.address, mailboxURL])
        guard result.rowCount > 0, let validity = result.integer(0, 0), let last = result.integer(0, 1) else { return nil }
        return IMAPMailboxState(uidValidity: validity, lastUID: last)
    }

    public func recordIMAPMailboxState(_ mailboxURL: String, _ state: IMAPMailboxState) throws(EventStoreError) {
        try transaction { () throws(PostgresFailure) in
            _ = try connection.execute(
                "INSERT INTO imap_mailboxes (account, mailbox_url, uidvalidity, last_uid) VALUES ($1, $2, $3, $4) "
                    + "ON CONFLICT (account, mailbox_url) DO UPDATE SET uidvalidity = excluded.uidvalidity, last_uid = excluded.last_uid",
                [account.address, mailboxURL, String(state.uidValidity), String(state.lastUID)])
        }
    }
}

// MARK: Accounts

extension PostgresEventStore: AccountDirectory {
    /// The one read across accounts: in a transaction of its own that sets
    /// `reservoir.directory` for itself alone (`set_config(…, true)`), which the
    /// `account_directory` policies let read events and deliveries (PostgresSchema, migration 8).
    public func accounts() throws(EventStoreError) -> [AccountSummary] {
        let result = try transaction { () throws(PostgresFailure) in
            try connection.execute("SELECT set_config('reservoir.directory', 'on', true)")
            return try connection.execute(DeliverySQL.accounts)
        }
        return (0..<result.rowCount).map { r in
            AccountSummary(
                account: Account(normalizedAddress: result.text(r, 0) ?? ""), events: Int(result.integer(r, 1) ?? 0),
                pendingDeliveries: Int(result.integer(r, 2) ?? 0))
        }
    }
}

// MARK: Calendar delivery

extension PostgresEventStore: DeliveryLedger {
    public func pendingDeliveries(to destination: String) throws(EventStoreError) -> [PendingDelivery] {
        try pendingRows(try query(Self.numbered(DeliverySQL.pending), [destination, account.address]))
    }

    public func pendingDelivery(of key: EventKey, to destination: String) throws(EventStoreError) -> PendingDelivery? {
        try pendingRows(
            try query(Self.numbered(DeliverySQL.pendingOne), [destination, account.address, key.owner.storedText, key.container, key.item])
        ).first
    }

    public func claimDelivery(of key: EventKey, uid: String, to destination: String, by owner: String, now: Int64, until: Int64)
        throws(EventStoreError) -> Bool
    {
        // One statement: the row lock of INSERT … ON CONFLICT DO UPDATE makes concurrent
        // claimers queue, and the WHERE lets only one of them take a free claim.
        try transaction { () throws(PostgresFailure) -> Bool in
            try connection.execute(
                Self.numbered(DeliverySQL.claim),
                [destination, account.address, key.owner.storedText, key.container, key.item, uid, owner, String(until), String(now)]
            ).rowCount == 1
        }
    }

    public func finishDelivery(of key: EventKey, to destination: String, by owner: String, result: DeliveryResult, at now: Int64)
        throws(EventStoreError)
    {
        let (sql, values) = DeliverySQL.finish(result, key: key.inAccount(account), destination: destination, owner: owner, now: now)
        try transaction { () throws(PostgresFailure) in
            _ = try connection.execute(Self.numbered(sql), values.map(\.parameter))
        }
    }

    public func deliveryRecords() throws(EventStoreError) -> [DeliveryRecord] {
        let result = try query(Self.numbered(DeliverySQL.records), [account.address])
        return try (0..<result.rowCount).map { r throws(EventStoreError) in
            try DeliveryRecord(values: result.values(r, DeliveryRecord.layout))
        }
    }

    public func forgottenDeliveries(to destination: String) throws(EventStoreError) -> [DeliveryRecord] {
        let result = try query(Self.numbered(DeliverySQL.forgotten), [destination, account.address])
        return try (0..<result.rowCount).map { r throws(EventStoreError) in
            try DeliveryRecord(values: result.values(r, DeliveryRecord.layout))
        }
    }

    private func pendingRows(_ result: PostgresResult) throws(EventStoreError) -> [PendingDelivery] {
        let layout = RowLayout(table: "deliveries", columns: EventRow.layout.columns + DeliveryRecord.layout.columns)
        return try (0..<result.rowCount).map { r throws(EventStoreError) in try DeliverySQL.pendingRow(result.values(r, layout)) }
    }

    /// `?` placeholders numbered as PostgreSQL writes them (`$1`, `$2`, …); the ledger's SQL
    /// holds no `?` inside a literal.
    static func numbered(_ sql: String) -> String {
        var out = ""
        var n = 0
        for character in sql {
            if character == "?" {
                n += 1
                out += "$\(n)"
            } else {
                out.append(character)
            }
        }
        return out
    }
}

// MARK: Sender choices and pending reservations

extension PostgresEventStore: SenderStore {
    public func senderDecisions() throws(EventStoreError) -> [SenderDecision] {
        let result = try query(
            "SELECT domain, decision, decided_at, decided_by FROM allowed_senders WHERE account = $1 ORDER BY domain", [account.address])
        return (0..<result.rowCount).compactMap { row in
            guard let domain = result.text(row, 0), let choice = result.text(row, 1).flatMap(SenderChoice.init(rawValue:)),
                let at = result.integer(row, 2)
            else { return nil }
            return SenderDecision(domain: domain, choice: choice, decidedAt: at, decidedBy: result.text(row, 3) ?? "")
        }
    }

    public func decideSender(_ decision: SenderDecision) throws(EventStoreError) {
        try transaction { () throws(PostgresFailure) in
            _ = try connection.execute(
                "INSERT INTO allowed_senders (account, domain, decision, decided_at, decided_by) VALUES ($1, $2, $3, $4, $5) "
                    + "ON CONFLICT (account, domain) DO UPDATE SET decision = excluded.decision, decided_at = excluded.decided_at, "
                    + "decided_by = excluded.decided_by",
                [account.address, decision.domain.lowercased(), decision.choice.rawValue, String(decision.decidedAt), decision.decidedBy])
        }
    }

    public func keepPending(_ reservations: [PendingReservation], expiringBefore expiry: Int64) throws(EventStoreError) {
        try transaction { () throws(PostgresFailure) in
            for pending in reservations {
                _ = try connection.execute(
                    "INSERT INTO pending_reservations (account, \(SenderSQL.pendingColumns)) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) "
                        + "ON CONFLICT (account, domain, container, item) DO UPDATE SET title = excluded.title, "
                        + "start_text = excluded.start_text, end_text = excluded.end_text, reservation_json = excluded.reservation_json, "
                        + "message_id = excluded.message_id, received = excluded.received, message = excluded.message",
                    [
                        account.address, pending.domain.lowercased(), pending.container, pending.item, pending.title, pending.start,
                        pending.end, pending.reservationJSON, pending.messageID, String(pending.received),
                        SenderSQL.messageText(pending.message),
                    ])
            }
            _ = try connection.execute(
                "DELETE FROM pending_reservations WHERE account = $1 AND received < $2", [account.address, String(expiry)])
            _ = try connection.execute(
                "DELETE FROM pending_reservations p WHERE account = $1 AND (domain, container, item) NOT IN "
                    + "(SELECT domain, container, item FROM pending_reservations WHERE account = $1 "
                    + "ORDER BY received DESC, domain, container, item LIMIT $2)",
                [account.address, String(PendingLimits.maxPerAccount)])
        }
    }

    public func pendingReservations(receivedSince expiry: Int64) throws(EventStoreError) -> [PendingReservation] {
        let result = try query(
            "SELECT \(SenderSQL.pendingColumns) FROM pending_reservations WHERE account = $1 AND received >= $2 "
                + "ORDER BY received, domain, container, item", [account.address, String(expiry)])
        return (0..<result.rowCount).compactMap { row in
            SenderSQL.pendingRow({ result.text(row, $0) }, { result.integer(row, $0) })
        }
    }

    public func removePending(domain: String) throws(EventStoreError) -> [PendingReservation] {
        try transaction { () throws(PostgresFailure) -> [PendingReservation] in
            let result = try connection.execute(
                "DELETE FROM pending_reservations WHERE account = $1 AND domain = $2 RETURNING \(SenderSQL.pendingColumns)",
                [account.address, domain.lowercased()])
            return (0..<result.rowCount).compactMap { row in
                SenderSQL.pendingRow({ result.text(row, $0) }, { result.integer(row, $0) })
            }.sorted { $0.received < $1.received }
        }
    }
}

extension PostgresEventStore {
    // The store keeps every role (EventStore).
    public var directory: (any AccountDirectory)? { self }
    public var scanState: (any ScanStateStore)? { self }
    public var imapState: (any IMAPStateStore)? { self }
    public var ledger: (any DeliveryLedger)? { self }
    public var senders: (any SenderStore)? { self }
}
