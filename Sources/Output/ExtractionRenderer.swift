import JSON
import Markup
public import Pipeline
import Reservations

/// What `reservoir extract` shows: the reservations the markup describes, whether or not
/// they are trusted, and with `--explain` every repair and every item dropped. A reservation
/// that would not be stored carries its marks: `ended`, `date-ambiguous` (its date is unknown).
public enum ExtractionRenderer {
    public static func json(_ extraction: MessageExtraction) -> String {
        JSONBuild.object([
            ("reservations", .array(extraction.reservations.map(Self.json))),
            ("diagnostics", .array(extraction.diagnostics.map(JSONBuild.diagnostic))),
        ]).prettyPrinted()
    }

    /// The reservation's JSON-LD, with `"ended": true` and `"date-ambiguous": true` beside
    /// the schema.org properties when it is marked so (no schema.org term has these names).
    static func json(_ reservation: Reservation) -> JSONValue {
        guard !reservation.marks.isEmpty, var object = reservation.json.objectValue else { return reservation.json }
        for mark in reservation.marks { object[mark.rawValue] = .bool(true) }
        return .object(object)
    }

    /// The reservations for people; everything read from the message is escaped
    /// (``TerminalText``).
    public static func text(_ extraction: MessageExtraction, explain: Bool) -> String {
        var out: TerminalText = ""
        if extraction.reservations.isEmpty { out += "No reservation found.\n" }
        for r in extraction.reservations {
            let marks = r.marks.map { " · \($0.rawValue)" }.joined()
            out += "\(r.category.displayName): \(r.title) · \(r.status.rawValue) · #\(r.reservationID) item \(r.itemID)\(marks)\n"
            if let start = r.start {
                out += "  start  \(BannerText.time(start))\n"
            } else if r.marks.contains(.dateAmbiguous) {
                out += "  start  unknown (day and month order ambiguous)\n"
            }
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
