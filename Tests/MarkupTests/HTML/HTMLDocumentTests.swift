import Testing

@testable import Markup

@Suite struct HTMLDocumentTests {
    private func elements(_ html: String) throws -> (HTMLDocument, [(name: String, inside: Bool, element: HTMLElement)]) {
        let document = try #require(HTMLDocument(utf8: Array(html.utf8)))
        var found: [(String, Bool, HTMLElement)] = []
        document.walkElements { found.append(($0.name, $1, $0)) }
        return (document, found)
    }

    @Test func walksElementsInTreeOrderWithTheirItemScope() throws {
        let (document, found) = try elements(#"<DIV ItemScope><P>a<B>b</B></P></DIV><SPAN>c</SPAN>"#)
        withExtendedLifetime(document) {
            #expect(found.map(\.name) == ["html", "body", "div", "p", "b", "span"])
            #expect(found.map(\.inside) == [false, false, false, true, true, false])
        }
    }

    @Test func readsAttributesWithReferencesDecoded() throws {
        let (document, found) = try elements(#"<a HREF="https://x.example/?a=1&amp;b=2&quot;" itemscope data-e="">t</a>"#)
        try withExtendedLifetime(document) {
            let link = try #require(found.first { $0.name == "a" }?.element)
            #expect(link.attribute("href") == "https://x.example/?a=1&b=2\"")
            #expect(link.attribute("itemscope") == "")
            #expect(link.attribute("data-e") == "")
            #expect(link.attribute("missing") == nil)
            #expect(link.hasAttribute("itemscope"))
            #expect(!link.hasAttribute("item"))
        }
    }

    @Test func readsTextContentOfDescendants() throws {
        let (document, found) = try elements("<div id=d>one <b>two <i>three</i></b>\n four&amp;<!-- not --></div><p>after</p>")
        try withExtendedLifetime(document) {
            let div = try #require(found.first { $0.name == "div" }?.element)
            #expect(String(decoding: div.textContentBytes(), as: UTF8.self) == "one two three\n four&")
            #expect(MicrodataReader.text(of: div) == "one two three four&")
            #expect(div.childElements.map(\.name) == ["b"])
            #expect(div.nextSiblingElement?.name == "p")
            #expect(div.parent?.name == "body")
        }
    }

    @Test func refusesEmptyAndOversizedInput() {
        #expect(HTMLDocument(utf8: []) == nil)
        #expect(HTMLDocument(utf8: [UInt8](repeating: 0x20, count: MarkupLimits.maximumHTMLBytes + 1)) == nil)
    }
}
