import Glibc

/// How banners are drawn: colour and symbols on a terminal, plain text when piped or when
/// `NO_COLOR` is set (no-color.org).
public struct BannerStyle: Sendable {
    public var color: Bool
    public var symbols: Bool

    public init(color: Bool, symbols: Bool) {
        self.color = color
        self.symbols = symbols
    }

    public static let plain = BannerStyle(color: false, symbols: false)

    public static func forStandardOutput() -> BannerStyle {
        let tty = isatty(STDOUT_FILENO) == 1
        let noColor = getenv("NO_COLOR").map { $0.pointee != 0 } ?? false
        let dumb = getenv("TERM").map { String(cString: $0) == "dumb" } ?? false
        return BannerStyle(color: tty && !noColor && !dumb, symbols: tty)
    }

    enum Tone: String {
        case bold = "1"
        case dim = "2"
        case red = "31"
        case green = "32"
        case yellow = "33"
        case blue = "34"
        case magenta = "35"
        case cyan = "36"
        case strike = "9"
        case boldRed = "1;31"
        case boldGreen = "1;32"
        case boldYellow = "1;33"
    }

    /// `text` in a tone: the one place control sequences of Reservoir's own enter the output
    /// (SGR, ECMA-48 §8.3.117); the text itself is already escaped (``TerminalText``).
    func paint(_ text: TerminalText, _ tone: Tone) -> TerminalText {
        color ? TerminalText(trusted: "\u{1B}[\(tone.rawValue)m") + text + TerminalText(trusted: "\u{1B}[0m") : text
    }

    func symbol(_ fancy: TerminalText, _ plain: TerminalText) -> TerminalText {
        symbols ? fancy : plain
    }
}
