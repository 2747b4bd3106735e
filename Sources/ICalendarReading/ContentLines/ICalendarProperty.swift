/// One parameter of a content line (RFC 5545 §3.2): its name in upper case, and its values
/// (several when comma-separated), each without its quotes and with RFC 6868's `^n`, `^^`
/// and `^'` decoded.
public struct ICalendarParameter: Sendable, Equatable {
    public var name: String
    public var values: [String]

    public init(name: String, values: [String]) {
        self.name = name
        self.values = values
    }
}

/// One content line (RFC 5545 §3.1): `name *(";" param) ":" value`. The name is upper-cased;
/// the value is kept as written (still escaped): its type decides how it is read.
public struct ICalendarProperty: Sendable, Equatable {
    public var name: String
    public var parameters: [ICalendarParameter]
    public var value: String
    /// The physical line (1-based) the content line starts on.
    public var line: Int

    public init(name: String, parameters: [ICalendarParameter] = [], value: String, line: Int = 0) {
        self.name = name
        self.parameters = parameters
        self.value = value
        self.line = line
    }

    /// The first value of the parameter `name` (upper case), if present.
    public func parameter(_ name: String) -> String? {
        parameters.first { $0.name == name }?.values.first
    }

    /// The value as TEXT (RFC 5545 §3.3.11): `\n`/`\N` a line break, `\,` `\;` `\\` the
    /// character; a backslash before anything else is kept (lenient).
    public var text: String { TextValue.unescape(value) }
}

/// Reads one unfolded content line into an ``ICalendarProperty``: the one content-line reader
/// of the package, for the calendar reader and the calendar merge (`ICalendar`) alike.
package enum ContentLineParser {
    package enum Outcome {
        case property(ICalendarProperty, droppedParameters: Bool)
        case malformed(String)
    }

    package static func parse(_ line: UnfoldedLine) -> Outcome {
        let bytes = line.bytes
        var i = 0
        // RFC 5545 §3.1: name = iana-token / x-name, letters, digits and "-".
        while i < bytes.count, isNameByte(bytes[i]) { i += 1 }
        guard i > 0 else { return .malformed("a content line must start with a property name") }
        let name = String(decoding: bytes[0..<i], as: UTF8.self).uppercased()
        var parameters: [ICalendarParameter] = []
        var dropped = false
        while i < bytes.count, bytes[i] == 0x3B {  // ";"
            i += 1
            let nameStart = i
            while i < bytes.count, isNameByte(bytes[i]) { i += 1 }
            guard i > nameStart, i < bytes.count, bytes[i] == 0x3D else {  // "="
                return .malformed("parameter of \(name) without a name or \"=\"")
            }
            let parameterName = String(decoding: bytes[nameStart..<i], as: UTF8.self).uppercased()
            i += 1
            var values: [String] = []
            while true {
                guard let (value, next) = parameterValue(bytes, from: i) else {
                    return .malformed("unterminated quoted value of parameter \(parameterName)")
                }
                values.append(value)
                i = next
                guard i < bytes.count, bytes[i] == 0x2C else { break }  // "," another value
                i += 1
            }
            if parameters.count < ICalendarLimits.maximumParameters {
                parameters.append(ICalendarParameter(name: parameterName, values: values))
            } else {
                dropped = true
            }
        }
        guard i < bytes.count, bytes[i] == 0x3A else { return .malformed("\(name) has no \":\" before its value") }
        let value = String(decoding: bytes[(i + 1)...], as: UTF8.self)
        return .property(ICalendarProperty(name: name, parameters: parameters, value: value, line: line.number), droppedParameters: dropped)
    }

    /// RFC 5545 §3.1: param-value = paramtext / quoted-string. A quoted string ends at the next
    /// DQUOTE; unquoted text at ";", ":" or ",".
    private static func parameterValue(_ bytes: [UInt8], from start: Int) -> (String, Int)? {
        var i = start
        if i < bytes.count, bytes[i] == 0x22 {
            i += 1
            guard let close = bytes[i...].firstIndex(of: 0x22) else { return nil }
            return (caretDecoded(bytes[i..<close]), close + 1)
        }
        while i < bytes.count, bytes[i] != 0x3B, bytes[i] != 0x3A, bytes[i] != 0x2C { i += 1 }
        return (caretDecoded(bytes[start..<i]), i)
    }

    /// RFC 6868 §3: `^n` a line break, `^^` a caret, `^'` a double quote; any other `^` stays.
    private static func caretDecoded(_ bytes: ArraySlice<UInt8>) -> String {
        guard bytes.contains(0x5E) else { return String(decoding: bytes, as: UTF8.self) }
        var out: [UInt8] = []
        var i = bytes.startIndex
        while i < bytes.endIndex {
            if bytes[i] == 0x5E, i + 1 < bytes.endIndex {
                switch bytes[i + 1] {
                case 0x6E: out.append(0x0A)
                case 0x5E: out.append(0x5E)
                case 0x27: out.append(0x22)
                default:
                    out.append(0x5E)
                    i += 1
                    continue
                }
                i += 2
                continue
            }
            out.append(bytes[i])
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func isNameByte(_ b: UInt8) -> Bool {
        (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39) || b == 0x2D
    }
}
