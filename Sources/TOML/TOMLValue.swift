/// A value of a TOML 1.0.0 document ("Spec" section names cited where each form is read).
public indirect enum TOMLValue: Sendable, Equatable {
    /// "String": basic, multi-line basic, literal or multi-line literal, escapes resolved.
    case string(String)
    /// "Integer": a signed 64-bit value, from decimal, hexadecimal, octal or binary.
    case integer(Int64)
    /// "Float": IEEE 754 binary64, `inf` and `nan` included.
    case float(Double)
    /// "Boolean".
    case boolean(Bool)
    /// "Offset Date-Time", "Local Date-Time", "Local Date", "Local Time": checked, kept as written.
    case dateTime(TOMLDateTime)
    /// "Array": values of any types, each with where it was written.
    case array([TOMLEntry])
    /// "Table" and "Inline Table".
    case table(TOMLTable)

    /// The name of the value's type, as TOML 1.0.0 names it, for messages.
    public var typeName: String {
        switch self {
        case .string: "string"
        case .integer: "integer"
        case .float: "float"
        case .boolean: "boolean"
        case .dateTime: "date-time"
        case .array: "array"
        case .table: "table"
        }
    }
}

/// A value and where it was written: the position of its key (or table header), or of the
/// value itself for an element of an array.
public struct TOMLEntry: Sendable, Equatable {
    public var value: TOMLValue
    public var position: TOMLPosition

    public init(value: TOMLValue, position: TOMLPosition) {
        self.value = value
        self.position = position
    }
}

/// A line and a column, both counted from 1; columns count Unicode scalars.
public struct TOMLPosition: Sendable, Hashable, CustomStringConvertible {
    public var line: Int
    public var column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    public var description: String { "\(line):\(column)" }
}

/// A table: keys in the order they were first written, each with its entry.
public struct TOMLTable: Sendable, Equatable {
    public private(set) var keys: [String] = []
    private var entries: [String: TOMLEntry] = [:]

    public init() {}

    public subscript(key: String) -> TOMLEntry? { entries[key] }

    /// Adds `key`, or replaces its entry keeping its place.
    mutating func set(_ key: String, _ entry: TOMLEntry) {
        if entries.updateValue(entry, forKey: key) == nil { keys.append(key) }
    }
}

/// "Offset Date-Time", "Local Date-Time", "Local Date" and "Local Time": the kind and the text
/// as written; the reader has checked it is a real date and time (RFC 3339 §5.6, §5.7).
public struct TOMLDateTime: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case offsetDateTime, localDateTime, localDate, localTime
    }

    public var kind: Kind
    public var text: String

    public init(kind: Kind, text: String) {
        self.kind = kind
        self.text = text
    }
}
