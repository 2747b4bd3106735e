import JSON
import Markup
public import Pipeline
import Reservations
import Trust

/// What `reservoir extract` shows: the reservations the markup, calendar parts and passes
/// describe, whether or not they are trusted, each with its own verdict, and with `--explain`
/// every repair and every item dropped. A reservation that would not be stored carries its marks:
/// `ended`, `date-ambiguous` (its date is unknown), `year-unsigned` (a boarding pass's year only
/// the clock gave).
public enum ExtractionRenderer {
    public static func json(_ extraction: MessageExtraction) -> String {
        JSONBuild.object([
            ("reservations", .array(extraction.items.map(Self.json))),
            ("diagnostics", .array(extraction.diagnostics.map(JSONBuild.diagnostic))),
        ]).prettyPrinted()
    }

    /// The reservation's schema.org JSON-LD (dates in ISO 8601 with their offset, the sender's
    /// text beside them under `reservoir:original…`), with Reservoir's own members beside the
    /// schema.org properties (no schema.org term has these names): its verdict (`trusted`,
    /// `refusal`, `proof`, as `banner --json` gives them) and its marks (`"ended": true`, …).
    static func json(_ item: ListedReservation) -> JSONValue {
        guard var object = item.reservation.json.objectValue else { return item.reservation.json }
        for (key, value) in JSONBuild.verdictMembers(item.verdict) { object[key] = value }
        for mark in item.reservation.marks { object[mark.rawValue] = .bool(true) }
        return .object(object)
    }

    /// The reservations for people; everything read from the message is escaped
    /// (``TerminalText``).
    public static func text(_ extraction: MessageExtraction, explain: Bool) -> String {
        var out: TerminalText = ""
        if extraction.items.isEmpty { out += "No reservation found.\n" }
        for item in extraction.items {
            let r = item.reservation
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
            out += "  trust  \(trustText(item.verdict))\n"
        }
        let shown = explain ? extraction.diagnostics : extraction.diagnostics.filter { $0.stage != .mime }
        if !shown.isEmpty {
            out += explain ? "Explanations:\n" : "Notes (--explain for all):\n"
            for d in shown { out += "  [\(d.stage.rawValue)] \(d.code.description): \(d.message)\n" }
        }
        return out.text
    }

    /// `trusted (DKIM signature by epicsteak.example)` or `NOT TRUSTED (code): sentence`.
    static func trustText(_ verdict: ReservationVerdict) -> String {
        if let refusal = verdict.refusal { return "NOT TRUSTED (\(refusal.code.rawValue)): \(refusal.sentence)" }
        return "trusted" + (verdict.proof.map { " (\(proofText($0)))" } ?? "")
    }

    static func proofText(_ proof: ReservationProof) -> String {
        switch proof {
        case .dkim(let domain): "DKIM signature by \(domain)"
        case .arc(let sealer, _, let domain): "DKIM pass of \(domain) via ARC sealed by \(sealer)"
        case .pass(let signer): "Wallet pass, \(signer.issuerText)"
        case .forward(let forwarder, _, let message): "forwarded by \(forwarder ?? "an unknown sender"); \(proofText(message))"
        case .page(let url, let domain): "https page \(url), vouched for by \(domain)"
        case .railTicket(let railway, let name, let keyID): "rail ticket signed by \(name.map { "\($0), " } ?? "")railway \(railway), key \(keyID)"
        case .unverified: "unverified: --allow-unverified"
        }
    }
}
