import Glibc

/// The embedded default store: one SQLite file (WAL, busy timeout, versioned schema).
public final class SQLiteEventStore: EventStore {
    /// How long a writer waits for another process's transaction before giving up.
    public static let busyTimeoutMilliseconds: Int32 = 30_000
    /// The schema version this build writes (PRAGMA user_version).
    public static let schemaVersion: Int64 = 2

    private let database: SQLiteDatabase
    public var path: String { database.path }

    /// Opens or creates the store at `path`; a new file is created readable by its owner only,
    /// and missing parent directories are created (mode 0700).
    public init(path: String) throws(EventStoreError) {
        try Self.prepareFile(path)
        database = try SQLiteDatabase(path: path, busyTimeoutMilliseconds: Self.busyTimeoutMilliseconds)
        try migrate()
    }

    /// Opens an existing store for reading only (a backup on read-only media, a store whose
    /// directory the reader may not write). Writing through it fails with `.readOnly`.
    public init(readingAt path: String) throws(EventStoreError) {
        database = try SQLiteDatabase(readingAt: path)
        let version = try database.prepare("PRAGMA user_version").rows().first?.integer(0) ?? 0
        guard version == Self.schemaVersion else {
            throw EventStoreError(version > Self.schemaVersion ? .schemaTooNew : .cannotOpen,
                                  "\(path) has schema \(version), this reservoir reads \(Self.schemaVersion); it cannot be upgraded read-only")
        }
    }

    private static func prepareFile(_ path: String) throws(EventStoreError) {
        if let slash = path.lastIndex(of: "/"), slash != path.startIndex {
            let directory = String(path[..<slash])
            var status = stat()
            if stat(directory, &status) != 0 || status.st_mode & S_IFMT != S_IFDIR { try makeDirectories(directory) }
        }
        // Create the file 0600 before SQLite does (SQLite would use the umask).
        let fd = open(path, O_RDWR | O_CREAT, 0o600)
        if fd < 0 {
            let code = errno
            if code == EACCES || code == EROFS {
                // A read-only store can still be read.
                if access(path, R_OK) == 0 { return }
            }
            throw EventStoreError(code == EROFS || code == EACCES ? .readOnly : .cannotOpen,
                                  "cannot create \(path): \(String(cString: strerror(code)))")
        }
        close(fd)
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
                try database.execute("""
                    CREATE TABLE IF NOT EXISTS scanned_files (
                        key TEXT PRIMARY KEY,
                        size INTEGER NOT NULL,
                        modified INTEGER NOT NULL
                    );
                    PRAGMA user_version = 2;
                    """)
            }
        }
    }

    private func createVersion1() throws(EventStoreError) {
        try database.execute("""
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

    private static let columns = """
        container, item, category, title, start_text, start_local, start_offset, start_epoch,
        end_text, end_local, end_offset, end_epoch, location, notes, url, status,
        checkin_opens, checkin_closes, reservation_json, sequence, owner_domain,
        created_at, updated_at, last_message_date, last_arrival
        """

    private static let selectEvent = "SELECT \(columns) FROM events WHERE container = ? AND item = ?"
    private static let insertEvent =
        "INSERT OR REPLACE INTO events (\(columns)) VALUES (\(Array(repeating: "?", count: columns.split(separator: ",").count).joined(separator: ", ")))"

    public func apply(_ event: CalendarEvent, from message: MessageProvenance) throws(EventStoreError) -> EventChange {
        try database.transaction { () throws(EventStoreError) -> EventChange in
            let row = try database.cached(Self.selectEvent)
                .rows([.text(event.key.container), .text(event.key.item)]).first
            guard let row else {
                let created = StoredEvent(event: event, sequence: 0, ownerDomain: message.signingDomain,
                                          createdAt: message.arrival, updatedAt: message.arrival)
                try write(created, message: message)
                try record(created, change: event.status == .cancelled ? "cancelled" : "created",
                           message: message, summary: EventRevision.summary(from: nil, to: event))
                return event.status == .cancelled ? .cancelled(created, previous: nil) : .created(created)
            }
            let stored = Self.storedEvent(row)
            var alreadyApplied = false
            if let messageID = message.messageID {
                alreadyApplied = try !database.cached(
                    "SELECT 1 FROM history WHERE container = ? AND item = ? AND message_id = ? LIMIT 1")
                    .rows([.text(event.key.container), .text(event.key.item), .text(messageID)]).isEmpty
            }
            let decision = EventRevision.decide(
                stored: stored, storedMessageDate: row.integer(23), storedArrival: row.integer(24),
                alreadyApplied: alreadyApplied, new: event, from: message)
            switch decision {
            case .update:
                let updated = StoredEvent(event: event, sequence: stored.sequence + 1, ownerDomain: stored.ownerDomain,
                                          createdAt: stored.createdAt, updatedAt: message.arrival)
                try write(updated, message: message)
                let isCancel = event.status == .cancelled && stored.event.status != .cancelled
                try record(updated, change: isCancel ? "cancelled" : "updated", message: message,
                           summary: EventRevision.summary(from: stored.event, to: event))
                return isCancel ? .cancelled(updated, previous: stored) : .updated(updated, previous: stored)
            case .unchanged:
                return .unchanged(stored)
            case .olderThanStored:
                try record(stored, change: "ignored-older", message: message, summary: "older than the stored version; not applied")
                return .olderThanStored(stored)
            case .refusedOtherDomain:
                try record(stored, change: "refused", message: message,
                           summary: "signed by \(message.signingDomain ?? "no domain"), not by \(stored.ownerDomain ?? "?"); not applied")
                return .refusedOtherDomain(stored, domain: message.signingDomain)
            }
        }
    }

    public func grouped(_ body: () -> Void) throws(EventStoreError) {
        try database.group(body)
    }

    private func write(_ stored: StoredEvent, message: MessageProvenance) throws(EventStoreError) {
        let e = stored.event
        let values: [SQLiteValue] = [
            .text(e.key.container), .text(e.key.item), .text(e.category.rawValue), .text(e.title),
            SQLiteValue(e.start?.text), SQLiteValue(e.start?.local), SQLiteValue(e.start?.offsetSeconds), SQLiteValue(e.start?.epochSeconds),
            SQLiteValue(e.end?.text), SQLiteValue(e.end?.local), SQLiteValue(e.end?.offsetSeconds), SQLiteValue(e.end?.epochSeconds),
            SQLiteValue(e.location), .text(e.notes), SQLiteValue(e.url), .text(e.status.rawValue),
            SQLiteValue(e.checkinOpens), SQLiteValue(e.checkinCloses), .text(e.reservationJSON),
            .integer(Int64(stored.sequence)), SQLiteValue(stored.ownerDomain),
            .integer(stored.createdAt), .integer(stored.updatedAt), SQLiteValue(message.messageDate), .integer(message.arrival),
        ]
        try database.cached(Self.insertEvent).run(values)
    }

    private func record(_ stored: StoredEvent, change: String, message: MessageProvenance, summary: String) throws(EventStoreError) {
        try database.cached("""
            INSERT INTO history (container, item, sequence, change, message_id, path, signing_domain, message_date, applied_at, summary)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).run([
                .text(stored.event.key.container), .text(stored.event.key.item), .integer(Int64(stored.sequence)),
                .text(change), SQLiteValue(message.messageID), SQLiteValue(message.path), SQLiteValue(message.signingDomain),
                SQLiteValue(message.messageDate), .integer(message.arrival), .text(summary),
            ])
    }

    public func events() throws(EventStoreError) -> [StoredEvent] {
        try database.prepare("SELECT \(Self.columns) FROM events").rows().map(Self.storedEvent)
            .sorted { ($0.event.start?.sortKey ?? 0, $0.event.key) < ($1.event.start?.sortKey ?? 0, $1.event.key) }
    }

    public func event(_ key: EventKey) throws(EventStoreError) -> StoredEvent? {
        try database.cached(Self.selectEvent).rows([.text(key.container), .text(key.item)]).first.map(Self.storedEvent)
    }

    public func history(_ id: String) throws(EventStoreError) -> [HistoryEntry] {
        try database.prepare("""
            SELECT container, item, sequence, change, message_id, path, signing_domain, message_date, applied_at, summary
            FROM history WHERE container = ? OR item = ? ORDER BY id
            """).rows([.text(id), .text(id)]).map { row in
                HistoryEntry(key: EventKey(container: row.text(0) ?? "", item: row.text(1) ?? ""),
                             sequence: Int(row.integer(2) ?? 0), change: row.text(3) ?? "",
                             messageID: row.text(4), path: row.text(5), signingDomain: row.text(6),
                             messageDate: row.integer(7), appliedAt: row.integer(8) ?? 0, summary: row.text(9) ?? "")
            }
    }

    private static func storedEvent(_ row: SQLiteRow) -> StoredEvent {
        func time(_ i: Int) -> EventTime? {
            guard let text = row.text(i) else { return nil }
            return EventTime(text: text, local: row.text(i + 1) ?? "", offsetSeconds: row.integer(i + 2).map { Int($0) },
                             epochSeconds: row.integer(i + 3))
        }
        let event = CalendarEvent(
            key: EventKey(container: row.text(0) ?? "", item: row.text(1) ?? ""),
            category: EventCategory(rawValue: row.text(2) ?? "") ?? .event, title: row.text(3) ?? "",
            start: time(4), end: time(8), location: row.text(12), notes: row.text(13) ?? "", url: row.text(14),
            status: EventStatus(rawValue: row.text(15) ?? "") ?? .confirmed,
            checkinOpens: row.integer(16), checkinCloses: row.integer(17), reservationJSON: row.text(18) ?? "{}")
        return StoredEvent(event: event, sequence: Int(row.integer(19) ?? 0), ownerDomain: row.text(20),
                           createdAt: row.integer(21) ?? 0, updatedAt: row.integer(22) ?? 0)
    }
}

// MARK: Incremental scans

extension SQLiteEventStore: ScanStateStore {
    public func scannedFiles() throws(EventStoreError) -> [String: ScannedFile] {
        var files: [String: ScannedFile] = [:]
        for row in try database.prepare("SELECT key, size, modified FROM scanned_files").rows() {
            guard let key = row.text(0), let size = row.integer(1), let modified = row.integer(2) else { continue }
            files[key] = ScannedFile(key: key, size: size, modified: modified)
        }
        return files
    }

    public func markScanned(_ files: [ScannedFile]) throws(EventStoreError) {
        guard !files.isEmpty else { return }
        try database.transaction { () throws(EventStoreError) in
            let statement = try database.cached(
                "INSERT INTO scanned_files (key, size, modified) VALUES (?, ?, ?) "
                + "ON CONFLICT (key) DO UPDATE SET size = excluded.size, modified = excluded.modified")
            for file in files {
                try statement.run([.text(file.key), .integer(file.size), .integer(file.modified)])
            }
        }
    }
}
