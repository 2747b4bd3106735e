internal import CLibPQ
import EventStore

/// One `PGresult`, owned by exactly one Swift object that clears it.
///
/// "Every command result should be freed via PQclear when it is no longer needed"
/// (libpq, §34.3.1); `deinit` does it, so no path can leak one.
final class PostgresResult {
    private let handle: OpaquePointer

    init(_ handle: OpaquePointer) {
        self.handle = handle
    }

    deinit {
        PQclear(handle)
    }

    var status: ExecStatusType { PQresultStatus(handle) }

    /// `PGRES_COMMAND_OK` (no rows) or `PGRES_TUPLES_OK` (rows, possibly none).
    var succeeded: Bool { status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK }

    var rowCount: Int { Int(PQntuples(handle)) }

    /// The five-character SQLSTATE of a failed command (PostgreSQL manual, Appendix A).
    var sqlState: String? {
        PQresultErrorField(handle, reservoir_pq_diag_sqlstate()).map { String(cString: $0) }
    }

    /// The primary error message, without severity and detail lines.
    var errorMessage: String {
        if let primary = PQresultErrorField(handle, reservoir_pq_diag_message_primary()) {
            return String(cString: primary)
        }
        return PostgresConnection.trimmed(String(cString: PQresultErrorMessage(handle)))
    }

    /// The value in text format, nil for SQL NULL or a cell out of range.
    func text(_ row: Int, _ column: Int) -> String? {
        guard row >= 0, row < rowCount, column >= 0, column < Int(PQnfields(handle)) else { return nil }
        let r = Int32(row)
        let c = Int32(column)
        // "An empty string is returned if the field value is null. See PQgetisnull to
        // distinguish null values from empty-string values." (libpq §34.3.2)
        if PQgetisnull(handle, r, c) != 0 { return nil }
        guard let value = PQgetvalue(handle, r, c) else { return nil }
        return String(cString: value)
    }

    func integer(_ row: Int, _ column: Int) -> Int64? {
        text(row, column).flatMap { Int64($0) }
    }

    /// One row as the store's values, read in `layout`'s order: the text format turned into
    /// an integer for an integer column. A cell that is not one stays text, and the row
    /// decoder refuses it.
    func values(_ row: Int, _ layout: RowLayout) -> [ColumnValue] {
        layout.columns.indices.map { column in
            guard let text = text(row, column) else { return .null }
            guard layout.columns[column].type == .integer, let number = Int64(text) else { return .text(text) }
            return .integer(number)
        }
    }
}

extension ColumnValue {
    /// The value as a text-format parameter (libpq §34.3.1, `PQexecParams`): nil for NULL.
    var parameter: String? {
        switch self {
        case .null: nil
        case .integer(let value): String(value)
        case .text(let value): value
        }
    }
}
