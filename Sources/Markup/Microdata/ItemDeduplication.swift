import JSON
import ReservoirBase

/// Senders often give one reservation both as JSON-LD and as Microdata, or one script twice. Two items are the
/// same when their normalized forms match: `@context` dropped, types and property names
/// reduced to schema.org names, scalars compared as text, one-element lists as their element,
/// members in name order.
enum ItemDeduplication {
    /// `items` without the Microdata items that repeat a JSON-LD item (the JSON-LD one is
    /// kept, as it carries typed values) and without exact repeats of an earlier item (a
    /// template that includes its script twice); each removal is reported as `duplicate-item`.
    static func removingMicrodataCopies(_ items: [StructuredItem], diagnostics: inout [MarkupDiagnostic]) -> [StructuredItem] {
        guard items.count > 1 else { return items }
        let keys = items.map { normalized($0.value).serialized() }
        let jsonLD = Set(zip(items, keys).filter { $0.0.source == .jsonLD }.map(\.1))
        var seen: Set<String> = []
        var kept: [StructuredItem] = []
        for (item, key) in zip(items, keys) {
            let type = item.value.objectValue?["@type"]?.stringValue ?? "an item"
            if item.source == .microdata, jsonLD.contains(key) {
                diagnostics.append(
                    MarkupDiagnostic(
                        code: .duplicateItem, message: "\(type) given both as JSON-LD and as Microdata is kept once (the JSON-LD)"))
            } else if !seen.insert(key).inserted {
                diagnostics.append(
                    MarkupDiagnostic(
                        code: .duplicateItem, message: "a repeat of an earlier \(item.source.rawValue) \(type) is left out"))
            } else {
                kept.append(item)
            }
        }
        return kept
    }

    static func normalized(_ value: JSONValue) -> JSONValue {
        switch value {
        case .null:
            return .null
        case .bool, .number:
            return .string(value.stringValue ?? "")
        case .string(let text):
            return .string(text.trimmingASCII(ASCII.isHTMLWhiteSpace))
        case .array(let elements):
            return elements.count == 1 ? normalized(elements[0]) : .array(elements.map(normalized))
        case .object(let object):
            var members: [JSONObject.Member] = []
            for member in object.members where member.key != "@context" {
                let key = SchemaOrg.localName(member.key) ?? member.key
                var memberValue = normalized(member.value)
                if key == "@type", case .string(let type) = memberValue {
                    memberValue = .string(SchemaOrg.localName(type) ?? type)
                }
                members.append(JSONObject.Member(key: key, value: memberValue))
            }
            return .object(JSONObject(uniquing: members.sorted { $0.key < $1.key }))
        }
    }
}
