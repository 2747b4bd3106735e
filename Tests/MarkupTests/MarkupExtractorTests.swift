import JSON
import Testing

@testable import Markup

@Suite struct MarkupExtractorTests {
    @Test func returnsItemsInDocumentOrder() {
        let html = """
            <div itemscope itemtype="https://schema.org/Person"><span itemprop="name">First</span></div>
            <script type="application/ld+json">{"@type": "Event"}</script>
            <div itemscope itemtype="https://schema.org/Place"><span itemprop="name">Last</span></div>
            """
        #expect(extract(html).items.map(\.source) == [.microdata, .jsonLD, .microdata])
    }

    @Test func readsMalformedHTML() {
        let html = """
            <html><body><table><tr><td><div itemscope itemtype="https://schema.org/Event"><span itemprop="name">Unclosed
            <td><b><i>nested wrong</b></i>
            <script type="application/ld+json">{"@type": "LodgingReservation", "reservationNumber": "H7"}</script>
            <p>no end
            """
        let extraction = extract(html)
        #expect(extraction.items.map(\.source) == [.microdata, .jsonLD])
        #expect(extraction.items.first?.value.objectValue?["name"] == .string("Unclosed"))
        #expect(extraction.items.last?.value.objectValue?["reservationNumber"] == .string("H7"))
    }

    @Test func ignoresTheDocumentsOwnCharsetDeclaration() {
        let html = #"<meta charset="iso-8859-1"><script type="application/ld+json">{"@type":"Event","name":"Zoë's Café €"}</script>"#
        #expect(extract(html).items.first?.value.objectValue?["name"] == .string("Zoë's Café €"))
    }

    @Test func survivesInvalidUTF8AndNULBytes() {
        let bytes =
            Array(#"<div itemscope><span itemprop="name">a"#.utf8) + [0xFF, 0x00, 0xC3]
            + Array(#"b</span></div><script type="application/ld+json">{"@type":"X"}</script>"#.utf8)
        let extraction = MarkupExtractor.extract(html: bytes)
        #expect(extraction.items.count <= 2)
    }

    @Test func returnsNothingForEmptyInput() {
        #expect(MarkupExtractor.extract(html: []).items.isEmpty)
        #expect(extract("itemscope").items.isEmpty)
    }

    @Test func skipsParsingForMailWithoutMarkup() {
        let paragraph = Array("<p>Dear customer, your <b>invoice</b> is attached &amp; paid. Items: scope, ld json.</p>\n".utf8)
        var html = Array("<html><body>".utf8)
        while html.count < 5 * 1024 * 1024 { html += paragraph }
        html += Array("</body></html>".utf8)
        let clock = ContinuousClock()
        var extraction = MarkupExtraction()
        let elapsed = clock.measure { extraction = MarkupExtractor.extract(html: html) }
        #expect(extraction.items.isEmpty)
        #expect(extraction.diagnostics.isEmpty)
        #expect(elapsed < .seconds(5))
    }

    /// The word-at-a-time search agrees with a plain one wherever the needle sits, in any case,
    /// next to the bytes that differ from its letters only in bit 0x20.
    @Test func signatureSearchMatchesPlainSearch() {
        let alphabet = Array("itemscopeITEMSCOPEpropld+json<>\u{1C}\u{09}) a".utf8)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5_000 {
            var bytes = (0..<Int.random(in: 0..<40, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }
            if Bool.random(using: &generator) {
                let needle = Array(["itemScope", "ITEMSCOPE", "ItemProp", "ld+JSON", "<Script"].randomElement(using: &generator)!.utf8)
                bytes.insert(contentsOf: needle, at: Int.random(in: 0...bytes.count, using: &generator))
            }
            let lower = String(decoding: bytes, as: UTF8.self).lowercased()
            for needle: StaticString in ["itemscope", "ld+json", "<script"] {
                let found = bytes.withUnsafeBufferPointer { MarkupSignature.contains($0, needle) }
                #expect(found == lower.contains(needle.description), "\(String(decoding: bytes, as: UTF8.self).debugDescription) \(needle)")
            }
            // Two needles with a common start, in one pass (Microdata's attributes).
            let either = bytes.withUnsafeBufferPointer { MarkupSignature.contains($0, "itemscope", or: "itemprop") }
            #expect(
                either == (lower.contains("itemscope") || lower.contains("itemprop")), "\(String(decoding: bytes, as: UTF8.self).debugDescription)")
        }
    }

    @Test(arguments: [
        ("<script type=\"APPLICATION/LD+JSON\">", true),
        ("<div ItemScope>", true),
        ("<p>ld json itemprop scope</p>", false),
        ("", false),
    ])
    func detectsMarkupSignatures(text: String, expected: Bool) {
        #expect(MarkupSignature.mayContainMarkup(Array(text.utf8)) == expected)
    }

    @Test func refusesPartsOverTheSizeLimit() {
        var html = Array(#"<script type="application/ld+json">{"@type":"Event"}</script>"#.utf8)
        html += [UInt8](repeating: UInt8(ascii: " "), count: MarkupLimits.maximumHTMLBytes)
        let extraction = MarkupExtractor.extract(html: html)
        #expect(extraction.items.isEmpty)
        #expect(extraction.diagnostics.map(\.code.rawValue) == ["html-too-large"])
    }

    @Test func capsTheNumberOfItems() {
        let scripts = (0..<(MarkupLimits.maximumItems + 3)).map { #"<script type="application/ld+json">{"@type":"Event","n":\#($0)}</script>"# }
        let extraction = extract(scripts.joined())
        #expect(extraction.items.count == MarkupLimits.maximumItems)
        #expect(extraction.diagnostics.map(\.code.rawValue) == ["too-many-items"])

        let microdata = (0...MarkupLimits.maximumItems).map { #"<div itemscope itemtype="Event"><span itemprop="name">E\#($0)</span></div>"# }
        let many = extract(microdata.joined())
        #expect(many.items.count == MarkupLimits.maximumItems)
        #expect(many.diagnostics.map(\.code.rawValue) == ["too-many-items"])
    }

    @Test func readsMarkupAfterThousandsOfUnclosedTags() {
        let html =
            "<div itemscope><p>" + String(repeating: "<font color=red><div>", count: 3000) + #"<b itemprop="name">deep</b>"#
            + #"<script type="application/ld+json">{"@type":"After"}</script>"#
        let extraction = extract(html)
        #expect(serializedItems(extraction) == [#"{"name":"deep"}"#, #"{"@type":"After"}"#])
    }

    @Test func readsDeeplyNestedHTMLWithoutTrapping() {
        let depth = 100_000
        let html =
            #"<div itemscope itemtype="Event">"# + String(repeating: "<div><span>", count: depth)
            + #"<b itemprop="name">deep</b>"# + String(repeating: "</span></div>", count: depth) + "</div>"
        let clock = ContinuousClock()
        var extraction = MarkupExtraction()
        let elapsed = clock.measure { extraction = extract(html) }
        #expect(elapsed < .seconds(5))
        #expect(extraction.items.count == 1)
    }
}
