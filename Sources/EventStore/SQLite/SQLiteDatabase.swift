internal import CSQLite
import Glibc

/// One SQLite connection, owned by exactly one Swift object that closes it.
///
/// Not `Sendable`: a connection is used from one thread at a time (SQLite's default
/// serialized mode would allow more, but the store opens one connection per process).
final class SQLiteDatabase {
    private var handle: OpaquePointer?
    let path: String
    /// Statements prepared once per connection, by SQL text (`cached(_:)`).
    private var statements: [String: SQLiteStatement] = [:]

    /// Bytes a WAL file keeps after a checkpoint restarts it (PRAGMA journal_size_limit).
    static let walSizeLimit = 4 << 20

    /// Opens (creating when missing) the database at `path` with WAL journaling and a busy
    /// timeout, so that concurrent deliveries wait for each other instead of failing.
    init(path: String, busyTimeoutMilliseconds: Int32) throws(EventStoreError) {
        self.path = path
        // "The database is opened for reading and writing, and is created if it does not
        // already exist." (sqlite3_open_v2, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        let db = try Self.open(path, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, failure: "cannot open \(path)")
        handle = db
        sqlite3_busy_timeout(db, busyTimeoutMilliseconds)
        // Keep the -wal and -shm files when the last connection closes (SQLITE_FCNTL_PERSIST_WAL,
        // sqlite.org/c3ref/c_fcntl_begin_atomic_write.html): a filter run is one short
        // connection, which otherwise creates and deletes both files every time (a tenth of a
        // profiled run in a busy ext4 directory; no difference measured in a fresh one).
        // With a journal size limit the closing connection still empties the WAL after its
        // checkpoint, and a long scan's WAL is cut back to the limit when it restarts.
        var persist: Int32 = 1
        sqlite3_file_control(db, "main", SQLITE_FCNTL_PERSIST_WAL, &persist)
        try execute("PRAGMA journal_size_limit=\(Self.walSizeLimit)")
        try enableWAL(busyTimeoutMilliseconds: busyTimeoutMilliseconds)
        try execute("PRAGMA synchronous=NORMAL")
        try execute("PRAGMA foreign_keys=ON")
    }

    /// Opens an existing database for reading only, for a store on read-only media. A WAL
    /// database needs its `-shm` index, which cannot be created there; when the file system
    /// itself is read-only nothing can change the file, so it is opened as immutable, which
    /// reads it without the index ("immutable=1", sqlite.org/uri.html).
    init(readingAt path: String) throws(EventStoreError) {
        self.path = path
        let escaped = path.utf8.map { byte -> String in
            switch byte {
            case UInt8(ascii: "?"), UInt8(ascii: "#"), UInt8(ascii: "%"): "%" + String(byte, radix: 16, uppercase: true)
            default: String(UnicodeScalar(byte))
            }
        }.joined()
        var options = ["mode=ro"]
        var fs = statvfs()
        if statvfs(path, &fs) == 0, fs.f_flag & UInt(ST_RDONLY) != 0 { options.append("immutable=1") }
        handle = try Self.open(
            "file:" + escaped + "?" + options.joined(separator: "&"),
            flags: SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, failure: "cannot open \(path) for reading")
    }

    /// SQLite's start-up sizes, set once before the first connection initializes the library.
    private static let configured: Void = reservoir_sqlite_configure_small_start()

    /// `sqlite3_open_v2` with one connection per thread (`NOMUTEX`) and extended result codes;
    /// a failure becomes `.cannotOpen` with SQLite's reason after `failure`.
    private static func open(_ name: String, flags: Int32, failure: String) throws(EventStoreError) -> OpaquePointer {
        _ = configured
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(name, &db, flags | SQLITE_OPEN_NOMUTEX, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(db)
            throw EventStoreError(.cannotOpen, "\(failure): \(message)")
        }
        sqlite3_extended_result_codes(db, 1)
        return db
    }

    /// Switches to WAL unless the file is in WAL already (the mode is persistent: "the WAL
    /// journaling mode ... persists across database connections", sqlite.org/wal.html). The
    /// switch needs an exclusive lock, and when processes open a new store at the same moment
    /// SQLite may answer SQLITE_BUSY without calling the busy handler (to avoid a deadlock), so
    /// the switch is tried again with short pauses, within the busy timeout.
    private func enableWAL(busyTimeoutMilliseconds: Int32) throws(EventStoreError) {
        var waited: Int32 = 0
        while true {
            do {
                if try prepare("PRAGMA journal_mode").rows().first?.text(0)?.lowercased() == "wal" { return }
                try execute("PRAGMA journal_mode=WAL")
                return
            } catch  where error.kind == .busy && waited < busyTimeoutMilliseconds {
                let pause = Int32.random(in: 5...50)
                usleep(UInt32(pause) * 1_000)
                waited += pause
            }
        }
    }

    deinit {
        statements.removeAll()
        // sqlite3_close_v2 defers the close until every statement is finalized.
        sqlite3_close_v2(handle)
    }

    var db: OpaquePointer? { handle }

    func execute(_ sql: String) throws(EventStoreError) {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        if rc != SQLITE_OK {
            let text = errorMessage.map { String(cString: $0) } ?? "error \(rc)"
            sqlite3_free(errorMessage)
            throw EventStoreError(Self.kind(of: rc), "\(text) (in: \(sql.prefix(60)))")
        }
    }

    func prepare(_ sql: String) throws(EventStoreError) -> SQLiteStatement {
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard rc == SQLITE_OK, let statement else {
            throw EventStoreError(Self.kind(of: rc), "\(lastError) (in: \(sql.prefix(60)))")
        }
        return SQLiteStatement(statement)
    }

    /// The statement for `sql`, prepared on first use and kept for the connection's life:
    /// preparing (parsing and planning) the same few statements for every message was a fifth of
    /// a scan's time. Each use rebinds and runs it to completion, then resets it.
    func cached(_ sql: String) throws(EventStoreError) -> SQLiteStatement {
        if let statement = statements[sql] { return statement }
        let statement = try prepare(sql)
        statements[sql] = statement
        return statement
    }

    var lastError: String { String(cString: sqlite3_errmsg(handle)) }

    /// True while `group(_:)` holds a transaction that `transaction(_:)` nests in.
    private var grouping = false

    /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT`, rolling back when it throws. IMMEDIATE
    /// takes the write lock up front, so two deliveries never both read-then-write stale rows.
    /// Inside `group(_:)` it is a savepoint of the group's transaction instead.
    func transaction<T>(_ body: () throws(EventStoreError) -> T) throws(EventStoreError) -> T {
        guard grouping else {
            return try bracketed(begin: "BEGIN IMMEDIATE", commit: "COMMIT", undo: ["ROLLBACK"], body)
        }
        try requireGroupTransaction()
        return try bracketed(begin: "SAVEPOINT change", commit: "RELEASE change", undo: ["ROLLBACK TO change", "RELEASE change"], body)
    }

    /// Runs `body` in one write transaction that every `transaction(_:)` inside joins as a
    /// savepoint, and commits it: one commit (one WAL append) for many changes. The write lock
    /// is held only while `body` runs, so a caller keeps `body` short (a scan applies a group
    /// of ready reports, it does not analyse messages inside).
    func group(_ body: () -> Void) throws(EventStoreError) {
        precondition(!grouping, "groups do not nest")
        try bracketed(begin: "BEGIN IMMEDIATE", commit: "COMMIT", undo: ["ROLLBACK"]) { () throws(EventStoreError) in
            grouping = true
            defer { grouping = false }
            body()
            try requireGroupTransaction()
        }
    }

    /// Some errors (SQLITE_FULL, SQLITE_IOERR, SQLITE_NOMEM, …) roll the whole transaction back
    /// (sqlite.org/lang_transaction.html, "Response To Errors Within A Transaction"): a group's
    /// earlier changes are gone then, and nothing more may pretend to join it or commit it.
    private func requireGroupTransaction() throws(EventStoreError) {
        guard sqlite3_get_autocommit(handle) == 0 else {
            throw EventStoreError(.database, "the transaction of this group of changes was rolled back")
        }
    }

    /// `begin`, `body`, `commit`; when either throws, the `undo` statements, as long as a
    /// transaction is still open (SQLite may have rolled it back already).
    private func bracketed<T>(
        begin: String, commit: String, undo: [String],
        _ body: () throws(EventStoreError) -> T
    ) throws(EventStoreError) -> T {
        try cached(begin).run()
        do {
            let value = try body()
            try cached(commit).run()
            return value
        } catch {
            if sqlite3_get_autocommit(handle) == 0 {
                for sql in undo { try? cached(sql).run() }
            }
            throw error
        }
    }

    static func kind(of rc: Int32) -> EventStoreError.Kind {
        switch rc & 0xFF {
        case SQLITE_BUSY, SQLITE_LOCKED: .busy
        case SQLITE_FULL: .diskFull
        case SQLITE_READONLY, SQLITE_PERM, SQLITE_CANTOPEN: .readOnly
        case SQLITE_CORRUPT, SQLITE_NOTADB: .corrupt
        default: .database
        }
    }
}

/// A prepared statement, finalized when released.
///
/// It keeps no reference to its `SQLiteDatabase`: the connection caches its statements, and a
/// statement holding the connection made a cycle that was never released, so the connection was
/// never closed. Unclosed, it left its WAL behind for the next process to read back into the
/// index at open (a filter run took 1.3 ms longer on a store a scan had just written). Closed,
/// SQLite checkpoints and empties the WAL (sqlite.org/wal.html); `sqlite3_close_v2` keeps the
/// connection until its last statement is finalized, so a statement never outlives it.
final class SQLiteStatement {
    private let statement: OpaquePointer

    init(_ statement: OpaquePointer) {
        self.statement = statement
    }

    deinit { sqlite3_finalize(statement) }

    /// The connection's message for its most recent failure.
    private var lastError: String { String(cString: sqlite3_errmsg(sqlite3_db_handle(statement))) }

    func bind(_ values: [SQLiteValue]) throws(EventStoreError) {
        sqlite3_reset(statement)
        sqlite3_clear_bindings(statement)
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let rc: Int32
            switch value {
            case .null: rc = sqlite3_bind_null(statement, index)
            case .integer(let v): rc = sqlite3_bind_int64(statement, index, v)
            case .text(let v): rc = sqlite3_bind_text(statement, index, v, -1, reservoir_sqlite_transient())
            }
            if rc != SQLITE_OK { throw EventStoreError(.database, "bind failed: \(lastError)") }
        }
    }

    /// Steps once; true when a row is available.
    func step() throws(EventStoreError) -> Bool {
        let rc = sqlite3_step(statement)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw EventStoreError(SQLiteDatabase.kind(of: rc), lastError)
        }
    }

    /// Runs the statement to completion, then resets it: a statement left mid-way would keep
    /// its read transaction open.
    func run(_ values: [SQLiteValue] = []) throws(EventStoreError) {
        defer { sqlite3_reset(statement) }
        try bind(values)
        while try step() {}
    }

    func rows(_ values: [SQLiteValue] = []) throws(EventStoreError) -> [SQLiteRow] {
        defer { sqlite3_reset(statement) }
        try bind(values)
        var result: [SQLiteRow] = []
        while try step() {
            let count = sqlite3_column_count(statement)
            var row: [SQLiteValue] = []
            row.reserveCapacity(Int(count))
            for column in 0..<count {
                switch sqlite3_column_type(statement, column) {
                case SQLITE_NULL: row.append(.null)
                case SQLITE_INTEGER: row.append(.integer(sqlite3_column_int64(statement, column)))
                default:
                    if let text = sqlite3_column_text(statement, column) {
                        row.append(.text(String(cString: text)))
                    } else {
                        row.append(.null)
                    }
                }
            }
            result.append(SQLiteRow(values: row))
        }
        return result
    }
}

/// SQLite's values as the store uses them: NULL, INTEGER and TEXT (a REAL or BLOB cell is
/// read as its text, which no integer column accepts).
typealias SQLiteValue = ColumnValue

struct SQLiteRow {
    let values: [SQLiteValue]
    func text(_ i: Int) -> String? {
        guard i < values.count else { return nil }
        switch values[i] {
        case .text(let v): return v
        case .integer(let v): return String(v)
        case .null: return nil
        }
    }
    func integer(_ i: Int) -> Int64? {
        guard i < values.count, case .integer(let v) = values[i] else { return nil }
        return v
    }
}
