/// RFC 5545 §3.3.11 TEXT as written: the one escape of every text an iCalendar writer puts in
/// a property value (the export's SUMMARY, LOCATION, DESCRIPTION and STRUCTURED-DATA, a
/// VTIMEZONE's TZNAME), so no writer can pass text around it.
public enum ICalendarText {
    /// Backslash, semicolon and comma are escaped, and a line break (CR, LF or CRLF) becomes
    /// `\n`, which a reader turns back into LF. Every other ``ControlCharacter`` but HTAB becomes
    /// a space: TEXT allows no other control (§3.3.11), and a reader that ends lines at VT, FF,
    /// FS, GS, RS, NEL, U+2028 or U+2029 (Python's `str.splitlines()`, as vdirsyncer reads a
    /// collection) would otherwise read lines the writer never wrote — `END:VEVENT`,
    /// `BEGIN:VEVENT`, a UID of a sender's choosing.
    public static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        var previousWasCR = false
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case ";": out += "\\;"
            case ",": out += "\\,"
            case "\r": out += "\\n"
            case "\n": if !previousWasCR { out += "\\n" }
            case "\t": out += "\t"
            default:
                if ControlCharacter(scalar) != nil { out += " " } else { out.unicodeScalars.append(scalar) }
            }
            previousWasCR = scalar == "\r"
        }
        return out
    }
}
