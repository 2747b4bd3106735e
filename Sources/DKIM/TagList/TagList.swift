import MIME
import ReservoirBase

/// A DKIM tag=value list (RFC 6376 §3.2), read from raw bytes.
///
/// Tag names are case-sensitive; values have surrounding FWS removed; unknown tags are kept
/// (callers ignore them, §3.2: "Unrecognized tags MUST be ignored").
package struct TagList: Equatable {
    package struct Tag: Equatable {
        package let name: String
        /// The value with leading and trailing white space (and folding) removed.
        package let value: String
        /// Where the raw value (between `=` and `;` or the end) lies in the parsed bytes.
        package let rawValueRange: Range<Int>
    }

    package enum ParseError: Swift.Error, Equatable, CustomStringConvertible {
        case missingEquals(String)
        case invalidTagName(String)
        case duplicateTag(String)

        package var description: String {
            switch self {
            case .missingEquals(let segment): "tag without '=': \(segment)"
            case .invalidTagName(let name): "invalid tag name \"\(name)\""
            case .duplicateTag(let name): "duplicate tag \(name)= (RFC 6376 §3.2)"
            }
        }
    }

    /// Most tags read from one list; the rest are ignored.
    static let maxTags = 64

    package let tags: [Tag]

    package subscript(name: String) -> String? {
        tags.first { $0.name == name }?.value
    }

    init(parsing text: String) throws(ParseError) {
        let bytes = Array(text.utf8)
        try self.init(bytes, in: 0..<bytes.count)
    }

    package init(_ bytes: [UInt8], in range: Range<Int>) throws(ParseError) {
        var tags: [Tag] = []
        var start = range.lowerBound
        while start <= range.upperBound, tags.count < Self.maxTags {
            var end = start
            while end < range.upperBound, bytes[end] != UInt8(ascii: ";") { end += 1 }
            let segment = Self.trimmed(bytes, start..<end)
            if !segment.isEmpty {
                guard let equals = bytes[segment].firstIndex(of: UInt8(ascii: "=")) else {
                    throw .missingEquals(String(decoding: bytes[segment], as: UTF8.self))
                }
                let nameRange = Self.trimmed(bytes, segment.lowerBound..<equals)
                let name = String(decoding: bytes[nameRange], as: UTF8.self)
                guard Self.isTagName(bytes[nameRange]) else { throw .invalidTagName(name) }
                guard !tags.contains(where: { $0.name == name }) else { throw .duplicateTag(name) }
                let valueRange = Self.trimmed(bytes, (equals + 1)..<end)
                tags.append(
                    Tag(
                        name: name, value: String(decoding: bytes[valueRange], as: UTF8.self),
                        rawValueRange: (equals + 1)..<end))
            }
            start = end + 1
        }
        self.tags = tags
    }

    /// §3.2: tag-name = ALPHA *ALNUMPUNC (letters, digits, underscore).
    static func isTagName(_ name: ArraySlice<UInt8>) -> Bool {
        guard let first = name.first, ASCII.isLetter(first) else { return false }
        return name.allSatisfy { ASCII.isLetter($0) || ASCII.isDigit($0) || $0 == UInt8(ascii: "_") }
    }

    static func isWhitespace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0D || b == 0x0A }

    static func trimmed(_ bytes: [UInt8], _ range: Range<Int>) -> Range<Int> {
        var lower = range.lowerBound
        var upper = range.upperBound
        while lower < upper, isWhitespace(bytes[lower]) { lower += 1 }
        while upper > lower, isWhitespace(bytes[upper - 1]) { upper -= 1 }
        return lower..<upper
    }

    /// The value with every white space character removed (for base64 values and lists).
    package static func withoutWhitespace(_ value: String) -> String {
        var value = value
        let stripped: String? = value.withUTF8 { bytes in
            guard bytes.contains(where: isWhitespace) else { return nil }
            return String(decoding: bytes.filter { !isWhitespace($0) }, as: UTF8.self)
        }
        return stripped ?? value
    }

    /// The items of a colon-separated list (h=, q=) with white space removed and letters
    /// lowercased. Like `split(separator: ":")`, nothing is made of two adjacent colons; an
    /// item of white space only gives an empty string. On bytes: h= lists a dozen names in
    /// every signature.
    static func lowercasedList(_ value: String) -> [String] {
        var value = value
        return value.withUTF8 { bytes in
            var items: [String] = []
            var item: [UInt8] = []
            var start = 0
            while start < bytes.count {
                var end = start
                while end < bytes.count, bytes[end] != UInt8(ascii: ":") { end += 1 }
                if end > start {
                    item.removeAll(keepingCapacity: true)
                    var ascii = true
                    for b in bytes[start..<end] where !isWhitespace(b) {
                        ascii = ascii && b < 0x80
                        item.append(ASCII.lowercased(b))
                    }
                    let text = String(decoding: item, as: UTF8.self)
                    items.append(ascii ? text : text.lowercased())
                }
                start = end + 1
            }
            return items
        }
    }
}
