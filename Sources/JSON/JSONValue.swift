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
        var out: [UInt8] = []
        write(into: &out, indent: nil, level: 0)
        return String(decoding: out, as: UTF8.self)
    }

    /// JSON indented by two spaces per level, for people.
    public func prettyPrinted() -> String {
        var out: [UInt8] = []
        write(into: &out, indent: 2, level: 0)
        return String(decoding: out, as: UTF8.self)
    }

    /// Written as UTF-8 bytes: appending many short pieces to a `String` cost more than the
    /// rest of storing a reservation.
    func write(into out: inout [UInt8], indent: Int?, level: Int) {
        switch self {
        case .null: out += "null".utf8
        case .bool(let b): out += (b ? "true" : "false").utf8
        case .number(let n): out += JSONValue.format(n).utf8
        case .string(let s): JSONValue.writeString(s, into: &out)
        case .array(let items):
            if items.isEmpty {
                out += "[]".utf8
                return
            }
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                JSONValue.newline(&out, indent, level + 1)
                item.write(into: &out, indent: indent, level: level + 1)
            }
            JSONValue.newline(&out, indent, level)
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            if object.members.isEmpty {
                out += "{}".utf8
                return
            }
            out.append(UInt8(ascii: "{"))
            for (i, member) in object.members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                JSONValue.newline(&out, indent, level + 1)
                JSONValue.writeString(member.key, into: &out)
                out.append(UInt8(ascii: ":"))
                if indent != nil { out.append(UInt8(ascii: " ")) }
                member.value.write(into: &out, indent: indent, level: level + 1)
            }
            JSONValue.newline(&out, indent, level)
            out.append(UInt8(ascii: "}"))
        }
    }

    static func newline(_ out: inout [UInt8], _ indent: Int?, _ level: Int) {
        guard let indent else { return }
        out.append(UInt8(ascii: "\n"))
        out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent * level))
    }

    /// Integers print without a fraction; non-finite numbers (not JSON) print as null.
    static func format(_ n: Double) -> String {
        guard n.isFinite else { return "null" }
        if n == n.rounded(), abs(n) < 1e15 { return String(Int64(n)) }
        return String(n)
    }

    /// RFC 8259 §7: quotation mark, reverse solidus and the C0 controls are escaped, the
    /// common ones as `\n`, `\r`, `\t`, the rest as `\u00XX`. So are DEL, the C1 controls
    /// (U+0080–U+009F, NEL among them) and U+2028 and U+2029, which JSON allows raw: no code
    /// point a reader may take for a line end (Python's `str.splitlines()` splits at NEL,
    /// U+2028 and U+2029, and JavaScript strings before ES2019 cannot hold the last two) or
    /// for a terminal control leaves the writer unescaped, whatever JSON is embedded in.
    static func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { utf8 in
            // Runs that need no escape are appended whole. C2 leads U+0080–U+00BF, E2 leads
            // U+2028 and U+2029.
            var runStart = 0
            var index = 0
            while index < utf8.count {
                let b = utf8[index]
                guard b < 0x20 || b == 0x22 || b == 0x5C || b == 0x7F || b == 0xC2 || b == 0xE2 else {
                    index += 1
                    continue
                }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                var next = index + 1
                switch b {
                case 0x22: out += "\\\"".utf8
                case 0x5C: out += "\\\\".utf8
                case 0x0A: out += "\\n".utf8
                case 0x0D: out += "\\r".utf8
                case 0x09: out += "\\t".utf8
                case 0xC2:
                    // U+0080–U+009F are C2 80 … C2 9F (the string is valid UTF-8).
                    next = min(index + 2, utf8.count)
                    if next == index + 2, utf8[index + 1] <= 0x9F {
                        writeUnicodeEscape(utf8[index + 1], into: &out)
                    } else {
                        out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[index..<next]))
                    }
                case 0xE2:
                    // U+2028 and U+2029 are E2 80 A8 and E2 80 A9.
                    next = min(index + 3, utf8.count)
                    if next == index + 3, utf8[index + 1] == 0x80, utf8[index + 2] == 0xA8 || utf8[index + 2] == 0xA9 {
                        out += "\\u202".utf8
                        out.append(utf8[index + 2] == 0xA8 ? UInt8(ascii: "8") : UInt8(ascii: "9"))
                    } else {
                        out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[index..<next]))
                    }
                default:
                    // A C0 control or DEL.
                    writeUnicodeEscape(b, into: &out)
                }
                index = next
                runStart = next
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
        }
        out.append(UInt8(ascii: "\""))
    }

    /// `\u00XX` for a code point below U+0100, in lower-case hex.
    static func writeUnicodeEscape(_ value: UInt8, into out: inout [UInt8]) {
        out += "\\u00".utf8
        let high = value >> 4
        let low = value & 0x0F
        out.append(high < 10 ? 0x30 + high : 0x57 + high)
        out.append(low < 10 ? 0x30 + low : 0x57 + low)
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
    public init(uniquing members: [Member]) {
        // Small objects (nearly all) compare keys one by one, cheaper than hashing each; larger
        // ones keep positions in a dictionary.
        var positions: [String: Int]? = members.count > 16 ? [:] : nil
        var unique: [Member] = []
        unique.reserveCapacity(members.count)
        for member in members {
            let index = positions == nil ? unique.firstIndex { $0.key == member.key } : positions?[member.key]
            if let index {
                unique[index].value = member.value
            } else {
                positions?[member.key] = unique.count
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
