import JSON
import Markup
public import Pipeline
public import Reservations

/// What `reservoir extract` shows: the reservations the markup describes, whether or not
/// they are trusted, and with `--explain` every repair and every item dropped.
public enum ExtractionRenderer {
    public static func json(_ extraction: MessageExtraction) -> String {
        JSONBuild.object([
            ("reservations", .array(extraction.reservations.map(\.json))),
            ("diagnostics", .array(extraction.diagnostics.map(JSONBuild.diagnostic))),
        ]).prettyPrinted()
    }

    /// The reservations for people; everything read from the message is escaped
    /// (``TerminalText``).
    public static func text(_ extraction: MessageExtraction, explain: Bool) -> String {
        var out: TerminalText = ""
        if extraction.reservations.isEmpty { out += "No reservation found.\n" }
        for r in extraction.reservations {
            out += "\(r.category.displayName): \(r.title) · \(r.status.rawValue) · #\(r.reservationID) item \(r.itemID)\n"
            if let start = r.start { out += "  start  \(BannerText.time(start))\n" }
            if let end = r.end { out += "  end    \(BannerText.time(end))\n" }
            if let location = r.location { out += "  where  \(location)\n" }
            for detail in r.details { out += "  \(detail.label): \(detail.value)\n" }
        }
        let shown = explain ? extraction.diagnostics : extraction.diagnostics.filter { $0.stage != .mime }
        if !shown.isEmpty {
            out += explain ? "Explanations:\n" : "Notes (--explain for all):\n"
            for d in shown { out += "  [\(d.stage.rawValue)] \(d.code.description): \(d.message)\n" }
        }
        return out.text
    }
}
