/// One top-level schema.org item found in an HTML part, as a JSON-LD style object
/// (`@type` plus properties). Microdata items are converted to the same shape, so later
/// stages read one model.
public struct StructuredItem: Sendable, Equatable {
    public enum Source: String, Sendable {
        case jsonLD = "json-ld"
        case microdata
    }

    public var value: JSONValue
    public var source: Source

    public init(value: JSONValue, source: Source) {
        self.value = value
        self.source = source
    }
}

/// Something the extractor repaired or dropped: a stable code and a sentence.
public struct MarkupDiagnostic: Sendable, Hashable {
    /// One of: `json-repaired` (the message names the repair and its line and column in the
    /// script), `json-unrecoverable` (unreadable from that position on; earlier values kept),
    /// `json-too-deep`, `json-too-large`, `json-ld-empty`, `json-ld-not-object`,
    /// `html-too-large`, `html-invalid`, `microdata-repaired` (an item on a `<p>` closed early
    /// by the parser), `microdata-orphan-property`, `microdata-cycle`, `microdata-too-deep`,
    /// `too-many-properties`, `too-many-items`, `duplicate-item` (Microdata repeating JSON-LD).
    public var code: String
    public var message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }
}

/// What one HTML part yields.
public struct MarkupExtraction: Sendable {
    public var items: [StructuredItem]
    public var diagnostics: [MarkupDiagnostic]

    public init(items: [StructuredItem] = [], diagnostics: [MarkupDiagnostic] = []) {
        self.items = items
        self.diagnostics = diagnostics
    }
}

extension MarkupDiagnostic {
    /// One diagnostic per code and message, with a count when repeated.
    static func collapsingRepeats(_ diagnostics: [MarkupDiagnostic]) -> [MarkupDiagnostic] {
        var counts: [MarkupDiagnostic: Int] = [:]
        var order: [MarkupDiagnostic] = []
        for diagnostic in diagnostics {
            if counts[diagnostic] == nil { order.append(diagnostic) }
            counts[diagnostic, default: 0] += 1
        }
        return order.map { diagnostic in
            let count = counts[diagnostic] ?? 1
            return count == 1 ? diagnostic : MarkupDiagnostic(code: diagnostic.code, message: "\(diagnostic.message) (\(count) times)")
        }
    }
}
