import JSON
import ReservoirBase

/// Microdata items (HTML Living Standard §5.2) converted to JSON-LD shaped objects:
/// `@type` from the first `itemtype` token (further tokens in `additionalType`), `@id` from
/// `itemid`, one member per property name, an array when a name repeats, nested items as
/// nested objects. Types are kept as written; `SchemaOrg.localName(_:)` reduces them.
struct MicrodataReader {
    /// The first element with each `id`, for `itemref`.
    private let elementsByID: [String: HTMLElement]
    /// The position in tree order of every element carrying `itemprop`.
    private let treeOrder: [HTMLElement: Int]
    /// Elements read as children of an item whose content libxml2 moved out of it (see
    /// `SplitItemRepair`).
    private var adoptedChildren: [HTMLElement: [HTMLElement]] = [:]
    private(set) var diagnostics: [MarkupDiagnostic] = []

    init(elementsByID: [String: HTMLElement], treeOrder: [HTMLElement: Int], adoptedChildren: [HTMLElement: [HTMLElement]]) {
        self.elementsByID = elementsByID
        self.treeOrder = treeOrder
        self.adoptedChildren = adoptedChildren
    }

    /// The JSON-LD shaped object of a top-level item.
    mutating func item(_ root: HTMLElement) -> JSONValue {
        .object(object(for: root, ancestors: [root]))
    }

    /// HTML §5.2.7 "Converting HTML to other formats: JSON", with the ancestor items as the
    /// spec's memory so an item reachable from itself is not expanded again.
    private mutating func object(for root: HTMLElement, ancestors: Set<HTMLElement>) -> JSONObject {
        var members: [JSONObject.Member] = []
        let types = Self.tokens(root.attribute("itemtype") ?? "")
        if let first = types.first { members.append(JSONObject.Member(key: "@type", value: .string(first))) }
        if let id = root.attribute("itemid")?.trimmingASCII(ASCII.isHTMLWhiteSpace), !id.isEmpty {
            members.append(JSONObject.Member(key: "@id", value: .string(id)))
        }
        var names: [String] = []
        var values: [String: [JSONValue]] = [:]
        if types.count > 1 {
            names.append("additionalType")
            values["additionalType"] = types.dropFirst().map(JSONValue.string)
        }
        for property in properties(of: root) {
            guard let value = value(of: property, ancestors: ancestors) else { continue }
            for name in Self.tokens(property.attribute("itemprop") ?? "") {
                if values[name] == nil { names.append(name) }
                values[name, default: []].append(value)
            }
        }
        for name in names {
            guard let list = values[name] else { continue }
            members.append(JSONObject.Member(key: name, value: list.count == 1 ? list[0] : .array(list)))
        }
        return JSONObject(uniquing: members)
    }

    /// HTML §5.2.5 "Associating names with items": the item's descendants and the elements its
    /// `itemref` names, not entering nested items, each element visited once (the cycle guard),
    /// in tree order.
    private mutating func properties(of root: HTMLElement) -> [HTMLElement] {
        var results: [HTMLElement] = []
        var memory: Set<HTMLElement> = [root]
        var pending = root.childElements + (adoptedChildren[root] ?? [])
        for id in Self.tokens(root.attribute("itemref") ?? "") {
            if let element = elementsByID[id] { pending.append(element) }
        }
        while let current = pending.popLast() {
            guard memory.insert(current).inserted else {
                diagnostics.append(
                    MarkupDiagnostic(
                        code: .microdataCycle, message: "an element reached twice from one item (through itemref) is read once"))
                continue
            }
            if !current.hasAttribute("itemscope") { pending += current.childElements }
            if current.hasAttribute("itemprop") {
                results.append(current)
                if results.count >= MarkupLimits.maximumMicrodataProperties {
                    diagnostics.append(
                        MarkupDiagnostic(
                            code: .tooManyProperties,
                            message: "an item has more than \(MarkupLimits.maximumMicrodataProperties) properties; the rest are dropped"))
                    break
                }
            }
        }
        return results.sorted { (treeOrder[$0] ?? 0) < (treeOrder[$1] ?? 0) }
    }

    /// HTML §5.2.4 "Values": a nested item, or the attribute or text the element's name picks.
    private mutating func value(of element: HTMLElement, ancestors: Set<HTMLElement>) -> JSONValue? {
        if element.hasAttribute("itemscope") {
            guard !ancestors.contains(element) else {
                diagnostics.append(MarkupDiagnostic(code: .microdataCycle, message: "an item that contains itself is left out"))
                return nil
            }
            guard ancestors.count < MarkupLimits.maximumMicrodataDepth else {
                diagnostics.append(
                    MarkupDiagnostic(
                        code: .microdataTooDeep,
                        message: "items nested deeper than \(MarkupLimits.maximumMicrodataDepth) levels are read as text"))
                return .string(Self.text(of: element))
            }
            return .object(object(for: element, ancestors: ancestors.union([element])))
        }
        let text: String
        switch element.name {
        case "meta": text = element.attribute("content") ?? ""
        case "audio", "embed", "iframe", "img", "source", "track", "video": text = element.attribute("src") ?? ""
        case "a", "area", "link": text = element.attribute("href") ?? ""
        case "object": text = element.attribute("data") ?? ""
        case "data", "meter": text = element.attribute("value") ?? ""
        case "time": text = element.attribute("datetime") ?? Self.text(of: element)
        default:
            // Not HTML, but schema.org's own examples and Google's email markup write
            // `<span itemprop="price" content="12.50">$12.50</span>`; consumers read `content`.
            if let content = element.attribute("content") { text = content } else { return .string(Self.text(of: element)) }
        }
        return .string(text.trimmingASCII(ASCII.isHTMLWhiteSpace))
    }

    /// The element's text content with runs of whitespace collapsed to one space and trimmed,
    /// cut at `MarkupLimits.maximumPropertyTextLength` scalars.
    static func text(of element: HTMLElement) -> String {
        let raw = String(decoding: element.textContentBytes(), as: UTF8.self)
        var result = String.UnicodeScalarView()
        var pendingSpace = false
        var count = 0
        for scalar in raw.unicodeScalars {
            if scalar.properties.isWhitespace {
                pendingSpace = !result.isEmpty
                continue
            }
            if pendingSpace {
                result.append(" ")
                pendingSpace = false
            }
            result.append(scalar)
            count += 1
            if count >= MarkupLimits.maximumPropertyTextLength { break }
        }
        return String(result)
    }

    /// HTML §2.3.8: an unordered set of unique space-separated tokens, in order.
    static func tokens(_ value: String) -> [String] {
        var seen: Set<Substring> = []
        return value.split(whereSeparator: { $0.unicodeScalars.allSatisfy(\.isASCIIWhitespace) })
            .filter { seen.insert($0).inserted }
            .map(String.init)
    }
}
