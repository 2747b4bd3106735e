/// RFC 5545 §3.3.11 TEXT values.
enum TextValue {
    /// `\n` or `\N` is a line break; `\\`, `\;`, `\,` the character. A backslash before any
    /// other character, or at the end, is kept as written (lenient: senders write `\:`).
    static func unescape(_ value: String) -> String {
        guard value.utf8.contains(0x5C) else { return value }
        var out: [UInt8] = []
        out.reserveCapacity(value.utf8.count)
        var escaping = false
        for byte in value.utf8 {
            if escaping {
                switch byte {
                case 0x6E, 0x4E: out.append(0x0A)
                case 0x5C, 0x3B, 0x2C: out.append(byte)
                default: out += [0x5C, byte]
                }
                escaping = false
            } else if byte == 0x5C {
                escaping = true
            } else {
                out.append(byte)
            }
        }
        if escaping { out.append(0x5C) }
        return String(decoding: out, as: UTF8.self)
    }

    /// The values of a TEXT list (RFC 5545 §3.1.1): split at commas not escaped.
    static func list(_ value: String) -> [String] {
        var parts: [String] = []
        var current: [UInt8] = []
        var escaping = false
        for byte in value.utf8 {
            if escaping {
                current += [0x5C, byte]
                escaping = false
            } else if byte == 0x5C {
                escaping = true
            } else if byte == 0x2C {
                parts.append(unescape(String(decoding: current, as: UTF8.self)))
                current = []
            } else {
                current.append(byte)
            }
        }
        if escaping { current.append(0x5C) }
        parts.append(unescape(String(decoding: current, as: UTF8.self)))
        return parts
    }
}
