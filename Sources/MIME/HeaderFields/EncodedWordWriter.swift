import ReservoirBase

/// RFC 2047 Q-encoded words for a UTF-8 text, never splitting a character across words: the
/// encoding side of RFC 2047, beside its decoder (``HeaderText``), for a header field a
/// program adds.
public enum EncodedWordWriter {
    /// The value as header words: ASCII words as they are, each run of words holding
    /// non-ASCII text as encoded words (the spaces inside a run are encoded too, since white
    /// space between adjacent encoded words is ignored when decoding, RFC 2047 §6.2). Every
    /// ``ControlCharacter`` (TAB, CR, LF, NEL, U+2028, U+2029…) separates words like a space:
    /// neither the field nor its decoded text holds a line break the value brought.
    public static func words(_ value: String) -> [String] {
        var value = value
        if !ControlCharacter.isAbsent(in: value) {
            var folded = String.UnicodeScalarView()
            for scalar in value.unicodeScalars { folded.append(ControlCharacter(scalar) == nil ? scalar : " ") }
            value = String(folded)
        }
        var out: [String] = []
        var run: [Substring] = []
        func flush() {
            if !run.isEmpty {
                out += encode(run.joined(separator: " "))
                run = []
            }
        }
        for word in value.split(separator: " ") {
            let plain = word.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F } && !(word.hasPrefix("=?") && word.hasSuffix("?="))
            if plain {
                flush()
                out.append(String(word))
            } else {
                run.append(word)
            }
        }
        flush()
        return out
    }

    /// RFC 2047 §2: "An 'encoded-word' may not be more than 75 characters long".
    public static let maxWordLength = 75
    static let prefix = "=?UTF-8?Q?"
    static let suffix = "?="

    static func encode(_ text: String) -> [String] {
        var words: [String] = []
        var current = ""
        let room = maxWordLength - prefix.count - suffix.count
        for character in text {
            var encoded = ""
            for byte in String(character).utf8 {
                // RFC 2047 §5(3): in a header text Q word, only letters, digits and !*+-/ pass as is.
                if (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || "!*+-/".utf8.contains(byte)
                {
                    encoded.unicodeScalars.append(Unicode.Scalar(byte))
                } else if byte == 0x20 {
                    encoded += "_"
                } else {
                    let hex = Array("0123456789ABCDEF".utf8)
                    encoded += "=" + String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 15)]], as: UTF8.self)
                }
            }
            if current.count + encoded.count > room, !current.isEmpty {
                words.append(prefix + current + suffix)
                current = ""
            }
            current += encoded
        }
        if !current.isEmpty { words.append(prefix + current + suffix) }
        return words
    }
}
