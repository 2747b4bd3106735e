import ReservoirBase

/// HTML built so that text can only enter escaped: string literals are markup, and every
/// interpolated `String` is escaped (`&`, `<`, `>`, `"`, `'`), so text from mail — titles,
/// places, domains, summaries, all under a sender's control — can never open a tag or leave an
/// attribute value. Only another `HTMLText` is interpolated as markup.
public struct HTMLText: Sendable, Equatable, ExpressibleByStringInterpolation {
    public private(set) var html: String

    public init(stringLiteral markup: String) { html = markup }

    public init(stringInterpolation: StringInterpolation) { html = stringInterpolation.html }

    public init() { html = "" }

    public struct StringInterpolation: StringInterpolationProtocol {
        var html = ""
        public init(literalCapacity: Int, interpolationCount: Int) { html.reserveCapacity(literalCapacity * 2) }
        public mutating func appendLiteral(_ markup: String) { html += markup }
        /// Text: escaped.
        public mutating func appendInterpolation(_ text: String) { html += HTMLText.escape(text) }
        /// Markup built the same way: as it is.
        public mutating func appendInterpolation(_ markup: HTMLText) { html += markup.html }
    }

    public static func += (lhs: inout HTMLText, rhs: HTMLText) { lhs.html += rhs.html }

    /// The text with the five characters that end text or attribute values in HTML written as
    /// character references (WHATWG HTML §13.1.4); tab and newline kept; every other line
    /// break (``ControlCharacter/lineBreak``: CR, VT, FF, NEL, U+2028, U+2029…) written as a
    /// space, so no reader splitting the page into lines finds one the text made; and the other
    /// C0 and C1 controls and DEL dropped (they are parse errors in HTML text, §13.2.5.1).
    public static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "\t", "\n": out.unicodeScalars.append(scalar)
            default:
                switch ControlCharacter(scalar) {
                case nil: out.unicodeScalars.append(scalar)
                case .lineBreak: out += " "
                case .control: continue
                }
            }
        }
        return out
    }
}
