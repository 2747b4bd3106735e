import JSON
import Markup

/// A schema.org item (a JSON-LD object, or Microdata in the same shape) with lenient readers:
/// schema.org allows one value or several wherever it allows one, text where a Thing is
/// expected, and senders add `{"@value": …}` wrappers.
struct SchemaNode {
    let object: JSONObject

    init(_ object: JSONObject) {
        self.object = object
    }

    init?(_ value: JSONValue?) {
        guard let object = value?.objectValue else { return nil }
        self.object = object
    }

    /// `@type` as local names, in order (a string or an array of strings).
    var types: [String] {
        (object["@type"]?.listValue ?? []).compactMap { $0.stringValue }.map(SchemaVocabulary.name)
    }

    func has(_ key: String) -> Bool {
        guard let value = object[key] else { return false }
        return !value.listValue.isEmpty
    }

    /// Every value of a property, arrays flattened one level.
    func values(_ key: String) -> [JSONValue] { object[key]?.listValue ?? [] }

    /// The first text among `keys`: strings, numbers, `{"@value": …}`, and `{"@id": …}`
    /// (a Microdata `link` or a JSON-LD reference). Whitespace is collapsed; empty text is none.
    func text(_ keys: String...) -> String? { text(keys) }

    func text(_ keys: [String]) -> String? {
        for key in keys {
            for value in values(key) {
                if let s = Self.text(of: value) { return s }
            }
        }
        return nil
    }

    /// The first object value of a property.
    func node(_ key: String) -> SchemaNode? {
        values(key).lazy.compactMap { SchemaNode($0) }.first
    }

    func nodes(_ key: String) -> [SchemaNode] {
        values(key).compactMap { SchemaNode($0) }
    }

    /// A Thing's name, or the property's own text when the sender wrote a string where a Thing
    /// belongs (`"airline": "Cascadia Air"`).
    func name(of key: String) -> String? {
        for value in values(key) {
            if let node = SchemaNode(value), let name = node.text("name") { return name }
            if let s = Self.text(of: value) { return s }
        }
        return nil
    }

    static func text(of value: JSONValue) -> String? {
        switch value {
        case .string, .number, .bool:
            return value.stringValue.flatMap(clean)
        case .object(let o):
            for key in ["@value", "@id"] {
                if let v = o[key], let s = v.stringValue.flatMap(clean) { return s }
            }
            return nil
        default:
            return nil
        }
    }

    /// Whitespace runs (line breaks included) become one space; cut at
    /// ``ReservationLimits/textLength`` characters.
    static func clean(_ s: String) -> String? {
        if isClean(s) { return s }
        var out = ""
        var pendingSpace = false
        for scalar in s.unicodeScalars {
            // ASCII decided without the Unicode property tables (most text is ASCII).
            let isSpaceOrControl =
                scalar.isASCII
                ? scalar.value <= 0x20 || scalar.value == 0x7F
                : scalar.properties.isWhitespace || scalar.properties.generalCategory == .control
            if isSpaceOrControl {
                pendingSpace = !out.isEmpty
                continue
            }
            if pendingSpace {
                out.unicodeScalars.append(" ")
                pendingSpace = false
            }
            out.unicodeScalars.append(scalar)
        }
        if out.isEmpty { return nil }
        if out.count > ReservationLimits.textLength { out = String(out.prefix(ReservationLimits.textLength)) + "…" }
        return out
    }

    /// Printable ASCII words separated by single spaces, within the length limit: what
    /// ``clean(_:)`` would return unchanged (most values), told on bytes.
    private static func isClean(_ s: String) -> Bool {
        let bytes = s.utf8
        guard !bytes.isEmpty, bytes.count <= ReservationLimits.textLength else { return false }
        var previousSpace = true
        for b in bytes {
            if b == 0x20 {
                if previousSpace { return false }
                previousSpace = true
            } else if b > 0x20, b < 0x7F {
                previousSpace = false
            } else {
                return false
            }
        }
        return !previousSpace
    }
}
