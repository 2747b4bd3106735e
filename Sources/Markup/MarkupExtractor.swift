import JSON
import ReservoirBase

/// Reads the schema.org items of one HTML part: JSON-LD scripts and Microdata, in document
/// order, the same item given both ways once.
public enum MarkupExtractor {
    /// Every top-level item of `html` (UTF-8 text) with diagnostics for what was repaired or
    /// dropped. Never traps or throws; bounded by `MarkupLimits`.
    public static func extract(html: [UInt8]) -> MarkupExtraction {
        // Fast path: most mail has no markup at all, and parsing it would be wasted work.
        guard MarkupSignature.mayContainMarkup(html) else { return MarkupExtraction() }
        guard html.count <= MarkupLimits.maximumHTMLBytes else {
            return MarkupExtraction(diagnostics: [
                MarkupDiagnostic(
                    code: .htmlTooLarge,
                    message: "an HTML part of \(html.count) bytes exceeds the limit of \(MarkupLimits.maximumHTMLBytes) bytes; it is not read")
            ])
        }
        // Most reservation mail carries JSON-LD and no Microdata: its scripts are found without
        // building the tree when the part is plain enough to be sure of them.
        let scripts = html.withUnsafeBufferPointer { buffer in
            ScriptScanner.needsTree(buffer) ? nil : ScriptScanner.jsonLDScripts(buffer)
        }
        guard let scripts else { return extractFromTree(html: html) }
        var assembly = ItemAssembly()
        for (index, range) in scripts.enumerated() { assembly.addScript(number: index + 1, order: index, text: Array(html[range])) }
        return assembly.finish()
    }

    /// `extract(html:)` through libxml2's tree whatever the part looks like.
    static func extractFromTree(html: [UInt8]) -> MarkupExtraction {
        guard let document = HTMLDocument(utf8: html) else {
            return MarkupExtraction(diagnostics: [MarkupDiagnostic(code: .htmlInvalid, message: "the HTML parser returned no document")])
        }
        return withExtendedLifetime(document) {
            var outline = DocumentOutline(document)
            return outline.extract()
        }
    }
}

/// Items collected from a part in document order, then ordered, deduplicated and bounded.
private struct ItemAssembly {
    var found: [(order: Int, item: StructuredItem)] = []
    var diagnostics: [MarkupDiagnostic] = []

    /// The items of JSON-LD script number `number` (counted from 1 in the part).
    mutating func addScript(number: Int, order: Int, text: [UInt8]) {
        let reading = JSONLDScript(text: text)
        // Lines and columns count from the script's own text, so name the script.
        diagnostics += reading.diagnostics.map {
            MarkupDiagnostic(code: $0.code, message: "JSON-LD script \(number): \($0.message)")
        }
        found += reading.items.map { (order, StructuredItem(value: $0, source: .jsonLD)) }
    }

    func finish() -> MarkupExtraction {
        var diagnostics = diagnostics
        // Document order; items of one script keep their order within it.
        let ordered = found.enumerated().sorted { ($0.element.order, $0.offset) < ($1.element.order, $1.offset) }.map(\.element.item)
        var duplicates: [MarkupDiagnostic] = []
        var items = ItemDeduplication.removingMicrodataCopies(ordered, diagnostics: &duplicates)
        diagnostics += MarkupDiagnostic.collapsingRepeats(duplicates)
        if items.count > MarkupLimits.maximumItems {
            diagnostics.append(
                MarkupDiagnostic(
                    code: .tooManyItems,
                    message: "\(items.count) items exceed the limit of \(MarkupLimits.maximumItems); the rest are dropped"))
            items.removeLast(items.count - MarkupLimits.maximumItems)
        }
        return MarkupExtraction(items: items, diagnostics: diagnostics)
    }
}

/// What one pass over the tree finds, and the items read from it.
private struct DocumentOutline {
    private var scripts: [(order: Int, element: HTMLElement)] = []
    private var scopes: [(order: Int, element: HTMLElement, insideItemScope: Bool)] = []
    private var elementsByID: [String: HTMLElement] = [:]
    private var referencedIDs: Set<String> = []
    private var propertyOrder: [HTMLElement: Int] = [:]
    private var outsideProperties: [HTMLElement] = []
    private var diagnostics: [MarkupDiagnostic] = []

    init(_ document: HTMLDocument) {
        var order = 0
        document.walkElements { element, insideItemScope in
            order += 1
            if element.isNamed("script") {
                if let type = element.attribute("type"), JSONLDScript.isJSONLDType(type) { scripts.append((order, element)) }
                return
            }
            if let id = element.attribute("id"), !id.isEmpty, elementsByID[id] == nil { elementsByID[id] = element }
            if let itemref = element.attribute("itemref") { referencedIDs.formUnion(MicrodataReader.tokens(itemref)) }
            if element.hasAttribute("itemscope") { scopes.append((order, element, insideItemScope)) }
            if element.hasAttribute("itemprop") {
                propertyOrder[element] = order
                if !insideItemScope, outsideProperties.count < MarkupLimits.maximumMicrodataProperties {
                    outsideProperties.append(element)
                }
            }
        }
    }

    mutating func extract() -> MarkupExtraction {
        var assembly = ItemAssembly()
        for (index, script) in scripts.enumerated() {
            assembly.addScript(
                number: index + 1, order: script.order,
                text: script.element.textContentBytes(limit: JSONLimits.maximumBytes + 1))
        }
        assembly.found += microdataItems().map { ($0.order, StructuredItem(value: $0.value, source: .microdata)) }
        assembly.diagnostics += diagnostics
        return assembly.finish()
    }

    /// HTML §5.2.2: top-level items are those without `itemprop`; an item with `itemprop` that
    /// no item can reach is read as top-level too, as senders forget to remove the attribute.
    private mutating func microdataItems() -> [(order: Int, value: JSONValue)] {
        guard !scopes.isEmpty else {
            if !outsideProperties.isEmpty { reportOrphans(outsideProperties.count) }
            return []
        }
        let repair = SplitItemRepair(scopes: scopes.map(\.element), outsideProperties: outsideProperties)
        diagnostics += repair.diagnostics
        var reach = ItemReach(adopted: repair.adopted, referencedIDs: referencedIDs)
        let reachable = outsideProperties.filter { reach.isReachable($0) }
        let reachableSet = Set(reachable)
        let orphans = outsideProperties.count - reachable.count
        if orphans > 0 { reportOrphans(orphans) }

        var reader = MicrodataReader(elementsByID: elementsByID, treeOrder: propertyOrder, adoptedChildren: repair.adoptedChildren)
        var result: [(order: Int, value: JSONValue)] = []
        for scope in scopes {
            let element = scope.element
            if element.hasAttribute("itemprop"), scope.insideItemScope || reachableSet.contains(element) { continue }
            guard result.count < MarkupLimits.maximumItems else {
                diagnostics.append(
                    MarkupDiagnostic(
                        code: .tooManyItems,
                        message: "more than \(MarkupLimits.maximumItems) Microdata items; the rest are dropped"))
                break
            }
            result.append((scope.order, reader.item(element)))
        }
        diagnostics += MarkupDiagnostic.collapsingRepeats(reader.diagnostics)
        return result
    }

    private mutating func reportOrphans(_ count: Int) {
        diagnostics.append(
            MarkupDiagnostic(
                code: .microdataOrphanProperty,
                message:
                    "\(EnglishCount.of(count, "itemprop element")) \(count == 1 ? "belongs" : "belong") to no item and \(count == 1 ? "is" : "are") ignored"
            ))
    }
}

/// Whether a property outside every item still belongs to one: it, or an ancestor, was taken
/// by `SplitItemRepair` or is named by an `itemref`. Answers are remembered for every element
/// on the way up, so all the questions together cost one visit per element.
private struct ItemReach {
    let adopted: Set<HTMLElement>
    let referencedIDs: Set<String>
    private var known: [HTMLElement: Bool] = [:]

    init(adopted: Set<HTMLElement>, referencedIDs: Set<String>) {
        self.adopted = adopted
        self.referencedIDs = referencedIDs
    }

    mutating func isReachable(_ element: HTMLElement) -> Bool {
        guard !adopted.isEmpty || !referencedIDs.isEmpty else { return false }
        var path: [HTMLElement] = []
        var current: HTMLElement? = element
        var answer = false
        while let node = current {
            if let cached = known[node] {
                answer = cached
                break
            }
            path.append(node)
            if adopted.contains(node) || node.attribute("id").map(referencedIDs.contains) == true {
                answer = true
                break
            }
            current = node.parent
        }
        for node in path { known[node] = answer }
        return answer
    }
}
