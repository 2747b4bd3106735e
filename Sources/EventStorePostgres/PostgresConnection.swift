internal import CLibPQ
internal import CLibPQLoader
import EventStore
import Glibc

/// Why a command failed, before it is turned into an ``EventStoreError``: the SQLSTATE decides
/// whether the transaction is retried.
struct PostgresFailure: Error {
    var sqlState: String?
    var message: String
    /// The connection is gone (`PQstatus` is `CONNECTION_BAD`); a reset may bring it back.
    var connectionLost: Bool
    /// Set by the migration when the database holds a schema newer than this build's.
    var newerSchemaVersion: Int64? = nil

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
            keywords.forEach { free($0) }
            values.forEach { free($0) }
        }
        let keywordArray: [UnsafePointer<CChar>?] = keywords.map { UnsafePointer($0) } + [nil]
        let valueArray: [UnsafePointer<CChar>?] = values.map { UnsafePointer($0) } + [nil]
        // "Note that PQconnectdbParams returns a non-null pointer unless libpq is unable to
        // allocate a new PGconn structure." (libpq §34.1)
        guard let connection = PQconnectdbParams(keywordArray, valueArray, 1) else {
            throw EventStoreError(.cannotOpen, "cannot connect to \(description): out of memory")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let reason = Self.trimmed(String(cString: PQerrorMessage(connection)))
            PQfinish(connection)
            throw EventStoreError(.cannotOpen, "cannot connect to PostgreSQL at \(description): \(reason)")
        }
        handle = connection
        // libpq prints notices (e.g. "relation already exists, skipping") to stderr by
        // default; the filter hook must keep stderr quiet, so drop them.
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
    }

    deinit {
        PQfinish(handle)
    }

    var isBroken: Bool { PQstatus(handle) != CONNECTION_OK }

    /// Not idle: inside a transaction block, possibly a failed one.
    var isInTransaction: Bool { PQtransactionStatus(handle) != PQTRANS_IDLE }

    /// Closes and reopens the connection with the same parameters (`PQreset`); true when the
    /// new connection is up.
    func reset() -> Bool {
        PQreset(handle)
        return PQstatus(handle) == CONNECTION_OK
    }

    var lastError: String { Self.trimmed(String(cString: PQerrorMessage(handle))) }

    /// Runs one command with text parameters `$1…$n` (`PQexecParams`, types inferred by the
    /// server). NUL characters, which PostgreSQL text cannot hold, are dropped from values.
    @discardableResult
    func execute(_ sql: String, _ parameters: [String?] = []) throws(PostgresFailure) -> PostgresResult {
        let copies: [UnsafeMutablePointer<CChar>?] = parameters.map { value in
            value.map { strdup($0.contains("\0") ? $0.replacingNUL() : $0) }
        }
        defer { copies.forEach { free($0) } }
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
            throw PostgresFailure(sqlState: state, message: result.errorMessage,
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
        var lines = text.split(separator: "\n").map { $0.trimmingSpaces() }
        lines.removeAll { $0.isEmpty }
        return lines.joined(separator: "; ")
    }
}

extension Substring {
    fileprivate func trimmingSpaces() -> String {
        var s = self
        while let first = s.first, first == " " || first == "\t" { s = s.dropFirst() }
        while let last = s.last, last == " " || last == "\t" { s = s.dropLast() }
        return String(s)
    }
}

extension String {
    fileprivate func replacingNUL() -> String {
        String(String.UnicodeScalarView(unicodeScalars.filter { $0 != "\0" }))
    }
}
