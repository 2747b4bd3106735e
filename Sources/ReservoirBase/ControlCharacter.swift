/// A code point that some reader of text output acts on instead of showing: a line or
/// paragraph break, or a control character. Text from mail (an event title a ticket platform's
/// organizer typed, a guest's name) may hold any of them; every writer of an output format
/// (iCalendar, JSON, HTML, a mail header field) passes text through its own escape, which folds
/// or escapes each of these, so no reader splits a line where the writer did not.
public enum ControlCharacter: Sendable, Equatable {
    /// A line end for some reader: LF, VT, FF, CR, the information separators FS, GS and RS,
    /// NEL, LINE SEPARATOR and PARAGRAPH SEPARATOR — every code point Python's
    /// `str.splitlines()` splits at (Unicode's mandatory breaks, UAX #14 classes BK, CR, LF and
    /// NL), which vdirsyncer's collection reader and many others use.
    case lineBreak
    /// Any other C0 control (U+0000–U+001F, TAB included), DEL, or C1 control (U+0080–U+009F).
    case control

    /// The kind of `scalar`, or nil for a code point that is text.
    @inline(__always)
    public init?(_ scalar: Unicode.Scalar) {
        switch scalar.value {
        case 0x0A...0x0D, 0x1C...0x1E, 0x85, 0x2028, 0x2029: self = .lineBreak
        case 0x00...0x1F, 0x7F...0x9F: self = .control
        default: return nil
        }
    }

    /// Whether `text` holds no code point of either kind, decided on its UTF-8 bytes: C0
    /// controls and DEL are single bytes, C1 controls start with C2, and U+2028 and U+2029
    /// with E2 80. Most text has none.
    public static func isAbsent(in text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            var i = 0
            while i < bytes.count {
                let byte = bytes[i]
                if byte < 0x20 || byte == 0x7F { return false }
                if byte == 0xC2, i + 1 < bytes.count, bytes[i + 1] <= 0x9F { return false }
                if byte == 0xE2, i + 2 < bytes.count, bytes[i + 1] == 0x80, bytes[i + 2] == 0xA8 || bytes[i + 2] == 0xA9 { return false }
                i += 1
            }
            return true
        }
    }
}
