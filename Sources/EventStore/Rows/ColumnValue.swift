/// One cell as a backend reads or writes it: SQL NULL, an integer, or text.
public enum ColumnValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case text(String)

    public init(_ text: String?) { self = text.map { .text($0) } ?? .null }
    public init(_ number: Int64?) { self = number.map { .integer($0) } ?? .null }
    public init(_ number: Int?) { self = number.map { .integer(Int64($0)) } ?? .null }
}
