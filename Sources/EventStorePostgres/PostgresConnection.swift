internal import CLibPQ
internal import CLibPQLoader
import EventStore
import Glibc
import ReservoirBase

/// Why a command failed, before it is turned into an ``EventStoreError``: the SQLSTATE decides
/// whether the transaction is retried.
struct PostgresFailure: Error {
    var sqlState: String?
    var message: String
    /// The connection is gone (`PQstatus` is `CONNECTION_BAD`); a reset may bring it back.
    var connectionLost: Bool
    /// Set by the migration when the database holds a schema newer than this build's.
    var newerSchemaVersion: Int64? = nil
    /// Set when a stored row could not be read (`.invalidRow`); reported as it is.
    var storeError: EventStoreError? = nil

    /// SQLSTATE 40001 serialization_failure and 40P01 deadlock_detected: "the transaction
    /// should be retried" (PostgreSQL manual §13.4, Serialization Failure Handling).
    var isRetryable: Bool { sqlState == "40001" || sqlState == "40P01" }
}

/// One `PGconn`, owned by exactly one Swift object that finishes it.
///
/// Not `Sendable`: "a single connection must not be used by multiple threads at once"
/// (libpq §34.20); each store, hence each thread or process, has its own.
final class PostgresConnection {
    private let handle: OpaquePointer
    /// The account this session's `reservoir.account` setting names, which the row-level
    /// security policies read (PostgresSchema, migration 8); nil when not known to be set.
    private var sessionAccount: String?

    /// Connects with `PQconnectdbParams`; `parameters` are processed in order, a later keyword
    /// overriding an earlier one, and a `dbname` holding a URI is expanded in place.
    init(parameters: [(String, String)], describedAs description: String) throws(EventStoreError) {
        // libpq is loaded on first use (see CLibPQLoader).
        guard reservoir_libpq_load() != 0 else {
            throw EventStoreError(.cannotOpen, String(cString: reservoir_libpq_error()) + "; install libpq5")
        }
        let keywords = parameters.map { strdup($0.0) }
        let values = parameters.map { strdup($0.1) }
        defer {
            for pointer in keywords { free(pointer) }
            for pointer in values { free(pointer) }
        }
        let keywordArray: [UnsafePointer<CChar>?] = keywords.map { UnsafePointer($0) } + [nil]
        let valueArray: [UnsafePointer<CChar>?] = values.map { UnsafePointer($0) } + [nil]
        // reservoir_pq_connect returns NULL only when out of memory or past connect_timeout
        // (libpq §34.1); it silences libpq's notices, which would otherwise go to stderr
        // (e.g. "relation already exists, skipping"), where the filter hook keeps its own logs.
        var connected: OpaquePointer?
        let failure = Self.retryingTransientRefusals {
            var timedOut: Int32 = 0
            guard let connection = reservoir_pq_connect(keywordArray, valueArray, &timedOut) else {
                return timedOut != 0 ? "no answer within connect_timeout" : "out of memory"
            }
            guard PQstatus(connection) != CONNECTION_OK else {
                connected = connection
                return nil
            }
            defer { PQfinish(connection) }
            return Self.trimmed(String(cString: PQerrorMessage(connection)))
        }
        guard let connected else {
            throw EventStoreError(.cannotOpen, "cannot connect to PostgreSQL at \(description): \(failure ?? "no connection")")
        }
        handle = connected
    }

    deinit {
        PQfinish(handle)
    }

    /// Seconds during which a refused connection is tried again when the refusal is
    /// temporary; below the filter's default time budget of 5 s.
    static let connectRetrySeconds = 3

    /// Calls `attempt` (nil: connected; otherwise libpq's reason) until it connects; while
    /// the reason is a temporary refusal it tries again for up to ``connectRetrySeconds``, with
    /// jittered pauses growing from 20 to 400 ms so many deliveries waiting for a slot do not
    /// retry in step. Returns the last reason, or nil once connected.
    static func retryingTransientRefusals(_ attempt: () -> String?) -> String? {
        var start = timespec()
        clock_gettime(CLOCK_MONOTONIC, &start)
        var pause: UInt32 = 20_000
        while true {
            guard let failure = attempt() else { return nil }
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            guard isTransient(connectFailure: failure), now.tv_sec - start.tv_sec < connectRetrySeconds else { return failure }
            usleep(UInt32.random(in: pause / 2...pause))
            pause = min(pause * 2, 400_000)
        }
    }

    /// A refusal that goes away by itself: the server is full (SQLSTATE 53300 "sorry, too many
    /// clients already"), starting, stopping or in recovery (57P03), or not listening yet
    /// during a restart, or resetting the connection as it stops. libpq gives no SQLSTATE for a failed connection, only the server's
    /// message, so the server's English messages are matched. A wrong password, an unknown
    /// database or role fail at once.
    static func isTransient(connectFailure message: String) -> Bool {
        let transient = [
            "too many clients", "remaining connection slots are reserved",
            "the database system is starting up", "the database system is shutting down",
            "the database system is in recovery mode", "the database system is not yet accepting connections",
            "connection refused", "no such file or directory",
            "server closed the connection unexpectedly", "terminating connection due to administrator command",
            // A server restarting can accept the connection and reset it while it stops.
            "connection reset by peer",
        ]
        let lowered = message.lowercased()
        return transient.contains { CharacterSearch.contains(lowered, $0) }
    }

    var isBroken: Bool { PQstatus(handle) != CONNECTION_OK }

    /// Not idle: inside a transaction block, possibly a failed one.
    var isInTransaction: Bool { PQtransactionStatus(handle) != PQTRANS_IDLE }

    /// Closes and reopens the connection with the same parameters (`PQreset`), waiting up to
    /// ``connectRetrySeconds`` while the server refuses for a temporary reason; true when the
    /// new connection is up.
    func reset() -> Bool {
        sessionAccount = nil
        return Self.retryingTransientRefusals {
            PQreset(handle)
            return PQstatus(handle) == CONNECTION_OK ? nil : lastError
        } == nil
    }

    var lastError: String { Self.trimmed(String(cString: PQerrorMessage(handle))) }

    /// Sets the session's `reservoir.account` to `account` unless it already is: the setting
    /// the row-level security policies compare every row's account with. Called outside a
    /// transaction only, so no rollback can undo it behind ``sessionAccount``.
    func scope(to account: String) throws(PostgresFailure) {
        guard sessionAccount != account else { return }
        sessionAccount = nil
        try execute("SELECT set_config('reservoir.account', $1, false)", [account])
        sessionAccount = account
    }

    /// Runs one command with text parameters `$1…$n` (`PQexecParams`, types inferred by the
    /// server). NUL characters, which PostgreSQL text cannot hold, are dropped from values.
    @discardableResult
    func execute(_ sql: String, _ parameters: [String?] = []) throws(PostgresFailure) -> PostgresResult {
        let copies: [UnsafeMutablePointer<CChar>?] = parameters.map { value in
            // NUL is always a character of its own (UAX #29 GB4, GB5): a byte test finds it.
            value.map { strdup($0.utf8.contains(0) ? $0.replacingNUL() : $0) }
        }
        defer { for pointer in copies { free(pointer) } }
        let values: [UnsafePointer<CChar>?] = copies.map { $0.map { UnsafePointer($0) } }
        let raw = values.withUnsafeBufferPointer { buffer in
            PQexecParams(handle, sql, Int32(parameters.count), nil, buffer.baseAddress, nil, nil, 0)
        }
        guard let raw else {
            // A null result means out of memory or a lost connection (libpq §34.3.1).
            throw PostgresFailure(sqlState: nil, message: lastError, connectionLost: true)
        }
        let result = PostgresResult(raw)
        guard result.succeeded else {
            let state = result.sqlState
            throw PostgresFailure(
                sqlState: state, message: result.errorMessage,
                connectionLost: isBroken || Self.meansConnectionLost(state))
        }
        return result
    }

    /// A failure without SQLSTATE was raised by libpq itself, not the server: the socket
    /// failed (libpq may only mark the connection bad on its next read). Class 08 is
    /// connection_exception; 57P01–57P03 are an administrator shutdown, a crash shutdown and
    /// "cannot connect now" (PostgreSQL manual, Appendix A).
    static func meansConnectionLost(_ sqlState: String?) -> Bool {
        guard let sqlState else { return true }
        return sqlState.hasPrefix("08") || sqlState == "57P01" || sqlState == "57P02" || sqlState == "57P03"
    }

    static func trimmed(_ text: String) -> String {
        var lines = text.split(separator: "\n").map { $0.trimmingASCII() }
        lines.removeAll { $0.isEmpty }
        return lines.joined(separator: "; ")
    }
}

extension String {
    fileprivate func replacingNUL() -> String {
        String(String.UnicodeScalarView(unicodeScalars.filter { $0 != "\0" }))
    }
}
