import JSON
import ReservoirBase

/// The JSON-LD of one `<script type="application/ld+json">` element
/// (JSON-LD 1.1 §7.2 "Embedding JSON-LD in HTML Documents").
struct JSONLDScript {
    /// The items found, in order, and what was repaired or dropped.
    var items: [JSONValue] = []
    var diagnostics: [MarkupDiagnostic] = []
    /// Values that are not objects where an item belongs, reported once with their count.
    private var ignoredValues = 0

    /// True for `application/ld+json`, in any case, with parameters and whitespace ignored
    /// (a MIME type's essence, RFC 2045 §5.1).
    static func isJSONLDType(_ type: String) -> Bool {
        if type == "application/ld+json" { return true }
        let essence = type.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return String(essence).trimmingASCII(ASCII.isHTMLWhiteSpace).lowercased() == "application/ld+json"
    }

    /// Reads the script's raw text: markers stripped, the tolerant reader applied, and
    /// character references decoded once when only the decoded text reads cleanly.
    init(text: [UInt8]) {
        guard text.count <= JSONLimits.maximumBytes else {
            diagnostics.append(
                MarkupDiagnostic(
                    code: .jsonTooLarge,
                    message: "a script of more than \(JSONLimits.maximumBytes) bytes is skipped"))
            return
        }
        let cleaned = Self.strippingMarkers(text)
        guard cleaned.contains(where: { !ASCII.isHTMLWhiteSpace($0) }) else {
            diagnostics.append(MarkupDiagnostic(code: .jsonLDEmpty, message: "a JSON-LD script without content"))
            return
        }
        var reading = TolerantJSONReader.read(cleaned)
        if reading.failed, let decoded = CharacterReferences.decode(cleaned) {
            let retry = TolerantJSONReader.read(decoded)
            if !retry.failed {
                reading = retry
                reading.diagnostics.insert(
                    JSONDiagnostic(
                        code: .repaired, message: "HTML character references in the script decoded"), at: 0)
            }
        }
        diagnostics += reading.diagnostics.map(MarkupDiagnostic.init)
        for value in reading.values { collect(value, context: nil) }
        if ignoredValues > 0 {
            diagnostics.append(
                MarkupDiagnostic(
                    code: .jsonLDNotObject,
                    message: "\(EnglishCount.of(ignoredValues, "JSON-LD value")) that \(ignoredValues == 1 ? "is" : "are") not an object ignored"))
        }
    }

    /// Objects become items; arrays are read element by element; an `@graph`'s objects are
    /// lifted out with the enclosing `@context` (JSON-LD 1.1 §4.9 "Named Graphs").
    private mutating func collect(_ value: JSONValue, context: JSONValue?) {
        switch value {
        case .object(let object):
            let ownContext = object["@context"] ?? context
            if let graph = object["@graph"] {
                for member in graph.listValue { collectFlat(member, context: ownContext) }
                let rest = object.members.filter { !["@context", "@graph", "@id"].contains($0.key) }
                if rest.contains(where: { $0.key == "@type" }) { items.append(Self.applying(ownContext, to: JSONObject(rest))) }
            } else {
                items.append(Self.applying(context, to: object))
            }
        case .array(let elements):
            for element in elements { collectFlat(element, context: context) }
        default:
            ignoredValues += 1
        }
    }

    /// Like `collect`, one level down: nested arrays are not flattened further.
    private mutating func collectFlat(_ value: JSONValue, context: JSONValue?) {
        if case .object = value {
            collect(value, context: context)
        } else {
            ignoredValues += 1
        }
    }

    /// The object with `context` as its `@context` unless it has its own.
    private static func applying(_ context: JSONValue?, to object: JSONObject) -> JSONValue {
        guard let context, object["@context"] == nil else { return .object(object) }
        return .object(JSONObject([JSONObject.Member(key: "@context", value: context)] + object.members))
    }

    /// The text without the HTML comment markers (`<!--`, `-->`) and CDATA markers
    /// (`<![CDATA[`, `]]>`, also commented out as `//<![CDATA[`) that keep old mail clients
    /// from showing the script.
    static func strippingMarkers(_ text: [UInt8]) -> [UInt8] {
        var slice = text[...]
        var changed = true
        while changed {
            changed = false
            slice = ASCII.trimmed(slice, where: ASCII.isHTMLWhiteSpace)
            if let prefix = ["/*<![CDATA[*/", "//<![CDATA[", "<![CDATA[", "<!--"].first(where: { slice.starts(with: $0.utf8) }) {
                slice = slice.dropFirst(prefix.utf8.count)
                changed = true
            }
            if let suffix = ["/*]]>*/", "//]]>", "//-->", "]]>", "-->"].first(where: { slice.reversed().starts(with: $0.utf8.reversed()) }) {
                slice = slice.dropLast(suffix.utf8.count)
                changed = true
            }
        }
        return Array(slice)
    }

}
