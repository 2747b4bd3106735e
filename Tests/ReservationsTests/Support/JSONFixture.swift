import JSON
import Markup
import Reservations

/// A small RFC 8259 reader for test fixtures that keeps member order (Foundation's
/// JSONSerialization does not), so fixtures read like the markup senders write.
enum JSONFixture {
    struct Invalid: Error {}

    static func parse(_ text: String) throws -> JSONValue {
        var reader = Reader(scalars: Array(text.unicodeScalars))
        let value = try reader.value()
        reader.skipSpace()
        guard reader.index == reader.scalars.count else { throw Invalid() }
        return value
    }

    /// The items as the markup stage would hand them over (JSON-LD).
    static func items(_ texts: String...) throws -> [StructuredItem] {
        try texts.map { StructuredItem(value: try parse($0), source: .jsonLD) }
    }

    /// Reads fixtures and returns the extraction, with `now` as given.
    static func read(_ texts: String..., now: Int64? = nil) throws -> ReservationExtraction {
        ReservationReader.read(try texts.map { StructuredItem(value: try parse($0), source: .jsonLD) }, now: now)
    }

    private struct Reader {
        let scalars: [Unicode.Scalar]
        var index = 0

        mutating func skipSpace() {
            while index < scalars.count, [" ", "\n", "\r", "\t"].contains(scalars[index]) { index += 1 }
        }

        mutating func expect(_ s: String) throws {
            for c in s.unicodeScalars {
                guard index < scalars.count, scalars[index] == c else { throw Invalid() }
                index += 1
            }
        }

        mutating func value() throws -> JSONValue {
            skipSpace()
            guard index < scalars.count else { throw Invalid() }
            switch scalars[index] {
            case "{":
                index += 1
                var pairs: [(String, JSONValue)] = []
                skipSpace()
                if index < scalars.count, scalars[index] == "}" {
                    index += 1
                    return .object(JSONObject(pairs: pairs))
                }
                while true {
                    skipSpace()
                    let key = try string()
                    skipSpace()
                    try expect(":")
                    pairs.append((key, try value()))
                    skipSpace()
                    if index < scalars.count, scalars[index] == "," {
                        index += 1
                        continue
                    }
                    try expect("}")
                    return .object(JSONObject(pairs: pairs))
                }
            case "[":
                index += 1
                var items: [JSONValue] = []
                skipSpace()
                if index < scalars.count, scalars[index] == "]" {
                    index += 1
                    return .array(items)
                }
                while true {
                    items.append(try value())
                    skipSpace()
                    if index < scalars.count, scalars[index] == "," {
                        index += 1
                        continue
                    }
                    try expect("]")
                    return .array(items)
                }
            case "\"": return .string(try string())
            case "t":
                try expect("true")
                return .bool(true)
            case "f":
                try expect("false")
                return .bool(false)
            case "n":
                try expect("null")
                return .null
            default:
                var text = ""
                while index < scalars.count, "+-0123456789.eE".unicodeScalars.contains(scalars[index]) {
                    text.unicodeScalars.append(scalars[index])
                    index += 1
                }
                guard let number = Double(text) else { throw Invalid() }
                return .number(number)
            }
        }

        mutating func string() throws -> String {
            try expect("\"")
            var out = ""
            while index < scalars.count {
                let c = scalars[index]
                index += 1
                switch c {
                case "\"": return out
                case "\\":
                    guard index < scalars.count else { throw Invalid() }
                    let e = scalars[index]
                    index += 1
                    switch e {
                    case "n": out += "\n"
                    case "t": out += "\t"
                    case "r": out += "\r"
                    case "b": out += "\u{8}"
                    case "f": out += "\u{C}"
                    case "u":
                        guard index + 4 <= scalars.count,
                            let code = UInt32(String(String.UnicodeScalarView(scalars[index..<(index + 4)])), radix: 16),
                            let scalar = Unicode.Scalar(code)
                        else { throw Invalid() }
                        index += 4
                        out.unicodeScalars.append(scalar)
                    default: out.unicodeScalars.append(e)
                    }
                default: out.unicodeScalars.append(c)
                }
            }
            throw Invalid()
        }
    }
}

extension Reservation {
    func detail(_ label: String) -> String? {
        details.first { $0.label == label }?.value
    }
}

extension ReservationExtraction {
    var codes: [String] { diagnostics.map(\.code.rawValue) }
}
