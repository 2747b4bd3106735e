/// What one JSON text yields: its top-level values in order, and every repair or loss.
public struct JSONReading: Sendable {
    public var values: [JSONValue]
    public var diagnostics: [JSONDiagnostic]
    /// True when part of the text could not be read (`json-unrecoverable`); values read before the
    /// failure are kept.
    public var failed: Bool
}

/// An RFC 8259 reader over bytes that also accepts what senders of reservation mail break:
/// missing or trailing commas, values back to back at the top level, raw line breaks and tabs
/// in strings, single-quoted strings, unquoted member names and comments. Each repair is
/// reported as `json-repaired` with its line and column.
///
/// The reader never recurses: containers live on an explicit stack capped at
/// `JSONLimits.maximumDepth`, so hostile nesting costs linear time and no stack.
public struct TolerantJSONReader {
    private let bytes: [UInt8]
    private var position = 0
    private var diagnostics: [JSONDiagnostic] = []
    private var repairs = 0
    private var failed = false
    private var tooDeepValues = 0
    /// Where line counting stopped: an offset, the line it is on, and that line's start.
    private var lineCount: (offset: Int, line: Int, lineStart: Int) = (0, 1, 0)

    /// A container being read: the values or members so far and, in an object, the name
    /// waiting for its value.
    private struct Frame {
        var isObject: Bool
        var elements: [JSONValue] = []
        var members: [JSONObject.Member] = []
        var pendingKey = ""

        var closer: UInt8 { isObject ? UInt8(ascii: "}") : UInt8(ascii: "]") }

        func value() -> JSONValue {
            isObject ? .object(JSONObject(uniquing: members)) : .array(elements)
        }
    }

    /// Whether a quotation mark that cannot end a string is read as part of it. Only a second
    /// reading turns this on, so JSON that reads without it is never re-interpreted.
    private let keepsInnerQuotes: Bool

    private init(bytes: [UInt8], keepsInnerQuotes: Bool) {
        self.bytes = bytes
        self.keepsInnerQuotes = keepsInnerQuotes
    }

    /// Every top-level value of `bytes`, with diagnostics. Never throws, never traps.
    public static func read(_ bytes: [UInt8]) -> JSONReading {
        guard bytes.count <= JSONLimits.maximumBytes else {
            return JSONReading(
                values: [],
                diagnostics: [
                    JSONDiagnostic(
                        code: .tooLarge,
                        message: "a JSON text of \(bytes.count) bytes exceeds the limit of \(JSONLimits.maximumBytes) bytes; it is skipped")
                ],
                failed: true)
        }
        var reader = TolerantJSONReader(bytes: bytes, keepsInnerQuotes: false)
        var values = reader.readTopLevel()
        if reader.failed {
            var retry = TolerantJSONReader(bytes: bytes, keepsInnerQuotes: true)
            let retried = retry.readTopLevel()
            if !retry.failed {
                reader = retry
                values = retried
            }
        }
        if reader.tooDeepValues > 1 {
            reader.diagnostics.append(
                JSONDiagnostic(
                    code: .tooDeep, message: "\(reader.tooDeepValues - 1) more values nested too deep dropped"))
        }
        if reader.repairs > JSONLimits.maximumRepairDiagnostics {
            reader.diagnostics.append(
                JSONDiagnostic(
                    code: .repaired,
                    message: "\(reader.repairs - JSONLimits.maximumRepairDiagnostics) more repairs not listed"))
        }
        return JSONReading(values: values, diagnostics: reader.diagnostics, failed: reader.failed)
    }

    // MARK: - Top level

    private mutating func readTopLevel() -> [JSONValue] {
        var values: [JSONValue] = []
        var readAny = false
        skipInsignificant()
        while position < bytes.count {
            if readAny {
                let byte = bytes[position]
                if byte == UInt8(ascii: ",") || byte == UInt8(ascii: ";") {
                    repair("'\(Character(Unicode.Scalar(byte)))' between top-level values removed", at: position)
                    position += 1
                    skipInsignificant()
                    continue
                }
                guard Self.startsValue(byte) else {
                    fail("unexpected \(describe(at: position)) after the JSON value", at: position)
                    break
                }
                repair("values back to back at the top level read one by one", at: position)
            }
            let start = position
            switch readValue() {
            case .value(let value):
                values.append(value)
            case .tooDeep:
                position = start
                skipBalanced()
            case .failed:
                return values
            }
            readAny = true
            skipInsignificant()
        }
        return values
    }

    private enum Outcome {
        case value(JSONValue)
        case tooDeep
        case failed
    }

    /// One value, containers included, read with an explicit stack.
    private mutating func readValue() -> Outcome {
        var stack: [Frame] = []
        while true {
            // Expecting a value.
            skipInsignificant()
            guard position < bytes.count else {
                fail("unexpected end of input, a value is missing", at: position)
                return .failed
            }
            var completed: JSONValue
            let byte = bytes[position]
            if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
                guard stack.count < JSONLimits.maximumDepth else {
                    tooDeepValues += 1
                    if tooDeepValues == 1 {
                        diagnostics.append(
                            JSONDiagnostic(
                                code: .tooDeep,
                                message: "nesting deeper than \(JSONLimits.maximumDepth) levels \(location(of: position)); the value is dropped"))
                    }
                    return .tooDeep
                }
                let isObject = byte == UInt8(ascii: "{")
                position += 1
                stack.append(Frame(isObject: isObject))
                skipInsignificant()
                if position < bytes.count, bytes[position] == stack[stack.count - 1].closer {
                    position += 1
                    completed = stack.removeLast().value()
                } else if isObject {
                    guard readMemberName(into: &stack[stack.count - 1]) else { return .failed }
                    continue
                } else {
                    continue
                }
            } else {
                guard let scalar = readScalar() else { return .failed }
                completed = scalar
            }

            // Attach the value to its container; close every container that ends here.
            attaching: while true {
                guard !stack.isEmpty else { return .value(completed) }
                let top = stack.count - 1
                if stack[top].isObject {
                    stack[top].members.append(JSONObject.Member(key: stack[top].pendingKey, value: completed))
                } else {
                    stack[top].elements.append(completed)
                }
                skipInsignificant()
                guard position < bytes.count else {
                    fail("unexpected end of input, '\(Character(Unicode.Scalar(stack[top].closer)))' is missing", at: position)
                    return .failed
                }
                let next = bytes[position]
                let isObject = stack[top].isObject
                if next == UInt8(ascii: ",") {
                    position += 1
                    skipInsignificant()
                    if position < bytes.count, bytes[position] == stack[top].closer {
                        repair("trailing comma removed", at: position - 1)
                        position += 1
                        completed = stack.removeLast().value()
                        continue attaching
                    }
                    if isObject {
                        guard readMemberName(into: &stack[top]) else { return .failed }
                    }
                    break attaching
                } else if next == stack[top].closer {
                    position += 1
                    completed = stack.removeLast().value()
                    continue attaching
                } else if isObject ? Self.startsMemberName(next) : Self.startsValue(next) {
                    // RFC 8259 §4, §5: members and elements are separated by commas.
                    repair("missing comma between \(isObject ? "members" : "array elements") inserted", at: position)
                    if isObject {
                        guard readMemberName(into: &stack[top]) else { return .failed }
                    }
                    break attaching
                } else {
                    fail("unexpected \(describe(at: position)) in \(isObject ? "an object" : "an array")", at: position)
                    return .failed
                }
            }
        }
    }

    /// A member name and its colon, stored as the frame's pending key.
    private mutating func readMemberName(into frame: inout Frame) -> Bool {
        skipInsignificant()
        guard position < bytes.count else {
            fail("unexpected end of input, a member name is missing", at: position)
            return false
        }
        let byte = bytes[position]
        if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
            guard let name = readString() else { return false }
            frame.pendingKey = name
        } else if Self.isIdentifierByte(byte) {
            let start = position
            while position < bytes.count, Self.isIdentifierByte(bytes[position]) { position += 1 }
            repair("unquoted member name quoted", at: start)
            frame.pendingKey = String(decoding: bytes[start..<position], as: UTF8.self)
        } else {
            fail("unexpected \(describe(at: position)) where a member name belongs", at: position)
            return false
        }
        skipInsignificant()
        guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else {
            fail("expected ':' after the member name \(location(of: position))", at: position, withLocation: false)
            return false
        }
        position += 1
        return true
    }

    // MARK: - Scalars

    private mutating func readScalar() -> JSONValue? {
        let byte = bytes[position]
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "'"):
            return readString().map(JSONValue.string)
        case UInt8(ascii: "t"):
            return readLiteral("true", .bool(true))
        case UInt8(ascii: "f"):
            return readLiteral("false", .bool(false))
        case UInt8(ascii: "n"):
            return readLiteral("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return readNumber()
        default:
            fail("unexpected \(describe(at: position)) where a value belongs", at: position)
            return nil
        }
    }

    private mutating func readLiteral(_ word: StaticString, _ value: JSONValue) -> JSONValue? {
        let count = word.utf8CodeUnitCount
        let literal = UnsafeBufferPointer(start: word.utf8Start, count: count)
        guard position + count <= bytes.count, bytes[position..<position + count].elementsEqual(literal) else {
            fail("unexpected \(describe(at: position)) where a value belongs", at: position)
            return nil
        }
        position += count
        return value
    }

    /// RFC 8259 §6: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`. Other spellings a
    /// floating-point parser accepts (leading zeros, "1.") are repaired.
    private mutating func readNumber() -> JSONValue? {
        let start = position
        while position < bytes.count, Self.isNumberByte(bytes[position]) { position += 1 }
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        guard let number = Double(text), number.isFinite else {
            fail("malformed number '\(text)'", at: start)
            return nil
        }
        if !Self.isStrictNumber(bytes[start..<position]) {
            repair("non-standard number '\(text)' read", at: start)
        }
        return .number(number)
    }

    private static func isStrictNumber(_ text: ArraySlice<UInt8>) -> Bool {
        var index = text.startIndex
        func digits() -> Int {
            let from = index
            while index < text.endIndex, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(text[index]) { index += 1 }
            return index - from
        }
        if index < text.endIndex, text[index] == UInt8(ascii: "-") { index += 1 }
        guard index < text.endIndex else { return false }
        if text[index] == UInt8(ascii: "0") { index += 1 } else if digits() == 0 { return false }
        if index < text.endIndex, text[index] == UInt8(ascii: ".") {
            index += 1
            if digits() == 0 { return false }
        }
        if index < text.endIndex, text[index] == UInt8(ascii: "e") || text[index] == UInt8(ascii: "E") {
            index += 1
            if index < text.endIndex, text[index] == UInt8(ascii: "+") || text[index] == UInt8(ascii: "-") { index += 1 }
            if digits() == 0 { return false }
        }
        return index == text.endIndex
    }

    /// A string in double quotes (RFC 8259 §7) or, repaired, in single quotes.
    private mutating func readString() -> String? {
        let start = position
        let quote = bytes[position]
        if quote == UInt8(ascii: "'") { repair("single-quoted string read", at: start) }
        position += 1
        var buffer: [UInt8] = []
        var firstInnerQuote: (offset: Int, length: Int)?
        while position < bytes.count {
            let byte = bytes[position]
            if let inner = firstInnerQuote,
                byte == 0x0A || position - inner.offset > JSONLimits.maximumUnescapedQuoteSpan
            {
                break
            }
            switch byte {
            case quote where keepsInnerQuotes && !endsString(after: position + 1):
                if firstInnerQuote == nil { firstInnerQuote = (position, buffer.count) }
                buffer.append(byte)
                position += 1
            case quote:
                if let inner = firstInnerQuote { repair("unescaped quotation mark in a string kept", at: inner.offset) }
                position += 1
                return decodedString(buffer, start: start)
            case UInt8(ascii: "\\"):
                guard readEscape(into: &buffer) else { return nil }
            case 0x0A, 0x0D:
                repair("unescaped line break in a string kept", at: position)
                buffer.append(byte)
                position += 1
            case 0x09:
                repair("unescaped tab in a string kept", at: position)
                buffer.append(byte)
                position += 1
            case 0x00..<0x20:
                repair("unescaped control character in a string kept", at: position)
                buffer.append(byte)
                position += 1
            default:
                // A run of ordinary bytes is copied at once (not past a possible inner quote's
                // span limit, which is counted byte by byte).
                var end = position + 1
                if firstInnerQuote == nil {
                    while end < bytes.count {
                        let next = bytes[end]
                        if next == quote || next == UInt8(ascii: "\\") || next < 0x20 { break }
                        end += 1
                    }
                }
                buffer.append(contentsOf: bytes[position..<end])
                position = end
            }
        }
        if let inner = firstInnerQuote {
            // The guess was wrong: the string ended at its first inner quotation mark.
            position = inner.offset + 1
            return decodedString(Array(buffer[..<inner.length]), start: start)
        }
        fail("unterminated string", at: start)
        return nil
    }

    private mutating func decodedString(_ buffer: [UInt8], start: Int) -> String {
        // ASCII (most strings) needs no validation.
        if !buffer.contains(where: { $0 >= 0x80 }) { return String(decoding: buffer, as: UTF8.self) }
        if let text = String(validating: buffer, as: UTF8.self) { return text }
        repair("invalid UTF-8 in a string replaced by U+FFFD", at: start)
        return String(decoding: buffer, as: UTF8.self)
    }

    /// Whether a quotation mark at `offset - 1` ends its string: only when what follows
    /// (after spaces) can follow a string. Otherwise it is a quotation mark the sender forgot
    /// to escape, as in `"name": "The "Best" Diner"`.
    private func endsString(after offset: Int) -> Bool {
        var index = offset
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 { index += 1 }
        guard index < bytes.count else { return true }
        switch bytes[index] {
        case UInt8(ascii: ","), UInt8(ascii: ":"), UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: "{"), UInt8(ascii: "["),
            UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "/"), UInt8(ascii: ";"), 0x0A, 0x0D, 0x0C, 0xC2, 0xEF:
            return true
        default:
            return false
        }
    }

    /// RFC 8259 §7 escapes; an unknown escape keeps its character (repaired).
    private mutating func readEscape(into buffer: inout [UInt8]) -> Bool {
        let start = position
        position += 1
        guard position < bytes.count else {
            fail("unterminated string", at: start)
            return false
        }
        let byte = bytes[position]
        position += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): buffer.append(byte)
        case UInt8(ascii: "b"): buffer.append(0x08)
        case UInt8(ascii: "f"): buffer.append(0x0C)
        case UInt8(ascii: "n"): buffer.append(0x0A)
        case UInt8(ascii: "r"): buffer.append(0x0D)
        case UInt8(ascii: "t"): buffer.append(0x09)
        case UInt8(ascii: "u"):
            guard let unit = readHex4() else {
                fail("malformed \\u escape", at: start)
                return false
            }
            var scalar: Unicode.Scalar?
            if (0xD800..<0xDC00).contains(unit) {
                // RFC 8259 §7: a character outside the BMP is a UTF-16 surrogate pair.
                let save = position
                if position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") {
                    position += 2
                    if let low = readHex4(), (0xDC00..<0xE000).contains(low) {
                        scalar = Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
                    } else {
                        position = save
                    }
                }
            } else {
                scalar = Unicode.Scalar(unit)
            }
            if scalar == nil { repair("lone surrogate replaced by U+FFFD", at: start) }
            UTF8.encode(scalar ?? "\u{FFFD}") { buffer.append($0) }
        default:
            repair("unknown escape '\\\(describe(byte))' read as the character", at: start)
            position -= 1
            return true
        }
        return true
    }

    private mutating func readHex4() -> UInt32? {
        guard position + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for byte in bytes[position..<position + 4] {
            guard let digit = Self.hexDigit(byte) else { return nil }
            value = value << 4 | digit
        }
        position += 4
        return value
    }

    // MARK: - Whitespace, comments, skipping

    /// RFC 8259 §2 whitespace; also comments, a byte order mark and no-break spaces (repaired).
    private mutating func skipInsignificant() {
        while position < bytes.count {
            let byte = bytes[position]
            switch byte {
            case 0x20, 0x09, 0x0A, 0x0D, 0x0C:
                position += 1
            case 0xEF where position + 2 < bytes.count && bytes[position + 1] == 0xBB && bytes[position + 2] == 0xBF:
                position += 3
            case 0xC2 where position + 1 < bytes.count && bytes[position + 1] == 0xA0:
                repair("no-break space outside strings ignored", at: position)
                position += 2
            case UInt8(ascii: "/") where position + 1 < bytes.count && bytes[position + 1] == UInt8(ascii: "/"):
                repair("comment removed", at: position)
                while position < bytes.count, bytes[position] != 0x0A, bytes[position] != 0x0D { position += 1 }
            case UInt8(ascii: "/") where position + 1 < bytes.count && bytes[position + 1] == UInt8(ascii: "*"):
                repair("comment removed", at: position)
                position += 2
                while position < bytes.count,
                    !(bytes[position] == UInt8(ascii: "*") && position + 1 < bytes.count && bytes[position + 1] == UInt8(ascii: "/"))
                {
                    position += 1
                }
                position = min(position + 2, bytes.count)
            default:
                return
            }
        }
    }

    /// Moves past the container starting at `position`, counting brackets outside strings,
    /// without building anything: how a too-deep value is dropped.
    private mutating func skipBalanced() {
        var depth = 0
        while position < bytes.count {
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth <= 0 {
                    position += 1
                    return
                }
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                position += 1
                while position < bytes.count, bytes[position] != byte {
                    if bytes[position] == UInt8(ascii: "\\") { position += 1 }
                    position += 1
                }
            default:
                break
            }
            position += 1
        }
        position = min(position, bytes.count)
    }

    // MARK: - Diagnostics

    private mutating func repair(_ what: String, at offset: Int) {
        repairs += 1
        guard repairs <= JSONLimits.maximumRepairDiagnostics else { return }
        diagnostics.append(JSONDiagnostic(code: .repaired, message: "\(what) \(location(of: offset))"))
    }

    private mutating func fail(_ what: String, at offset: Int, withLocation: Bool = true) {
        failed = true
        diagnostics.append(JSONDiagnostic(code: .unrecoverable, message: withLocation ? "\(what) \(location(of: offset))" : what))
    }

    /// "at line L, column C", both counted from 1, columns in bytes. Lines are counted on from
    /// the last position asked for, so reporting costs linear time over the whole text.
    private mutating func location(of offset: Int) -> String {
        let end = min(offset, bytes.count)
        if end < lineCount.offset { lineCount = (0, 1, 0) }
        var (index, line, lineStart) = lineCount
        while index < end {
            if bytes[index] == 0x0A {
                line += 1
                lineStart = index + 1
            }
            index += 1
        }
        lineCount = (end, line, lineStart)
        return "at line \(line), column \(end - lineStart + 1)"
    }

    private func describe(at offset: Int) -> String {
        offset < bytes.count ? "'\(describe(bytes[offset]))'" : "end of input"
    }

    private func describe(_ byte: UInt8) -> String {
        (0x21..<0x7F).contains(byte) ? String(Character(Unicode.Scalar(byte))) : "\\x" + String(byte, radix: 16)
    }

    // MARK: - Byte classes

    private static func startsValue(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "-"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
            true
        default:
            false
        }
    }

    private static func startsMemberName(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") || isIdentifierByte(byte)
    }

    private static func isIdentifierByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "_"), UInt8(ascii: "$"), UInt8(ascii: "@"):
            true
        default:
            false
        }
    }

    private static func isNumberByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."),
            UInt8(ascii: "e"), UInt8(ascii: "E"):
            true
        default:
            false
        }
    }

    private static func hexDigit(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }
}
