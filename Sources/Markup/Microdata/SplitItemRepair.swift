/// HTML §13.2.6.4.7: a `<div>`, `<table>` or other block start tag closes an open `<p>`, so
/// `<p itemscope><div itemprop="name">…</div></p>` parses as an empty item followed by
/// properties that belong to no item. Senders write this; the repair lets an item on a `<p>`
/// take the sibling elements that follow it, up to the next paragraph or item, when they hold
/// properties no item reaches. (KItinerary tolerates the same sender mistake.)
struct SplitItemRepair {
    private(set) var adoptedChildren: [HTMLElement: [HTMLElement]] = [:]
    private(set) var diagnostics: [MarkupDiagnostic] = []
    /// The elements taken by some item.
    private(set) var adopted: Set<HTMLElement> = []

    init(scopes: [HTMLElement], outsideProperties: [HTMLElement]) {
        guard !outsideProperties.isEmpty else { return }
        // The properties outside every item and their ancestors, each element once.
        var ancestry: Set<HTMLElement> = []
        for property in outsideProperties {
            var current: HTMLElement? = property
            while let element = current, ancestry.insert(element).inserted { current = element.parent }
        }
        for scope in scopes where scope.isNamed("p") {
            var taken: [HTMLElement] = []
            var sibling = scope.nextSiblingElement
            while let element = sibling, !element.isNamed("p"),
                !(element.hasAttribute("itemscope") && !element.hasAttribute("itemprop"))
            {
                taken.append(element)
                sibling = element.nextSiblingElement
            }
            guard taken.contains(where: ancestry.contains) else { continue }
            adoptedChildren[scope] = taken
            adopted.formUnion(taken)
            diagnostics.append(
                MarkupDiagnostic(
                    code: .microdataRepaired,
                    message:
                        "an item on a <p> closed early by the HTML parser takes \(taken.count == 1 ? "the element that follows" : "the \(taken.count) elements that follow") it"
                ))
        }
    }
}
