/// Reads a TOML 1.0.0 document (https://toml.io/en/v1.0.0) into its root table.
///
/// The whole grammar: comments, bare, quoted and dotted keys, the four string forms with their
/// escapes, integers in four bases, floats (`inf`, `nan`), booleans, the date and time forms,
/// arrays, inline tables, standard tables and arrays of tables, with the spec's rules against
/// defining a key or a table twice. Table definitions follow Python's `tomllib` where the spec
/// leaves room: a table made by dotted keys is closed to later headers and to dotted keys of
/// later sections. Every refusal is a ``TOMLError`` with the line and column where reading
/// stopped. Bounded by ``TOMLLimits``; nothing in it depends on the input's size but linearly.
public enum TOMLReader {
    public static func read(_ bytes: [UInt8]) -> Result<TOMLTable, TOMLError> {
        guard bytes.count <= TOMLLimits.maximumDocumentBytes else {
            return .failure(
                TOMLError(
                    .documentTooLarge, at: TOMLPosition(line: 1, column: 1),
                    "the document is \(bytes.count) bytes, more than the \(TOMLLimits.maximumDocumentBytes) read"))
        }
        var parser = TOMLParser(bytes)
        do {
            return .success(try parser.document())
        } catch {
            return .failure(error)
        }
    }

    public static func read(_ text: String) -> Result<TOMLTable, TOMLError> { read(Array(text.utf8)) }
}

/// A table while the document is read: its slots, and whether it may still be defined or
/// extended.
private final class TableNode {
    enum Slot {
        case value(TOMLValue, offset: Int)
        case table(TableNode)
        case arrayOfTables([TableNode], offset: Int)
    }

    var keys: [String] = []
    var slots: [String: Slot] = [:]
    let offset: Int
    /// Defined by a header, or by dotted keys of a section that has ended.
    var explicit: Bool
    /// An inline table: complete as written.
    var frozen = false

    init(offset: Int, explicit: Bool) {
        self.offset = offset
        self.explicit = explicit
    }

    func set(_ key: String, _ slot: Slot) {
        if slots.updateValue(slot, forKey: key) == nil { keys.append(key) }
    }
}

private struct TOMLParser {
    let bytes: [UInt8]
    var p = 0
    /// The offset each line starts at, for positions.
    let lineStarts: [Int]

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        var starts = [0]
        for (i, b) in bytes.enumerated() where b == 0x0A { starts.append(i + 1) }
        lineStarts = starts
    }

    // MARK: Positions and errors

    func position(_ offset: Int) -> TOMLPosition {
        var low = 0
        var high = lineStarts.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if lineStarts[mid] <= offset { low = mid } else { high = mid - 1 }
        }
        let start = lineStarts[low]
        var column = 1
        var i = start
        while i < min(offset, bytes.count) {
            if bytes[i] & 0xC0 != 0x80 { column += 1 }
            i += 1
        }
        // A continuation byte at the offset itself belongs to the scalar counted last.
        if offset < bytes.count, offset > start, bytes[offset] & 0xC0 == 0x80 { column -= 1 }
        return TOMLPosition(line: low + 1, column: column)
    }

    func fail(_ code: TOMLError.Code, _ detail: String, at offset: Int? = nil) -> TOMLError {
        TOMLError(code, at: position(offset ?? p), detail)
    }

    var current: UInt8? { p < bytes.count ? bytes[p] : nil }

    func byte(at offset: Int) -> UInt8? { offset < bytes.count ? bytes[offset] : nil }

    static func describe(_ b: UInt8?) -> String {
        guard let b else { return "the end of the document" }
        if b == 0x0A { return "the end of the line" }
        if b >= 0x21, b < 0x7F { return "'\(Character(Unicode.Scalar(b)))'" }
        return "byte 0x" + String(b, radix: 16, uppercase: true)
    }

    // MARK: Document

    /// "Spec": a document is a sequence of expressions, one a line: a key/value pair, a table
    /// header or nothing, each optionally followed by a comment.
    mutating func document() throws(TOMLError) -> TOMLTable {
        if let bad = Self.firstInvalidUTF8(bytes) {
            throw fail(.invalidUTF8, "the document is not valid UTF-8", at: bad)
        }
        let root = TableNode(offset: 0, explicit: true)
        var section = root
        var pending: [TableNode] = []
        while p < bytes.count {
            skipWhitespace()
            switch current {
            case UInt8(ascii: "["):
                // Tables made by dotted keys in the section just ended are now defined.
                for node in pending { node.explicit = true }
                pending = []
                section = try header(root)
            case UInt8(ascii: "#"), 0x0A, 0x0D, nil:
                break
            default:
                try keyValue(into: section, pending: &pending)
            }
            try endOfLine()
        }
        return try freeze(root, depth: 0)
    }

    /// White space, an optional comment, then a newline or the end of the document.
    mutating func endOfLine() throws(TOMLError) {
        skipWhitespace()
        if current == UInt8(ascii: "#") { try comment() }
        switch current {
        case nil: return
        case 0x0A: p += 1
        case 0x0D where byte(at: p + 1) == 0x0A: p += 2
        case 0x0D: throw fail(.controlCharacter, "a carriage return not followed by a line feed")
        default: throw fail(.expectedEndOfLine, "expected the end of the line, found \(Self.describe(current))")
        }
    }

    /// "Comment": from `#` to the end of the line; control characters other than tab are not
    /// permitted in comments.
    mutating func comment() throws(TOMLError) {
        p += 1
        while let b = current, b != 0x0A {
            if b == 0x0D, byte(at: p + 1) == 0x0A { return }
            if Self.isControl(b) { throw fail(.controlCharacter, "control character \(Self.describe(b)) in a comment") }
            p += 1
        }
    }

    mutating func skipWhitespace() {
        while let b = current, b == 0x20 || b == 0x09 { p += 1 }
    }

    /// White space, newlines and comments, as allowed between the values of an array.
    mutating func skipWhitespaceAndNewlines() throws(TOMLError) {
        while let b = current {
            switch b {
            case 0x20, 0x09, 0x0A: p += 1
            case 0x0D where byte(at: p + 1) == 0x0A: p += 2
            case UInt8(ascii: "#"): try comment()
            default: return
            }
        }
    }

    // MARK: Tables

    /// "Table" and "Array of Tables": `[key]` or `[[key]]`; the table later pairs go into.
    mutating func header(_ root: TableNode) throws(TOMLError) -> TableNode {
        let start = p
        let isArray = byte(at: p + 1) == UInt8(ascii: "[")
        p += isArray ? 2 : 1
        skipWhitespace()
        let key = try dottedKey()
        skipWhitespace()
        guard current == UInt8(ascii: "]"), !isArray || byte(at: p + 1) == UInt8(ascii: "]") else {
            throw fail(.expectedKey, "expected \(isArray ? "]]" : "]") to close the table header, found \(Self.describe(current))")
        }
        p += isArray ? 2 : 1
        var table = root
        for (index, part) in key.parts.dropLast().enumerated() {
            table = try descend(table, part, offset: key.offsets[index], name: key.name(upTo: index))
        }
        let last = key.parts[key.parts.count - 1]
        let name = key.name(upTo: key.parts.count - 1)
        if isArray {
            let element = TableNode(offset: start, explicit: true)
            switch table.slots[last] {
            case nil: table.set(last, .arrayOfTables([element], offset: start))
            case .arrayOfTables(var elements, let offset):
                elements.append(element)
                table.set(last, .arrayOfTables(elements, offset: offset))
            case .value(.array, _): throw fail(.immutable, "\(name) is a static array; [[\(name)]] cannot add to it", at: start)
            case .value, .table: throw fail(.notATable, "\(name) is already defined and is not an array of tables", at: start)
            }
            return element
        }
        switch table.slots[last] {
        case nil:
            let node = TableNode(offset: start, explicit: true)
            table.set(last, .table(node))
            return node
        case .table(let node):
            guard !node.frozen else { throw fail(.immutable, "\(name) is an inline table and cannot be extended", at: start) }
            guard !node.explicit else { throw fail(.duplicateTable, "table \(name) is defined twice", at: start) }
            node.explicit = true
            return node
        case .arrayOfTables: throw fail(.duplicateTable, "\(name) is an array of tables; [\(name)] cannot define it", at: start)
        case .value: throw fail(.notATable, "\(name) holds a value, not a table", at: start)
        }
    }

    /// The table `part` names in `table` for a header, made if missing (an implicit table);
    /// the last table of an array of tables.
    mutating func descend(_ table: TableNode, _ part: String, offset: Int, name: String) throws(TOMLError) -> TableNode {
        switch table.slots[part] {
        case nil:
            let node = TableNode(offset: offset, explicit: false)
            table.set(part, .table(node))
            return node
        case .table(let node):
            guard !node.frozen else { throw fail(.immutable, "\(name) is an inline table and cannot be extended", at: offset) }
            return node
        case .arrayOfTables(let elements, _):
            guard let last = elements.last else { throw fail(.notATable, "\(name) is empty", at: offset) }
            return last
        case .value(.array, _): throw fail(.immutable, "\(name) is a static array and cannot be extended", at: offset)
        case .value: throw fail(.notATable, "\(name) holds a value, not a table", at: offset)
        }
    }

    /// "Keys" and "Key/Value Pair": `key = value` in `section`; dotted keys make tables, which
    /// are closed to later sections once this one ends (`pending`).
    mutating func keyValue(into section: TableNode, pending: inout [TableNode]) throws(TOMLError) {
        let key = try dottedKey()
        skipWhitespace()
        guard current == UInt8(ascii: "=") else {
            throw fail(.expectedEquals, "expected = after the key \(key.name(upTo: key.parts.count - 1)), found \(Self.describe(current))")
        }
        p += 1
        skipWhitespace()
        let value = try value(depth: 1)
        var table = section
        for (index, part) in key.parts.dropLast().enumerated() {
            let name = key.name(upTo: index)
            switch table.slots[part] {
            case nil:
                let node = TableNode(offset: key.offsets[index], explicit: false)
                table.set(part, .table(node))
                pending.append(node)
                table = node
            case .table(let node):
                guard !node.frozen else { throw fail(.immutable, "\(name) is an inline table and cannot be extended", at: key.offsets[index]) }
                guard !node.explicit else {
                    throw fail(.duplicateTable, "table \(name) is already defined; dotted keys cannot add to it", at: key.offsets[index])
                }
                table = node
            case .arrayOfTables: throw fail(.notATable, "\(name) is an array of tables; dotted keys cannot add to it", at: key.offsets[index])
            case .value(.array, _): throw fail(.immutable, "\(name) is a static array and cannot be extended", at: key.offsets[index])
            case .value: throw fail(.notATable, "\(name) holds a value, not a table", at: key.offsets[index])
            }
        }
        let last = key.parts[key.parts.count - 1]
        let lastOffset = key.offsets[key.offsets.count - 1]
        guard table.slots[last] == nil else {
            throw fail(.duplicateKey, "\(key.name(upTo: key.parts.count - 1)) is defined twice", at: lastOffset)
        }
        switch value {
        case .inlineTable(let node): table.set(last, .table(node))
        case .plain(let v): table.set(last, .value(v, offset: lastOffset))
        }
    }

    /// A dotted key: its parts, where each starts, for positions and messages.
    struct DottedKey {
        var parts: [String] = []
        var offsets: [Int] = []

        func name(upTo index: Int) -> String {
            parts[...index].map { part in
                part.utf8.allSatisfy(TOMLParser.isBareKeyByte) && !part.isEmpty ? part : "\"" + part + "\""
            }.joined(separator: ".")
        }
    }

    /// "Keys": bare, basic or literal keys joined by dots, white space around the dots ignored.
    mutating func dottedKey() throws(TOMLError) -> DottedKey {
        var key = DottedKey()
        while true {
            guard key.parts.count < TOMLLimits.maximumDepth else {
                throw fail(.nestingTooDeep, "a key of more than \(TOMLLimits.maximumDepth) parts")
            }
            key.offsets.append(p)
            key.parts.append(try simpleKey())
            skipWhitespace()
            guard current == UInt8(ascii: ".") else { return key }
            p += 1
            skipWhitespace()
        }
    }

    mutating func simpleKey() throws(TOMLError) -> String {
        switch current {
        case UInt8(ascii: "\""):
            guard byte(at: p + 1) != UInt8(ascii: "\"") || byte(at: p + 2) != UInt8(ascii: "\"") else {
                throw fail(.expectedKey, "a multi-line string cannot be a key")
            }
            return try basicString()
        case UInt8(ascii: "'"):
            guard byte(at: p + 1) != UInt8(ascii: "'") || byte(at: p + 2) != UInt8(ascii: "'") else {
                throw fail(.expectedKey, "a multi-line string cannot be a key")
            }
            return try literalString()
        default:
            let start = p
            while let b = current, Self.isBareKeyByte(b) { p += 1 }
            guard p > start else { throw fail(.expectedKey, "expected a key, found \(Self.describe(current))") }
            return String(decoding: bytes[start..<p], as: UTF8.self)
        }
    }

    static func isBareKeyByte(_ b: UInt8) -> Bool {
        (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39) || b == 0x5F || b == 0x2D
    }

    // MARK: Values

    enum Parsed {
        case plain(TOMLValue)
        /// Kept as a node so that later lines cannot extend it.
        case inlineTable(TableNode)
    }

    mutating func value(depth: Int) throws(TOMLError) -> Parsed {
        guard depth <= TOMLLimits.maximumDepth else {
            throw fail(.nestingTooDeep, "values nested more than \(TOMLLimits.maximumDepth) deep")
        }
        switch current {
        case UInt8(ascii: "\""):
            let multiLine = byte(at: p + 1) == UInt8(ascii: "\"") && byte(at: p + 2) == UInt8(ascii: "\"")
            return .plain(.string(multiLine ? try multiLineString(literal: false) : try basicString()))
        case UInt8(ascii: "'"):
            let multiLine = byte(at: p + 1) == UInt8(ascii: "'") && byte(at: p + 2) == UInt8(ascii: "'")
            return .plain(.string(multiLine ? try multiLineString(literal: true) : try literalString()))
        case UInt8(ascii: "t"), UInt8(ascii: "f"):
            if matches("true") { return .plain(.boolean(true)) }
            if matches("false") { return .plain(.boolean(false)) }
            throw fail(.expectedValue, "expected a value (true and false are lowercase)")
        case UInt8(ascii: "["):
            return .plain(try array(depth: depth))
        case UInt8(ascii: "{"):
            return .inlineTable(try inlineTable(depth: depth))
        case let b? where Self.isDigit(b) || b == UInt8(ascii: "+") || b == UInt8(ascii: "-") || b == UInt8(ascii: "i") || b == UInt8(ascii: "n"):
            if let dateTime = try dateTime() { return .plain(.dateTime(dateTime)) }
            return .plain(try number())
        default:
            throw fail(.expectedValue, "expected a value, found \(Self.describe(current))")
        }
    }

    /// `word` at the cursor, not followed by a bare-key byte; consumed when it matches.
    mutating func matches(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard p + count <= bytes.count else { return false }
        let equal = word.withUTF8Buffer { w in w.elementsEqual(bytes[p..<(p + count)]) }
        guard equal, !(byte(at: p + count).map(Self.isBareKeyByte) ?? false) else { return false }
        p += count
        return true
    }

    /// "Array": values between brackets, separated by commas, a trailing comma allowed, with
    /// newlines and comments anywhere between them.
    mutating func array(depth: Int) throws(TOMLError) -> TOMLValue {
        p += 1
        var elements: [TOMLEntry] = []
        while true {
            try skipWhitespaceAndNewlines()
            if current == UInt8(ascii: "]") {
                p += 1
                return .array(elements)
            }
            let offset = p
            let element: TOMLValue
            switch try value(depth: depth + 1) {
            case .plain(let v): element = v
            case .inlineTable(let node): element = .table(try freeze(node, depth: depth))
            }
            elements.append(TOMLEntry(value: element, position: position(offset)))
            try skipWhitespaceAndNewlines()
            switch current {
            case UInt8(ascii: ","): p += 1
            case UInt8(ascii: "]"):
                p += 1
                return .array(elements)
            default: throw fail(.unterminatedArray, "expected , or ] in an array, found \(Self.describe(current))")
            }
        }
    }

    /// "Inline Table": `{ key = value, … }` on one line, no trailing comma; complete as
    /// written.
    mutating func inlineTable(depth: Int) throws(TOMLError) -> TableNode {
        let node = TableNode(offset: p, explicit: true)
        p += 1
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            p += 1
            node.frozen = true
            return node
        }
        while true {
            skipWhitespace()
            let key = try dottedKey()
            skipWhitespace()
            guard current == UInt8(ascii: "=") else { throw fail(.expectedEquals, "expected = in an inline table, found \(Self.describe(current))") }
            p += 1
            skipWhitespace()
            let parsed = try value(depth: depth + 1)
            var table = node
            for (index, part) in key.parts.dropLast().enumerated() {
                switch table.slots[part] {
                case nil:
                    let child = TableNode(offset: key.offsets[index], explicit: false)
                    table.set(part, .table(child))
                    table = child
                case .table(let child) where !child.frozen:
                    table = child
                case .table: throw fail(.immutable, "\(key.name(upTo: index)) is an inline table and cannot be extended", at: key.offsets[index])
                default: throw fail(.notATable, "\(key.name(upTo: index)) holds a value, not a table", at: key.offsets[index])
                }
            }
            let last = key.parts[key.parts.count - 1]
            guard table.slots[last] == nil else {
                throw fail(.duplicateKey, "\(key.name(upTo: key.parts.count - 1)) is defined twice", at: key.offsets[key.offsets.count - 1])
            }
            switch parsed {
            case .plain(let v): table.set(last, .value(v, offset: key.offsets[key.offsets.count - 1]))
            case .inlineTable(let child): table.set(last, .table(child))
            }
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): p += 1
            case UInt8(ascii: "}"):
                p += 1
                Self.freezeAll(node)
                return node
            default:
                throw fail(.unterminatedInlineTable, "expected , or } in an inline table (on one line), found \(Self.describe(current))")
            }
        }
    }

    static func freezeAll(_ node: TableNode) {
        node.frozen = true
        for key in node.keys { if case .table(let child) = node.slots[key] { freezeAll(child) } }
    }

    // MARK: Strings

    /// "String": a basic string, `"…"` on one line, with escapes.
    mutating func basicString() throws(TOMLError) -> String {
        let start = p
        p += 1
        var out: [UInt8] = []
        while true {
            guard let b = current, b != 0x0A else { throw fail(.unterminatedString, "a basic string not closed on its line", at: start) }
            switch b {
            case UInt8(ascii: "\""):
                p += 1
                return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                try escape(into: &out)
            default:
                guard !Self.isControl(b) else { throw fail(.controlCharacter, "control character \(Self.describe(b)) in a string") }
                out.append(b)
                p += 1
            }
            guard out.count <= TOMLLimits.maximumStringBytes else {
                throw fail(.stringTooLong, "a string longer than \(TOMLLimits.maximumStringBytes) bytes", at: start)
            }
        }
    }

    /// "String": a literal string, `'…'` on one line, no escapes.
    mutating func literalString() throws(TOMLError) -> String {
        let start = p
        p += 1
        while true {
            guard let b = current, b != 0x0A else { throw fail(.unterminatedString, "a literal string not closed on its line", at: start) }
            if b == UInt8(ascii: "'") { break }
            guard !Self.isControl(b) else { throw fail(.controlCharacter, "control character \(Self.describe(b)) in a string") }
            p += 1
        }
        guard p - start - 1 <= TOMLLimits.maximumStringBytes else {
            throw fail(.stringTooLong, "a string longer than \(TOMLLimits.maximumStringBytes) bytes", at: start)
        }
        p += 1
        return String(decoding: bytes[(start + 1)..<(p - 1)], as: UTF8.self)
    }

    /// "String": `"""…"""` or `'''…'''`. A newline right after the opening delimiter is
    /// trimmed; up to two quotation marks may stand next to the closing three; in the basic
    /// form a line-ending backslash trims the white space and newlines after it.
    mutating func multiLineString(literal: Bool) throws(TOMLError) -> String {
        let start = p
        let quote = bytes[p]
        p += 3
        if current == 0x0A {
            p += 1
        } else if current == 0x0D, byte(at: p + 1) == 0x0A {
            p += 2
        }
        var out: [UInt8] = []
        while true {
            guard let b = current else { throw fail(.unterminatedString, "a multi-line string not closed", at: start) }
            guard out.count <= TOMLLimits.maximumStringBytes else {
                throw fail(.stringTooLong, "a string longer than \(TOMLLimits.maximumStringBytes) bytes", at: start)
            }
            switch b {
            case quote:
                var run = 0
                while byte(at: p + run) == quote { run += 1 }
                if run < 3 {
                    out += repeatElement(quote, count: run)
                    p += run
                    continue
                }
                guard run <= 5 else { throw fail(.unterminatedString, "more than five quotation marks in a row", at: p + 5) }
                out += repeatElement(quote, count: run - 3)
                p += run
                return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\") where !literal:
                // A line-ending backslash: white space, then a newline.
                var q = p + 1
                while let c = byte(at: q), c == 0x20 || c == 0x09 { q += 1 }
                if byte(at: q) == 0x0A || (byte(at: q) == 0x0D && byte(at: q + 1) == 0x0A) {
                    p = q
                    while let c = current, c == 0x20 || c == 0x09 || c == 0x0A || (c == 0x0D && byte(at: p + 1) == 0x0A) { p += 1 }
                } else {
                    try escape(into: &out)
                }
            case 0x0A:
                out.append(b)
                p += 1
            case 0x0D where byte(at: p + 1) == 0x0A:
                out += [0x0D, 0x0A]
                p += 2
            default:
                guard !Self.isControl(b) else { throw fail(.controlCharacter, "control character \(Self.describe(b)) in a string") }
                out.append(b)
                p += 1
            }
        }
    }

    /// "String": `\b \t \n \f \r \" \\ \uXXXX \UXXXXXXXX`; any other escape is an error.
    mutating func escape(into out: inout [UInt8]) throws(TOMLError) {
        let start = p
        p += 1
        let simple: UInt8?
        switch current {
        case UInt8(ascii: "b"): simple = 0x08
        case UInt8(ascii: "t"): simple = 0x09
        case UInt8(ascii: "n"): simple = 0x0A
        case UInt8(ascii: "f"): simple = 0x0C
        case UInt8(ascii: "r"): simple = 0x0D
        case UInt8(ascii: "\""): simple = 0x22
        case UInt8(ascii: "\\"): simple = 0x5C
        case UInt8(ascii: "u"), UInt8(ascii: "U"): simple = nil
        default: throw fail(.invalidEscape, "\\\(current.map { String(Character(Unicode.Scalar($0))) } ?? "") is not a TOML escape", at: start)
        }
        if let simple {
            out.append(simple)
            p += 1
            return
        }
        let digits = current == UInt8(ascii: "u") ? 4 : 8
        p += 1
        var scalar: UInt32 = 0
        for _ in 0..<digits {
            guard let b = current, let d = Self.hexValue(b) else {
                throw fail(.invalidEscape, "\\u and \\U take \(digits) hexadecimal digits", at: start)
            }
            scalar = scalar << 4 | UInt32(d)
            p += 1
        }
        guard let value = Unicode.Scalar(scalar) else {
            throw fail(.invalidEscape, "\\u\(String(scalar, radix: 16)) is not a Unicode scalar value", at: start)
        }
        out += Array(String(Character(value)).utf8)
    }

    // MARK: Numbers

    /// "Integer" and "Float": the token up to the next delimiter, checked as a whole.
    mutating func number() throws(TOMLError) -> TOMLValue {
        let start = p
        while let b = current, Self.isBareKeyByte(b) || b == UInt8(ascii: "+") || b == UInt8(ascii: ".") { p += 1 }
        let token = Array(bytes[start..<p])
        guard let value = Self.number(token) else {
            let text = String(decoding: token.prefix(40), as: UTF8.self)
            if Self.isIntegerOverflow(token) { throw fail(.integerOutOfRange, "\(text) is outside the 64-bit integer range", at: start) }
            throw fail(.invalidNumber, "\(text.isEmpty ? "this" : text) is not a TOML number", at: start)
        }
        return value
    }

    static func number(_ token: [UInt8]) -> TOMLValue? {
        var body = token[...]
        let sign = body.first == UInt8(ascii: "+") || body.first == UInt8(ascii: "-") ? body.popFirst() : nil
        if body.elementsEqual("inf".utf8) { return .float(sign == UInt8(ascii: "-") ? -.infinity : .infinity) }
        if body.elementsEqual("nan".utf8) { return .float(sign == UInt8(ascii: "-") ? -.nan : .nan) }
        if body.count > 2, body.first == UInt8(ascii: "0"), sign == nil {
            let radix: Int?
            switch body[body.startIndex + 1] {
            case UInt8(ascii: "x"): radix = 16
            case UInt8(ascii: "o"): radix = 8
            case UInt8(ascii: "b"): radix = 2
            default: radix = nil
            }
            if let radix {
                let digits = body.dropFirst(2)
                guard let plain = digitsWithUnderscores(digits, radix: radix) else { return nil }
                return Int64(String(decoding: plain, as: UTF8.self), radix: radix).map(TOMLValue.integer)
            }
        }
        // Decimal: integer part, then an optional fraction and exponent.
        let intEnd = body.firstIndex { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") } ?? body.endIndex
        let intPart = body[..<intEnd]
        guard let intDigits = digitsWithUnderscores(intPart, radix: 10) else { return nil }
        guard intDigits.count == 1 || intDigits.first != UInt8(ascii: "0") else { return nil }
        var rest = body[intEnd...]
        var text = (sign == UInt8(ascii: "-") ? [UInt8(ascii: "-")] : []) + intDigits
        var isFloat = false
        if rest.first == UInt8(ascii: ".") {
            rest = rest.dropFirst()
            let end = rest.firstIndex { $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") } ?? rest.endIndex
            guard let fraction = digitsWithUnderscores(rest[..<end], radix: 10) else { return nil }
            text += [UInt8(ascii: ".")] + fraction
            rest = rest[end...]
            isFloat = true
        }
        if let e = rest.first, e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
            rest = rest.dropFirst()
            var exponentSign: [UInt8] = []
            if let s = rest.first, s == UInt8(ascii: "+") || s == UInt8(ascii: "-") {
                exponentSign = [s]
                rest = rest.dropFirst()
            }
            guard let exponent = digitsWithUnderscores(rest, radix: 10) else { return nil }
            text += [UInt8(ascii: "e")] + exponentSign + exponent
            rest = rest[rest.endIndex...]
            isFloat = true
        }
        guard rest.isEmpty else { return nil }
        let string = String(decoding: text, as: UTF8.self)
        if isFloat { return Double(string).map(TOMLValue.float) }
        return Int64(string).map(TOMLValue.integer)
    }

    /// Digits of `radix` with single underscores between them; the digits alone, or nil.
    static func digitsWithUnderscores(_ part: ArraySlice<UInt8>, radix: Int) -> [UInt8]? {
        var out: [UInt8] = []
        var previousWasDigit = false
        for b in part {
            if b == UInt8(ascii: "_") {
                guard previousWasDigit else { return nil }
                previousWasDigit = false
                continue
            }
            guard let d = hexValue(b), Int(d) < radix else { return nil }
            out.append(b)
            previousWasDigit = true
        }
        return previousWasDigit ? out : nil
    }

    /// A well-formed decimal or prefixed integer too large for 64 bits.
    static func isIntegerOverflow(_ token: [UInt8]) -> Bool {
        var body = token[...]
        let signed = body.first == UInt8(ascii: "+") || body.first == UInt8(ascii: "-")
        if signed { body = body.dropFirst() }
        if !signed, body.count > 2, body.first == UInt8(ascii: "0"), let r = body.dropFirst().first,
            r == UInt8(ascii: "x") || r == UInt8(ascii: "o") || r == UInt8(ascii: "b")
        {
            return digitsWithUnderscores(body.dropFirst(2), radix: r == UInt8(ascii: "x") ? 16 : r == UInt8(ascii: "o") ? 8 : 2) != nil
        }
        guard let digits = digitsWithUnderscores(body, radix: 10) else { return false }
        return digits.first != UInt8(ascii: "0")
    }

    // MARK: Dates and times

    /// "Offset Date-Time", "Local Date-Time", "Local Date", "Local Time" (RFC 3339 with a space
    /// allowed between date and time); nil, consuming nothing, when the cursor is not at one.
    mutating func dateTime() throws(TOMLError) -> TOMLDateTime? {
        let start = p
        func digits(_ at: Int, _ n: Int) -> Int? {
            var value = 0
            for i in at..<(at + n) {
                guard let b = byte(at: i), isDigit(b) else { return nil }
                value = value * 10 + Int(b - 0x30)
            }
            return value
        }
        func isDigit(_ b: UInt8) -> Bool { Self.isDigit(b) }
        let isDate = digits(p, 4) != nil && byte(at: p + 4) == UInt8(ascii: "-")
        let isTime = digits(p, 2) != nil && byte(at: p + 2) == UInt8(ascii: ":")
        guard isDate || isTime else { return nil }
        let here = position(start)
        func invalid(_ why: String) -> TOMLError { TOMLError(.invalidDateTime, at: here, why) }
        var kind = TOMLDateTime.Kind.localTime
        if isDate {
            guard let year = digits(p, 4), let month = digits(p + 5, 2), byte(at: p + 7) == UInt8(ascii: "-"), let day = digits(p + 8, 2) else {
                throw invalid("a date is written YYYY-MM-DD")
            }
            guard (1...12).contains(month), day >= 1, day <= Self.daysIn(month: month, year: year) else { throw invalid("not a real date") }
            p += 10
            kind = .localDate
            let separator = current
            let timeFollows =
                separator == UInt8(ascii: "T") || separator == UInt8(ascii: "t")
                || (separator == 0x20 && digits(p + 1, 2) != nil && byte(at: p + 3) == UInt8(ascii: ":"))
            guard timeFollows else { return finishDateTime(kind, from: start) }
            p += 1
            kind = .localDateTime
        }
        guard let hour = digits(p, 2), byte(at: p + 2) == UInt8(ascii: ":"), let minute = digits(p + 3, 2), byte(at: p + 5) == UInt8(ascii: ":"),
            let second = digits(p + 6, 2)
        else { throw invalid("a time is written HH:MM:SS") }
        guard hour < 24, minute < 60, second <= 60 else { throw invalid("not a real time of day") }
        p += 8
        if current == UInt8(ascii: ".") {
            p += 1
            guard let b = current, isDigit(b) else { throw invalid("fractional seconds need a digit") }
            while let b = current, isDigit(b) { p += 1 }
        }
        if kind == .localDateTime {
            switch current {
            case UInt8(ascii: "Z"), UInt8(ascii: "z"):
                p += 1
                kind = .offsetDateTime
            case UInt8(ascii: "+"), UInt8(ascii: "-"):
                guard let h = digits(p + 1, 2), byte(at: p + 3) == UInt8(ascii: ":"), let m = digits(p + 4, 2), h < 24, m < 60 else {
                    throw invalid("an offset is written +HH:MM or -HH:MM")
                }
                p += 6
                kind = .offsetDateTime
            default: break
            }
        }
        return finishDateTime(kind, from: start)
    }

    func finishDateTime(_ kind: TOMLDateTime.Kind, from start: Int) -> TOMLDateTime {
        TOMLDateTime(kind: kind, text: String(decoding: bytes[start..<p], as: UTF8.self))
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    // MARK: Bytes

    static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }

    static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case 0x30...0x39: b - 0x30
        case 0x41...0x46: b - 0x41 + 10
        case 0x61...0x66: b - 0x61 + 10
        default: nil
        }
    }

    /// U+0000–U+0008, U+000A–U+001F and U+007F: not permitted in comments and strings (a tab
    /// is; newlines only where the grammar takes them).
    static func isControl(_ b: UInt8) -> Bool { (b < 0x20 && b != 0x09) || b == 0x7F }

    /// The offset of the first byte that is not well-formed UTF-8 (RFC 3629 §4), or nil.
    static func firstInvalidUTF8(_ bytes: [UInt8]) -> Int? {
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b < 0x80 {
                i += 1
                continue
            }
            let (count, low, high): (Int, UInt8, UInt8)
            switch b {
            case 0xC2...0xDF: (count, low, high) = (2, 0x80, 0xBF)
            case 0xE0: (count, low, high) = (3, 0xA0, 0xBF)
            case 0xED: (count, low, high) = (3, 0x80, 0x9F)
            case 0xE1...0xEF: (count, low, high) = (3, 0x80, 0xBF)
            case 0xF0: (count, low, high) = (4, 0x90, 0xBF)
            case 0xF4: (count, low, high) = (4, 0x80, 0x8F)
            case 0xF1...0xF3: (count, low, high) = (4, 0x80, 0xBF)
            default: return i
            }
            guard i + count <= bytes.count, bytes[i + 1] >= low, bytes[i + 1] <= high else { return i }
            for k in 2..<count where bytes[i + k] & 0xC0 != 0x80 { return i }
            i += count
        }
        return nil
    }

    // MARK: The result

    /// The finished tree as values, each with the position of its key or header; `depth`
    /// bounds the recursion.
    func freeze(_ node: TableNode, depth: Int) throws(TOMLError) -> TOMLTable {
        guard depth <= 2 * TOMLLimits.maximumDepth else { throw fail(.nestingTooDeep, "tables nested too deep", at: node.offset) }
        var table = TOMLTable()
        for key in node.keys {
            guard let slot = node.slots[key] else { continue }
            switch slot {
            case .value(let value, let offset):
                table.set(key, TOMLEntry(value: value, position: position(offset)))
            case .table(let child):
                table.set(key, TOMLEntry(value: .table(try freeze(child, depth: depth + 1)), position: position(child.offset)))
            case .arrayOfTables(let elements, let offset):
                var values: [TOMLEntry] = []
                for element in elements {
                    values.append(TOMLEntry(value: .table(try freeze(element, depth: depth + 1)), position: position(element.offset)))
                }
                table.set(key, TOMLEntry(value: .array(values), position: position(offset)))
            }
        }
        return table
    }
}
