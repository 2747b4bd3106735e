import ReservoirBase

/// The schema.org vocabulary's names, one rule for every stage.
public enum SchemaOrg {
    /// The bare schema.org name of a type or property written as `http://schema.org/X`,
    /// `https://schema.org/X/`, `http://www.schema.org/X`, `schema:X` or plain `X`;
    /// nil for another vocabulary's URL or for text that is not a name.
    public static func localName(_ type: String) -> String? {
        if let name = plainName(type) { return name }
        var text = Substring(type.trimmingASCII(ASCII.isHTMLWhiteSpace))
        let rest = afterPrefix(text)
        if let rest { text = rest }
        if rest == nil, text.contains(":") || text.contains("/") { return nil }
        while text.hasSuffix("/") { text = text.dropLast() }
        guard let first = text.unicodeScalars.first, isLetter(first),
            text.unicodeScalars.allSatisfy({ isLetter($0) || ("0"..."9").contains($0) || $0 == "_" })
        else { return nil }
        return String(text)
    }

    /// The common case on bytes: an ASCII name (a letter, then letters, digits and `_`) with no
    /// prefix, white space or slash, returned as it is; nil for anything else, which the
    /// general rule reads. Asked for every type and status a message holds.
    static func plainName(_ type: String) -> String? {
        let plain: Bool? = type.utf8.withContiguousStorageIfAvailable { bytes in
            guard let first = bytes.first, ASCII.isLetter(first) else { return false }
            return bytes.allSatisfy { ASCII.isLetter($0) || ASCII.isDigit($0) || $0 == UInt8(ascii: "_") }
        }
        return plain == true ? type : nil
    }

    /// A letter of a name: ASCII on bytes (every schema.org name), Unicode's Alphabetic property
    /// otherwise (a property lookup per scalar cost a scan 1.7% of its time).
    static func isLetter(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII ? ASCII.isLetter(UInt8(scalar.value)) : scalar.properties.isAlphabetic
    }

    /// The text after a schema.org prefix (`http(s)://(www.)schema.org/` or `schema:`, ASCII
    /// letters in any case), or nil without one. On bytes: asked for every type and key.
    package static func afterPrefix(_ text: Substring) -> Substring? {
        for prefix in prefixes
        where text.utf8.count >= prefix.count && zip(text.utf8, prefix).allSatisfy({ ASCII.lowercased($0) == $1 }) {
            // The prefixes are ASCII: the index after them falls between characters.
            return text[text.utf8.index(text.startIndex, offsetBy: prefix.count)...]
        }
        return nil
    }

    private static let prefixes: [[UInt8]] = [
        "https://www.schema.org/", "http://www.schema.org/", "https://schema.org/", "http://schema.org/", "schema:",
    ].map { Array($0.utf8) }
}

extension Unicode.Scalar {
    /// HTML's ASCII whitespace: TAB, LF, FF, CR, SPACE.
    var isASCIIWhitespace: Bool {
        value == 0x20 || value == 0x09 || value == 0x0A || value == 0x0C || value == 0x0D
    }
}
