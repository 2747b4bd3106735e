/// A JSON value as read from markup. Objects keep their members in document order so output
/// and diagnostics follow what the sender wrote.
public indirect enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    public var stringValue: String? {
        switch self {
        case .string(let s): s
        case .number(let n): JSONValue.format(n)
        case .bool(let b): b ? "true" : "false"
        default: nil
        }
    }

    public var objectValue: JSONObject? {
        if case .object(let o) = self { return o }
        return nil
    }

    /// The value itself for an array, or a one-element list otherwise (schema.org allows a
    /// single value wherever it allows several).
    public var listValue: [JSONValue] {
        switch self {
        case .array(let a): a
        case .null: []
        default: [self]
        }
    }

    /// Compact JSON (RFC 8259), members in their stored order.
    public func serialized() -> String {
        var out = ""
        write(into: &out, indent: nil, level: 0)
        return out
    }

    /// JSON indented by two spaces per level, for people.
    public func prettyPrinted() -> String {
        var out = ""
        write(into: &out, indent: "  ", level: 0)
        return out
    }

    func write(into out: inout String, indent: String?, level: Int) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let n): out += JSONValue.format(n)
        case .string(let s): JSONValue.writeString(s, into: &out)
        case .array(let items):
            if items.isEmpty { out += "[]"; return }
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                JSONValue.newline(&out, indent, level + 1)
                item.write(into: &out, indent: indent, level: level + 1)
            }
            JSONValue.newline(&out, indent, level)
            out += "]"
        case .object(let object):
            if object.members.isEmpty { out += "{}"; return }
            out += "{"
            for (i, member) in object.members.enumerated() {
                if i > 0 { out += "," }
                JSONValue.newline(&out, indent, level + 1)
                JSONValue.writeString(member.key, into: &out)
                out += indent == nil ? ":" : ": "
                member.value.write(into: &out, indent: indent, level: level + 1)
            }
            JSONValue.newline(&out, indent, level)
            out += "}"
        }
    }

    static func newline(_ out: inout String, _ indent: String?, _ level: Int) {
        guard let indent else { return }
        out += "\n" + String(repeating: indent, count: level)
    }

    /// Integers print without a fraction; non-finite numbers (not JSON) print as null.
    static func format(_ n: Double) -> String {
        guard n.isFinite else { return "null" }
        if n == n.rounded(), abs(n) < 1e15 { return String(Int64(n)) }
        return String(n)
    }

    /// RFC 8259 §7: quotation mark, reverse solidus and control characters are escaped.
    public static func writeString(_ s: String, into out: inout String) {
        out += "\""
        // Most strings need no escape: appended whole. 0xE2 leads U+2028 and U+2029 in UTF-8.
        if !s.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0xE2 }) {
            out += s
            out += "\""
            return
        }
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x2028 || scalar.value == 0x2029 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}

/// A JSON object with its members in document order. A repeated key keeps its first
/// position; lookups return the last value written, as JSON parsers commonly do.
public struct JSONObject: Sendable, Equatable {
    public struct Member: Sendable, Equatable {
        public var key: String
        public var value: JSONValue

        public init(key: String, value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    public private(set) var members: [Member]

    public init(_ members: [Member] = []) {
        self.members = []
        for member in members { self[member.key] = member.value }
    }

    public init(pairs: [(String, JSONValue)]) {
        self.init(pairs.map { Member(key: $0.0, value: $0.1) })
    }

    /// Builds an object from members as read, in linear time: a repeated key keeps its first
    /// position and its last value, as `init(_:)` does.
    init(uniquing members: [Member]) {
        var positions: [String: Int] = [:]
        var unique: [Member] = []
        unique.reserveCapacity(members.count)
        for member in members {
            if let index = positions[member.key] {
                unique[index].value = member.value
            } else {
                positions[member.key] = unique.count
                unique.append(member)
            }
        }
        self.members = unique
    }

    public var keys: [String] { members.map(\.key) }
    public var isEmpty: Bool { members.isEmpty }

    public subscript(key: String) -> JSONValue? {
        get { members.first { $0.key == key }?.value }
        set {
            if let index = members.firstIndex(where: { $0.key == key }) {
                if let newValue { members[index].value = newValue } else { members.remove(at: index) }
            } else if let newValue {
                members.append(Member(key: key, value: newValue))
            }
        }
    }
}
