/// Text for a person's terminal, in which text from a message can only be shown, never obeyed.
///
/// A `String` enters only escaped (``escaped(_:)``): through string interpolation
/// (`"From \(name)"`) or ``init(escaping:)``. Literals written in the code and `BannerStyle`'s
/// colour codes are the only text taken as it is. So a display name, a Subject, a title from
/// markup, a domain or a reason holding `ESC [2K`, a carriage return or a bidi override
/// cannot erase, overwrite or reorder the lines around it: a forged "trusted" cannot be painted
/// over the real "NOT TRUSTED".
public struct TerminalText: Sendable, Equatable, ExpressibleByStringInterpolation, CustomStringConvertible {
    /// What is written to the terminal.
    public private(set) var text: String

    public var description: String { text }

    /// Text the program itself wrote: literals and colour codes.
    init(trusted text: String) {
        self.text = text
    }

    /// Text from anywhere else (a message, a file, the store), escaped.
    public init(escaping text: String) {
        self.text = Self.escaped(text)
    }

    public init(stringLiteral value: String) {
        text = value
    }

    public init(stringInterpolation: StringInterpolation) {
        text = stringInterpolation.text
    }

    public struct StringInterpolation: StringInterpolationProtocol {
        var text = ""

        public init(literalCapacity: Int, interpolationCount: Int) {
            text.reserveCapacity(literalCapacity + interpolationCount * 16)
        }

        public mutating func appendLiteral(_ literal: String) {
            text += literal
        }

        public mutating func appendInterpolation(_ value: TerminalText) {
            text += value.text
        }

        public mutating func appendInterpolation(_ value: String) {
            text += TerminalText.escaped(value)
        }

        public mutating func appendInterpolation(_ value: Substring) {
            text += TerminalText.escaped(String(value))
        }

        public mutating func appendInterpolation<Number: BinaryInteger>(_ value: Number) {
            text += String(value)
        }
    }

    public static func + (left: TerminalText, right: TerminalText) -> TerminalText {
        TerminalText(trusted: left.text + right.text)
    }

    public static func += (left: inout TerminalText, right: TerminalText) {
        left.text += right.text
    }

    public var isEmpty: Bool { text.isEmpty }

    /// `text` with every character that steers a terminal written out visibly, and nothing else
    /// changed (letters of every script, combining marks, emoji stay):
    /// - C0 controls and DEL (U+0000–U+001F, U+007F: ESC, CR, LF, TAB, NUL, backspace…) and C1
    ///   controls (U+0080–U+009F, CSI among them) as `\x1B`;
    /// - the bidirectional controls (Unicode's Bidi_Control, UAX #9 §2: U+061C, U+200E,
    ///   U+200F, U+202A–U+202E, U+2066–U+2069) and the line and paragraph separators
    ///   (U+2028, U+2029) as `\u{202E}`.
    /// Text with none of them comes back unchanged, without a copy.
    public static func escaped(_ text: String) -> String {
        guard needsEscape(text) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            if let escape = escape(for: scalar) {
                out += escape
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// The escape for a scalar a terminal would obey, or nil for one it shows.
    static func escape(for scalar: Unicode.Scalar) -> String? {
        let value = scalar.value
        switch value {
        case 0x00...0x1F, 0x7F...0x9F:
            return "\\x" + hex(value, digits: 2)
        case 0x061C, 0x200E, 0x200F, 0x2028...0x202E, 0x2066...0x2069:
            return "\\u{" + hex(value, digits: 4) + "}"
        default:
            return nil
        }
    }

    /// A UTF-8 byte that is, or begins, a scalar ``escape(for:)`` may escape: a C0 control or
    /// DEL, or the lead byte of U+0080–U+07FF (C2 for C1 controls, D8 for U+061C) or of
    /// U+2000–U+2FFF (E2). Most text has none, and is returned as it is.
    static func mayStartEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == 0x7F || byte == 0xC2 || byte == 0xD8 || byte == 0xE2
    }

    /// Whether `text` holds a scalar ``escape(for:)`` escapes, decided on its UTF-8 bytes: the
    /// banners' own `·`, `→` and `−` share lead bytes with the controls, and are passed.
    static func needsEscape(_ text: String) -> Bool {
        let found: Bool? = text.utf8.withContiguousStorageIfAvailable { bytes in
            var i = 0
            while i < bytes.count {
                let byte = bytes[i]
                if mayStartEscape(byte) {
                    let next = i + 1 < bytes.count ? bytes[i + 1] : 0
                    let third = i + 2 < bytes.count ? bytes[i + 2] : 0
                    switch byte {
                    case 0xC2 where next >= 0x80 && next <= 0x9F: return true  // U+0080–U+009F
                    case 0xD8 where next == 0x9C: return true  // U+061C
                    case 0xE2 where next == 0x80 && (third == 0x8E || third == 0x8F || (third >= 0xA8 && third <= 0xAE)):
                        return true  // U+200E, U+200F, U+2028–U+202E
                    case 0xE2 where next == 0x81 && third >= 0xA6 && third <= 0xA9: return true  // U+2066–U+2069
                    case 0xC2, 0xD8, 0xE2: break
                    default: return true  // C0 controls and DEL
                    }
                }
                i += 1
            }
            return false
        }
        return found ?? text.unicodeScalars.contains { escape(for: $0) != nil }
    }

    static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.utf8.count)) + text
    }
}
