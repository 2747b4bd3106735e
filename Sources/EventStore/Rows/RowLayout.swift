/// One column of a store table: its name and the type its values have.
public struct StoreColumn: Sendable, Equatable {
    public enum ValueType: Sendable, Equatable {
        case text
        case integer
    }

    public let name: String
    public let type: ValueType

    public init(_ name: String, _ type: ValueType) {
        self.name = name
        self.type = type
    }
}

/// The columns of one table in the order every backend selects and writes them.
public struct RowLayout: Sendable {
    public let table: String
    public let columns: [StoreColumn]

    public init(table: String, columns: [StoreColumn]) {
        self.table = table
        self.columns = columns
    }

    /// `a, b, c`: the column names for a SELECT or an INSERT.
    public var names: String { columns.map(\.name).joined(separator: ", ") }

    /// Reads one row's values in column order.
    func cursor(_ values: [ColumnValue]) throws(EventStoreError) -> RowCursor {
        guard values.count == columns.count else {
            throw EventStoreError(.invalidRow, "a row of \(table) has \(values.count) values, not \(columns.count)")
        }
        return RowCursor(layout: self, values: values)
    }
}

/// Reads the values of one row in column order. A value that is missing (NULL where the
/// column requires one) or of another type than the column's is an `.invalidRow` error,
/// never a default.
struct RowCursor {
    let layout: RowLayout
    let values: [ColumnValue]
    private var index = 0

    init(layout: RowLayout, values: [ColumnValue]) {
        self.layout = layout
        self.values = values
    }

    mutating func text() throws(EventStoreError) -> String {
        guard let value = try optionalText() else { throw missing() }
        return value
    }

    mutating func optionalText() throws(EventStoreError) -> String? {
        switch try next(.text) {
        case .null: return nil
        case .text(let value): return value
        case .integer: throw wrongType()
        }
    }

    mutating func integer() throws(EventStoreError) -> Int64 {
        guard let value = try optionalInteger() else { throw missing() }
        return value
    }

    mutating func optionalInteger() throws(EventStoreError) -> Int64? {
        switch try next(.integer) {
        case .null: return nil
        case .integer(let value): return value
        case .text: throw wrongType()
        }
    }

    /// A text column holding one of a closed set of words (`T(rawValue:)`, or a reader of
    /// older words too).
    mutating func word<T>(_ read: (String) -> T?) throws(EventStoreError) -> T {
        let text = try text()
        guard let value = read(text) else {
            throw EventStoreError(
                .invalidRow, "\(layout.table).\(layout.columns[index - 1].name) holds “\(text)”, which this reservoir does not know")
        }
        return value
    }

    private mutating func next(_ type: StoreColumn.ValueType) throws(EventStoreError) -> ColumnValue {
        guard index < values.count, layout.columns[index].type == type else {
            throw EventStoreError(.invalidRow, "\(layout.table): no \(type) column at position \(index + 1)")
        }
        defer { index += 1 }
        return values[index]
    }

    private func missing() -> EventStoreError {
        EventStoreError(.invalidRow, "\(layout.table).\(layout.columns[index - 1].name) is missing")
    }

    private func wrongType() -> EventStoreError {
        let column = layout.columns[index - 1]
        return EventStoreError(.invalidRow, "\(layout.table).\(column.name) holds a value that is not \(column.type)")
    }
}
