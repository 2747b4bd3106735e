import Glibc
public import ReservoirBase

/// The embedded default store: one SQLite file (WAL, busy timeout, versioned schema).
public final class SQLiteEventStore: EventStore {
    /// How long a writer waits for another process's transaction before giving up.
    public static let busyTimeoutMilliseconds: Int32 = 30_000
    /// The schema version this build writes (PRAGMA user_version).
    public static let schemaVersion: Int64 = 10

    private let database: SQLiteDatabase
    public var path: String { database.path }
    /// Whose bookings this handle reads and writes; every statement is scoped to it.
    public let account: Account
    /// Whether this open made the store's file (a new, empty store).
    public let isNew: Bool

    /// Opens or creates the store at `path`; a new file is created readable by its owner only.
    /// `creation` says whether a missing store is made and its missing parent directories too
    /// (mode 0700). `busyTimeoutMilliseconds`: how long to wait for another writer (less in a
    /// hook with a time budget). `account`: whose bookings the handle holds (``scoped(to:)``
    /// gives another account's on the same file).
    public init(
        path: String, busyTimeoutMilliseconds: Int32 = SQLiteEventStore.busyTimeoutMilliseconds,
        creation: StoreCreation = .withDirectories, account: Account = .implicit
    ) throws(EventStoreError) {
        // SQLite's name for a database that lives in memory only: no file to prepare.
        isNew = path == ":memory:" ? false : try Self.prepareFile(path, creation: creation)
        database = try SQLiteDatabase(path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
        self.account = account
        try migrate()
    }

    private init(database: SQLiteDatabase, account: Account) {
        self.database = database
        self.account = account
        isNew = false
    }

    /// The same store, holding `account`'s bookings: one connection, another scope (the milter
    /// records one message for each of its recipients).
    public func scoped(to account: Account) -> SQLiteEventStore {
        SQLiteEventStore(database: database, account: account)
    }

    /// Opens an existing store for reading only (a backup on read-only media, a store whose
    /// directory the reader may not write). Writing through it fails with `.readOnly`.
    public init(readingAt path: String, account: Account = .implicit) throws(EventStoreError) {
        self.account = account
        isNew = false
        database = try SQLiteDatabase(readingAt: path)
        let version = try database.prepare("PRAGMA user_version").rows().first?.integer(0) ?? 0
        guard version == Self.schemaVersion else {
            throw EventStoreError(
                version > Self.schemaVersion ? .schemaTooNew : .cannotOpen,
                "\(path) has schema \(version), this reservoir reads \(Self.schemaVersion); it cannot be upgraded read-only")
        }
    }

    /// The mode of a new store file: 0600, private to its owner, unless its directory lets its
    /// group write (a shared system store, `install -d -g reservoir -m 2770 /var/lib/reservoir`,
    /// docs/CONFIGURATION.md): then 0660, so every member of that group can record. SQLite gives
    /// the `-wal` and `-shm` files the database file's mode.
    static func fileMode(inDirectoryWithMode directoryMode: mode_t) -> mode_t {
        directoryMode & S_IWGRP != 0 ? 0o660 : 0o600
    }

    /// Makes the store's file when it is missing and `creation` allows; true when it made it.
    private static func prepareFile(_ path: String, creation: StoreCreation) throws(EventStoreError) -> Bool {
        let directory: String
        if let slash = path.lastIndex(of: "/") {
            directory = slash == path.startIndex ? "/" : String(path[..<slash])
        } else {
            directory = "."
        }
        var status = stat()
        let found = stat(directory, &status) == 0
        // A directory that does not exist; a file where it should be is a store that cannot be
        // opened (below).
        let missing = !found && errno == ENOENT
        if !found || status.st_mode & S_IFMT != S_IFDIR {
            switch creation {
            case .never where missing:
                throw EventStoreError(.notFound, "no store at \(path)")
            case .inExistingDirectory where missing:
                throw EventStoreError(
                    .missingDirectory, "no directory \(directory) for the store \(path): create it first (scan --create makes it)")
            case .withDirectories:
                try makeDirectories(directory)
                _ = stat(directory, &status)
            case .never, .inExistingDirectory:
                break
            }
        }
        if creation == .never, access(path, F_OK) != 0 {
            throw EventStoreError(.notFound, "no store at \(path)")
        }
        let mode = fileMode(inDirectoryWithMode: status.st_mode)
        // Create the file before SQLite does (SQLite would use the umask), and set its mode
        // past the umask, which would take the group's write bit from a shared store.
        let created = open(path, O_RDWR | O_CREAT | O_EXCL, mode)
        if created >= 0 {
            fchmod(created, mode)
            close(created)
            return true
        }
        let fd = open(path, O_RDWR | O_CREAT, mode)
        if fd < 0 {
            let code = errno
            if code == EACCES || code == EROFS {
                // A read-only store can still be read.
                if access(path, R_OK) == 0 { return false }
            }
            throw EventStoreError(
                code == EROFS || code == EACCES ? .readOnly : .cannotOpen,
                "cannot create \(path): \(String(cString: strerror(code)))")
        }
        var store = stat()
        fstat(fd, &store)
        close(fd)
        try repairSideFiles(path, storeMode: store.st_mode)
        return false
    }

    /// SQLite gives a store's `-wal` and `-shm` files the store's mode when it makes them,
    /// and keeps them between runs (``SQLiteDatabase``). A side file left read-only after the
    /// store was made writable again (`chmod 600 events.sqlite3` after `chmod 400
    /// events.sqlite3*`) made every write fail as if the store were still read-only. The store
    /// can be written here: a side file of ours gets the store's permission bits back, and one
    /// of another owner is reported by name, with what to do.
    static func repairSideFiles(_ path: String, storeMode: mode_t) throws(EventStoreError) {
        for suffix in ["-wal", "-shm"] {
            let side = path + suffix
            var info = stat()
            guard stat(side, &info) == 0, access(side, W_OK) != 0, errno == EACCES else { continue }
            let permissions = storeMode & 0o777
            if info.st_uid == geteuid(), chmod(side, permissions) == 0 { continue }
            throw EventStoreError(
                .sideFile,
                "\(side) cannot be written (mode \(String(info.st_mode & 0o777, radix: 8))) though \(path) can: give it the store's mode (chmod \(String(permissions, radix: 8)) \(side)) or remove it while no process uses the store"
            )
        }
    }

    private static func makeDirectories(_ path: String) throws(EventStoreError) {
        var current = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            current += "/" + component
            if mkdir(current, 0o700) != 0, errno != EEXIST {
                throw EventStoreError(.cannotOpen, "cannot create directory \(current): \(String(cString: strerror(errno)))")
            }
        }
    }

    private func migrate() throws(EventStoreError) {
        let version = try database.prepare("PRAGMA user_version").rows().first?.integer(0) ?? 0
        if version > Self.schemaVersion {
            throw EventStoreError(.schemaTooNew, "\(path) was written by a newer reservoir (schema \(version)); upgrade reservoir")
        }
        if version == Self.schemaVersion { return }
        try database.transaction { () throws(EventStoreError) in
            // Re-read inside the write lock: another process may have migrated meanwhile.
            let current = try database.prepare("PRAGMA user_version").rows().first?.integer(0) ?? 0
            if current < 1 { try createVersion1() }
            if current < 2 {
                // Version 2: files a scan has read, for incremental scans.
                try database.execute(
                    """
                    CREATE TABLE IF NOT EXISTS scanned_files (
                        key TEXT PRIMARY KEY,
                        size INTEGER NOT NULL,
                        modified INTEGER NOT NULL
                    );
                    PRAGMA user_version = 2;
                    """)
            }
            if current < 3 {
                // Version 3: what each calendar destination holds (the outbox, DeliveryLedger).
                try database.execute(
                    """
                    CREATE TABLE IF NOT EXISTS deliveries (
                        destination TEXT NOT NULL,
                        container TEXT NOT NULL,
                        item TEXT NOT NULL,
                        delivered_sequence INTEGER,
                        etag TEXT,
                        failures INTEGER NOT NULL DEFAULT 0,
                        last_error TEXT,
                        last_attempt INTEGER,
                        claimed_by TEXT,
                        claimed_until INTEGER,
                        PRIMARY KEY (destination, container, item)
                    );
                    PRAGMA user_version = 3;
                    """)
            }
            if current < 4 {
                // Version 4: the IANA zone a time without offset was read in (EventTime.zone).
                // SQLite has no ADD COLUMN IF NOT EXISTS: a column already there is left alone.
                let columns = Set(try database.prepare("PRAGMA table_info(events)").rows().compactMap { $0.text(1) })
                for column in ["start_zone", "end_zone"] where !columns.contains(column) {
                    try database.execute("ALTER TABLE events ADD COLUMN \(column) TEXT")
                }
                try database.execute("PRAGMA user_version = 4")
            }
            if current < 5 { try migrateToVersion5() }
            if current < 6 {
                // Version 6: what each scanned file's reading came to and under which settings
                // (ScannedFile.outcome, .settings). Files recorded before have neither: the next
                // scan reads them again once.
                let columns = Set(try database.prepare("PRAGMA table_info(scanned_files)").rows().compactMap { $0.text(1) })
                for column in ["outcome", "settings"] where !columns.contains(column) {
                    try database.execute("ALTER TABLE scanned_files ADD COLUMN \(column) TEXT")
                }
                try database.execute("PRAGMA user_version = 6")
            }
            if current < 7 {
                // Version 7: scan state per account, so one account's scan never marks a file
                // read for another. SQLite cannot change a primary key in place: the table is
                // copied, its rows going to the implicit account.
                try database.execute(
                    """
                    CREATE TABLE scanned_files_7 (
                        account TEXT NOT NULL DEFAULT '',
                        key TEXT NOT NULL,
                        size INTEGER NOT NULL,
                        modified INTEGER NOT NULL,
                        outcome TEXT,
                        settings TEXT,
                        PRIMARY KEY (account, key)
                    );
                    INSERT INTO scanned_files_7 (account, key, size, modified, outcome, settings)
                        SELECT '', key, size, modified, outcome, settings FROM scanned_files;
                    DROP TABLE scanned_files;
                    ALTER TABLE scanned_files_7 RENAME TO scanned_files;
                    PRAGMA user_version = 7;
                    """)
            }
            if current < 8 {
                // Version 8: the kind of proof behind the message that last changed an event
                // (StoredEvent.proof). Events stored before have none until they next change.
                let columns = Set(try database.prepare("PRAGMA table_info(events)").rows().compactMap { $0.text(1) })
                if !columns.contains("proof") { try database.execute("ALTER TABLE events ADD COLUMN proof TEXT") }
                try database.execute("PRAGMA user_version = 8")
            }
            if current < 9 {
                // Version 9: how far `reservoir watch` read each IMAP mailbox (IMAPStateStore).
                try database.execute(
                    """
                    CREATE TABLE IF NOT EXISTS imap_mailboxes (
                        account TEXT NOT NULL DEFAULT '',
                        mailbox_url TEXT NOT NULL,
                        uidvalidity INTEGER NOT NULL,
                        last_uid INTEGER NOT NULL,
                        PRIMARY KEY (account, mailbox_url)
                    );
                    PRAGMA user_version = 9;
                    """)
            }
            if current < 10 {
                // Version 10: the person's choices about sender domains and the reservations
                // of genuine senders not chosen yet (SenderStore, docs/SECURITY.md "Pending
                // senders").
                try database.execute(
                    """
                    CREATE TABLE IF NOT EXISTS allowed_senders (
                        account TEXT NOT NULL,
                        domain TEXT NOT NULL,
                        decision TEXT NOT NULL CHECK (decision IN ('allow', 'deny')),
                        decided_at INTEGER NOT NULL,
                        decided_by TEXT NOT NULL,
                        PRIMARY KEY (account, domain)
                    );
                    CREATE TABLE IF NOT EXISTS pending_reservations (
                        account TEXT NOT NULL,
                        domain TEXT NOT NULL,
                        container TEXT NOT NULL,
                        item TEXT NOT NULL,
                        title TEXT NOT NULL,
                        start_text TEXT,
                        end_text TEXT,
                        reservation_json TEXT NOT NULL,
                        message_id TEXT,
                        received INTEGER NOT NULL,
                        message TEXT NOT NULL,
                        PRIMARY KEY (account, domain, container, item)
                    );
                    PRAGMA user_version = 10;
                    """)
            }
        }
    }

    private func createVersion1() throws(EventStoreError) {
        try database.execute(
            """
            CREATE TABLE IF NOT EXISTS events (
                container TEXT NOT NULL,
                item TEXT NOT NULL,
                category TEXT NOT NULL,
                title TEXT NOT NULL,
                start_text TEXT, start_local TEXT, start_offset INTEGER, start_epoch INTEGER,
                end_text TEXT, end_local TEXT, end_offset INTEGER, end_epoch INTEGER,
                location TEXT,
                notes TEXT NOT NULL,
                url TEXT,
                status TEXT NOT NULL,
                checkin_opens INTEGER, checkin_closes INTEGER,
                reservation_json TEXT NOT NULL,
                sequence INTEGER NOT NULL,
                owner_domain TEXT,
                last_message_date INTEGER,
                last_arrival INTEGER,
                created_at INTEGER NOT NULL,
                updated_at INTEGER NOT NULL,
                PRIMARY KEY (container, item)
            );
            CREATE TABLE IF NOT EXISTS history (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                container TEXT NOT NULL,
                item TEXT NOT NULL,
                sequence INTEGER NOT NULL,
                change TEXT NOT NULL,
                message_id TEXT,
                path TEXT,
                signing_domain TEXT,
                message_date INTEGER,
                applied_at INTEGER NOT NULL,
                summary TEXT NOT NULL
            );
            CREATE INDEX IF NOT EXISTS history_key ON history (container, item);
            PRAGMA user_version = 1;
            """)
    }

    /// Version 5: bookings keyed per account and owner (docs/SECURITY.md, "Ownership of a
    /// booking"). The key of `events` and `deliveries` becomes (account, owner, container, item),
    /// which SQLite can only do by copying the table. Every row goes to the implicit account; an
    /// event's owner is the `owner_domain` it was created with, and its UID stays the one
    /// calendars hold (NULL: the legacy form, ``EventKey/legacyCalendarUID``).
    /// History lines take the owner of their event, else the domain that signed them.
    private func migrateToVersion5() throws(EventStoreError) {
        // Columns of later versions are added by their own step.
        let added: Set = ["account", "owner", "uid", "proof"]
        let eventColumns = EventRow.layout.columns.map(\.name).filter { !added.contains($0) }
        let deliveryColumns = DeliveryRecord.layout.columns.map(\.name).filter { !added.contains($0) } + ["claimed_by", "claimed_until"]
        try database.execute(
            """
            CREATE TABLE events_v5 (
                account TEXT NOT NULL,
                owner TEXT NOT NULL,
                container TEXT NOT NULL,
                item TEXT NOT NULL,
                uid TEXT,
                category TEXT NOT NULL,
                title TEXT NOT NULL,
                start_text TEXT, start_local TEXT, start_offset INTEGER, start_epoch INTEGER, start_zone TEXT,
                end_text TEXT, end_local TEXT, end_offset INTEGER, end_epoch INTEGER, end_zone TEXT,
                location TEXT,
                notes TEXT NOT NULL,
                url TEXT,
                status TEXT NOT NULL,
                checkin_opens INTEGER, checkin_closes INTEGER,
                reservation_json TEXT NOT NULL,
                sequence INTEGER NOT NULL,
                last_message_date INTEGER,
                last_arrival INTEGER,
                created_at INTEGER NOT NULL,
                updated_at INTEGER NOT NULL,
                PRIMARY KEY (account, owner, container, item)
            );
            INSERT INTO events_v5 (account, owner, \(eventColumns.joined(separator: ", ")))
                SELECT '', COALESCE(owner_domain, ''), \(eventColumns.joined(separator: ", ")) FROM events;
            DROP TABLE events;
            ALTER TABLE events_v5 RENAME TO events;
            ALTER TABLE history ADD COLUMN account TEXT NOT NULL DEFAULT '';
            ALTER TABLE history ADD COLUMN owner TEXT NOT NULL DEFAULT '';
            UPDATE history SET owner = COALESCE(
                (SELECT e.owner FROM events e WHERE e.container = history.container AND e.item = history.item),
                signing_domain, '');
            DROP INDEX IF EXISTS history_key;
            CREATE INDEX history_key ON history (account, owner, container, item);
            CREATE INDEX IF NOT EXISTS history_item ON history (item);
            CREATE TABLE deliveries_v5 (
                destination TEXT NOT NULL,
                account TEXT NOT NULL,
                owner TEXT NOT NULL,
                container TEXT NOT NULL,
                item TEXT NOT NULL,
                uid TEXT,
                delivered_sequence INTEGER,
                etag TEXT,
                failures INTEGER NOT NULL DEFAULT 0,
                last_error TEXT,
                last_attempt INTEGER,
                claimed_by TEXT,
                claimed_until INTEGER,
                PRIMARY KEY (destination, account, owner, container, item)
            );
            INSERT INTO deliveries_v5 (account, owner, \(deliveryColumns.joined(separator: ", ")))
                SELECT '', COALESCE((SELECT e.owner FROM events e WHERE e.container = d.container AND e.item = d.item), ''),
                    \(deliveryColumns.map { "d." + $0 }.joined(separator: ", ")) FROM deliveries d;
            DROP TABLE deliveries;
            ALTER TABLE deliveries_v5 RENAME TO deliveries;
            PRAGMA user_version = 5;
            """)
    }

    private static let selectEvent = "SELECT \(EventRow.layout.names) FROM events WHERE \(DeliverySQL.keyIs())"
    private static let insertEvent = "INSERT OR REPLACE INTO events (\(EventRow.layout.names)) VALUES (\(placeholders(EventRow.layout)))"
    private static let insertHistory = "INSERT INTO history (\(HistoryEntry.layout.names)) VALUES (\(placeholders(HistoryEntry.layout)))"

    private static func placeholders(_ layout: RowLayout) -> String {
        Array(repeating: "?", count: layout.columns.count).joined(separator: ", ")
    }

    public func apply(
        _ key: EventKey, from message: MessageProvenance, revising revise: (StoredEvent?) -> CalendarEvent
    ) throws(EventStoreError) -> EventChange {
        // Filed under this handle's account and the owner of the proof that vouched (EventStore).
        let key = key.filed(for: message, in: account)
        return try database.transaction { () throws(EventStoreError) -> EventChange in
            let stored = try database.cached(Self.selectEvent).rows(key.values).first.map(Self.eventRow)
            var event = revise(stored?.stored)
            event.key = key
            var alreadyApplied = false
            if stored != nil, let messageID = message.messageID {
                alreadyApplied = try !database.cached(
                    "SELECT 1 FROM history WHERE \(DeliverySQL.keyIs()) AND message_id = ? LIMIT 1"
                )
                .rows(key.values + [.text(messageID)]).isEmpty
            }
            let step = EventRevision.step(stored: stored, alreadyApplied: alreadyApplied, new: event, from: message)
            if let row = step.write { try database.cached(Self.insertEvent).run(row.values) }
            if let entry = step.record { try database.cached(Self.insertHistory).run(entry.values) }
            return step.change
        }
    }

    public func grouped(_ body: () -> Void) throws(EventStoreError) {
        try database.group(body)
    }

    public func forget(_ id: String, at time: Int64) throws(EventStoreError) -> [StoredEvent] {
        try database.transaction { () throws(EventStoreError) -> [StoredEvent] in
            let forgotten = try database.prepare(
                "SELECT \(EventRow.layout.names) FROM events WHERE account = ? AND (container = ? OR container || '/' || item = ?)"
            )
            .rows([.text(account.address), .text(id), .text(id)]).map { row throws(EventStoreError) in try Self.eventRow(row).stored }
            for stored in forgotten {
                try database.cached("DELETE FROM events WHERE \(DeliverySQL.keyIs())").run(stored.event.key.values)
                try database.cached(Self.insertHistory).run(EventRevision.forgotten(stored, at: time).values)
            }
            return forgotten.sortedByStart()
        }
    }

    public func events() throws(EventStoreError) -> [StoredEvent] {
        try database.prepare("SELECT \(EventRow.layout.names) FROM events WHERE account = ?").rows([.text(account.address)]).map {
            row throws(EventStoreError) in try Self.eventRow(row).stored
        }
        .sortedByStart()
    }

    public func events(inBooking container: String, ownedBy owner: BookingOwner) throws(EventStoreError) -> [StoredEvent] {
        try database.cached("SELECT \(EventRow.layout.names) FROM events WHERE account = ? AND owner = ? AND container = ?")
            .rows([.text(account.address), .text(owner.storedText), .text(container)])
            .map { row throws(EventStoreError) in try Self.eventRow(row).stored }
            .sortedByStart()
    }

    public func event(_ key: EventKey) throws(EventStoreError) -> StoredEvent? {
        try database.cached(Self.selectEvent).rows(key.inAccount(account).values).first.map(Self.eventRow)?.stored
    }

    public func history(_ id: String) throws(EventStoreError) -> [HistoryEntry] {
        try database.prepare(
            "SELECT \(HistoryEntry.layout.names) FROM history WHERE account = ? AND (container = ? OR item = ?) ORDER BY id"
        )
        .rows([.text(account.address), .text(id), .text(id)]).map { row throws(EventStoreError) in try HistoryEntry(values: row.values) }
    }

    private static func eventRow(_ row: SQLiteRow) throws(EventStoreError) -> EventRow {
        try EventRow(values: row.values)
    }
}

// MARK: Accounts

extension SQLiteEventStore: AccountDirectory {
    public func accounts() throws(EventStoreError) -> [AccountSummary] {
        try database.prepare(DeliverySQL.accounts).rows().map { row in
            AccountSummary(
                account: Account(normalizedAddress: row.text(0) ?? ""), events: Int(row.integer(1) ?? 0),
                pendingDeliveries: Int(row.integer(2) ?? 0))
        }
    }
}

// MARK: Incremental scans

extension SQLiteEventStore: ScanStateStore {
    public func scannedFiles() throws(EventStoreError) -> [String: ScannedFile] {
        var files: [String: ScannedFile] = [:]
        for row in try database.prepare("SELECT key, size, modified, outcome, settings FROM scanned_files WHERE account = ?").rows([
            .text(account.address)
        ]) {
            guard let key = row.text(0), let size = row.integer(1), let modified = row.integer(2) else { continue }
            files[key] = ScannedFile(key: key, size: size, modified: modified, outcome: row.text(3), settings: row.text(4))
        }
        return files
    }

    public func markScanned(_ files: [ScannedFile]) throws(EventStoreError) {
        guard !files.isEmpty else { return }
        try database.transaction { () throws(EventStoreError) in
            let statement = try database.cached(
                "INSERT INTO scanned_files (account, key, size, modified, outcome, settings) VALUES (?, ?, ?, ?, ?, ?) "
                    + "ON CONFLICT (account, key) DO UPDATE SET size = excluded.size, modified = excluded.modified, "
                    + "outcome = excluded.outcome, settings = excluded.settings")
            for file in files {
                try statement.run([
                    .text(account.address), .text(file.key), .integer(file.size), .integer(file.modified),
                    file.outcome.map(ColumnValue.text) ?? .null,
                    file.settings.map(ColumnValue.text) ?? .null,
                ])
            }
        }
    }
}

// MARK: IMAP mailboxes

extension SQLiteEventStore: IMAPStateStore {
    public func imapMailboxState(_ mailboxURL: String) throws(EventStoreError) -> IMAPMailboxState? {
        let rows = try database.prepare("SELECT uidvalidity, last_uid FROM imap_mailboxes WHERE account = ? AND mailbox_url = ?")
            .rows([.text(account.address), .text(mailboxURL)])
        guard let row = rows.first, let validity = row.integer(0), let last = row.integer(1) else { return nil }
        return IMAPMailboxState(uidValidity: validity, lastUID: last)
    }

    public func recordIMAPMailboxState(_ mailboxURL: String, _ state: IMAPMailboxState) throws(EventStoreError) {
        try database.transaction { () throws(EventStoreError) in
            try database.prepare(
                "INSERT INTO imap_mailboxes (account, mailbox_url, uidvalidity, last_uid) VALUES (?, ?, ?, ?) "
                    + "ON CONFLICT (account, mailbox_url) DO UPDATE SET uidvalidity = excluded.uidvalidity, last_uid = excluded.last_uid"
            ).run([.text(account.address), .text(mailboxURL), .integer(state.uidValidity), .integer(state.lastUID)])
        }
    }
}

// MARK: Calendar delivery

extension SQLiteEventStore: DeliveryLedger {
    public func pendingDeliveries(to destination: String) throws(EventStoreError) -> [PendingDelivery] {
        try database.prepare(DeliverySQL.pending).rows([.text(destination), .text(account.address)]).map { row throws(EventStoreError) in
            try DeliverySQL.pendingRow(row.values)
        }
    }

    public func pendingDelivery(of key: EventKey, to destination: String) throws(EventStoreError) -> PendingDelivery? {
        try database.cached(DeliverySQL.pendingOne).rows([.text(destination)] + key.inAccount(account).values).first
            .map { row throws(EventStoreError) in try DeliverySQL.pendingRow(row.values) }
    }

    public func claimDelivery(of key: EventKey, uid: String, to destination: String, by owner: String, now: Int64, until: Int64)
        throws(EventStoreError) -> Bool
    {
        try database.transaction { () throws(EventStoreError) -> Bool in
            try !database.cached(DeliverySQL.claim).rows(
                [.text(destination)] + key.inAccount(account).values + [.text(uid), .text(owner), .integer(until), .integer(now)]
            ).isEmpty
        }
    }

    public func finishDelivery(of key: EventKey, to destination: String, by owner: String, result: DeliveryResult, at now: Int64)
        throws(EventStoreError)
    {
        let (sql, values) = DeliverySQL.finish(result, key: key.inAccount(account), destination: destination, owner: owner, now: now)
        try database.transaction { () throws(EventStoreError) in try database.cached(sql).run(values) }
    }

    public func deliveryRecords() throws(EventStoreError) -> [DeliveryRecord] {
        try database.prepare(DeliverySQL.records).rows([.text(account.address)]).map { row throws(EventStoreError) in
            try DeliveryRecord(values: row.values)
        }
    }

    public func forgottenDeliveries(to destination: String) throws(EventStoreError) -> [DeliveryRecord] {
        try database.prepare(DeliverySQL.forgotten).rows([.text(destination), .text(account.address)]).map { row throws(EventStoreError) in
            try DeliveryRecord(values: row.values)
        }
    }
}

// MARK: Sender choices and pending reservations

extension SQLiteEventStore: SenderStore {
    public func senderDecisions() throws(EventStoreError) -> [SenderDecision] {
        try database.prepare(
            "SELECT domain, decision, decided_at, decided_by FROM allowed_senders WHERE account = ? ORDER BY domain"
        ).rows([.text(account.address)]).compactMap { row in
            guard let domain = row.text(0), let choice = row.text(1).flatMap(SenderChoice.init(rawValue:)), let at = row.integer(2)
            else { return nil }
            return SenderDecision(domain: domain, choice: choice, decidedAt: at, decidedBy: row.text(3) ?? "")
        }
    }

    public func decideSender(_ decision: SenderDecision) throws(EventStoreError) {
        try database.prepare(
            "INSERT INTO allowed_senders (account, domain, decision, decided_at, decided_by) VALUES (?, ?, ?, ?, ?) "
                + "ON CONFLICT (account, domain) DO UPDATE SET decision = excluded.decision, decided_at = excluded.decided_at, "
                + "decided_by = excluded.decided_by"
        ).run([
            .text(account.address), .text(decision.domain.lowercased()), .text(decision.choice.rawValue), .integer(decision.decidedAt),
            .text(decision.decidedBy),
        ])
    }

    public func keepPending(_ reservations: [PendingReservation], expiringBefore expiry: Int64) throws(EventStoreError) {
        try database.transaction { () throws(EventStoreError) in
            let insert = try database.prepare(
                "INSERT INTO pending_reservations (account, \(SenderSQL.pendingColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                    + "ON CONFLICT (account, domain, container, item) DO UPDATE SET title = excluded.title, "
                    + "start_text = excluded.start_text, end_text = excluded.end_text, reservation_json = excluded.reservation_json, "
                    + "message_id = excluded.message_id, received = excluded.received, message = excluded.message")
            for pending in reservations {
                try insert.run([
                    .text(account.address), .text(pending.domain.lowercased()), .text(pending.container), .text(pending.item),
                    .text(pending.title), ColumnValue(pending.start), ColumnValue(pending.end), .text(pending.reservationJSON),
                    ColumnValue(pending.messageID), .integer(pending.received), .text(SenderSQL.messageText(pending.message)),
                ])
            }
            try database.prepare("DELETE FROM pending_reservations WHERE account = ? AND received < ?").run([
                .text(account.address), .integer(expiry),
            ])
            try database.prepare(
                "DELETE FROM pending_reservations WHERE account = ?1 AND rowid NOT IN (SELECT rowid FROM pending_reservations "
                    + "WHERE account = ?1 ORDER BY received DESC, rowid DESC LIMIT ?2)"
            ).run([.text(account.address), .integer(Int64(PendingLimits.maxPerAccount))])
        }
    }

    public func pendingReservations(receivedSince expiry: Int64) throws(EventStoreError) -> [PendingReservation] {
        try database.prepare(
            "SELECT \(SenderSQL.pendingColumns) FROM pending_reservations WHERE account = ? AND received >= ? "
                + "ORDER BY received, domain, container, item"
        ).rows([.text(account.address), .integer(expiry)]).compactMap { row in
            SenderSQL.pendingRow({ row.text($0) }, { row.integer($0) })
        }
    }

    public func removePending(domain: String) throws(EventStoreError) -> [PendingReservation] {
        try database.transaction { () throws(EventStoreError) -> [PendingReservation] in
            let rows = try database.prepare(
                "SELECT \(SenderSQL.pendingColumns) FROM pending_reservations WHERE account = ? AND domain = ? ORDER BY received"
            ).rows([.text(account.address), .text(domain.lowercased())]).compactMap { row in
                SenderSQL.pendingRow({ row.text($0) }, { row.integer($0) })
            }
            try database.prepare("DELETE FROM pending_reservations WHERE account = ? AND domain = ?").run([
                .text(account.address), .text(domain.lowercased()),
            ])
            return rows
        }
    }
}

extension SQLiteEventStore {
    // The store keeps every role (EventStore).
    public var directory: (any AccountDirectory)? { self }
    public var scanState: (any ScanStateStore)? { self }
    public var imapState: (any IMAPStateStore)? { self }
    public var ledger: (any DeliveryLedger)? { self }
    public var senders: (any SenderStore)? { self }
}
