import JSON
import Testing

@testable import Markup

/// Items and diagnostics of an HTML text.
func extract(_ html: String) -> MarkupExtraction {
    MarkupExtractor.extract(html: Array(html.utf8))
}

/// The compact JSON of every item.
func serializedItems(_ extraction: MarkupExtraction) -> [String] {
    extraction.items.map { $0.value.serialized() }
}

@Suite struct JSONLDScriptTests {
    @Test(arguments: [
        #"<script type="application/ld+json">{"@type":"Event"}</script>"#,
        #"<SCRIPT TYPE="Application/LD+JSON">{"@type":"Event"}</SCRIPT>"#,
        #"<script type=" application/ld+json ; charset=utf-8 " nonce="x">{"@type":"Event"}</script>"#,
        #"<script id="x" type='application/ld+json' data-foo>{"@type":"Event"}</script>"#,
        "<script type=\"application/ld+json\"><!--\n{\"@type\":\"Event\"}\n--></script>",
        "<script type=\"application/ld+json\">//<![CDATA[\n{\"@type\":\"Event\"}\n//]]></script>",
        "<script type=\"application/ld+json\"><![CDATA[{\"@type\":\"Event\"}]]></script>",
        "<script type=\"application/ld+json\">\n  <!-- <![CDATA[ {\"@type\":\"Event\"} ]]> -->\n</script>",
    ])
    func findsScripts(html: String) {
        let extraction = extract("<html><head>\(html)</head><body>Hi</body></html>")
        #expect(serializedItems(extraction) == [#"{"@type":"Event"}"#])
        #expect(extraction.items.first?.source == .jsonLD)
        #expect(extraction.diagnostics.isEmpty, "\(extraction.diagnostics)")
    }

    @Test(arguments: [
        #"<script>{"@type":"Event"}</script>"#,
        #"<script type="application/json">{"@type":"Event"}</script>"#,
        #"<script type="text/javascript">var x = "ld+json";</script>"#,
        #"<p>application/ld+json {"@type":"Event"}</p>"#,
    ])
    func ignoresOtherScriptsAndText(html: String) {
        #expect(extract(html).items.isEmpty)
    }

    @Test func decodesCharacterReferencesOnlyWhenTheRawTextFails() {
        let encoded = extract(
            #"<script type="application/ld+json">{&quot;@type&quot;:&quot;Event&quot;,&quot;name&quot;:&quot;Rock &amp; Roll&quot;}</script>"#)
        #expect(serializedItems(encoded) == [#"{"@type":"Event","name":"Rock & Roll"}"#])
        #expect(
            encoded.diagnostics.first
                == MarkupDiagnostic(code: .jsonRepaired, message: "JSON-LD script 1: HTML character references in the script decoded"))

        // Valid JSON keeps its text as written: the entity is the sender's data.
        let raw = extract(#"<script type="application/ld+json">{"@type":"Event","name":"Fish &amp; Chips"}</script>"#)
        #expect(serializedItems(raw) == [#"{"@type":"Event","name":"Fish &amp; Chips"}"#])
        #expect(raw.diagnostics.isEmpty)
    }

    @Test func keepsTheRawDiagnosticsWhenDecodingDoesNotHelp() {
        let extraction = extract(#"<script type="application/ld+json">{"@type": &quot;Event</script>"#)
        #expect(extraction.items.isEmpty)
        #expect(extraction.diagnostics.map(\.code.rawValue) == ["json-unrecoverable"])
    }

    @Test func readsArraysGraphsAndSeveralScripts() {
        let html = """
            <script type="application/ld+json">[{"@context":"https://schema.org","@type":"A"},{"@type":"B"}]</script>
            <p>between</p>
            <script type="application/ld+json">
            {"@context":"https://schema.org","@graph":[{"@type":"C"},{"@type":"D","@context":"http://schema.org/"}]}
            </script>
            <script type="application/ld+json">{"@type":"E"}{"@type":"F"}</script>
            """
        let extraction = extract(html)
        #expect(
            serializedItems(extraction) == [
                #"{"@context":"https://schema.org","@type":"A"}"#,
                #"{"@type":"B"}"#,
                #"{"@context":"https://schema.org","@type":"C"}"#,
                #"{"@type":"D","@context":"http://schema.org/"}"#,
                #"{"@type":"E"}"#,
                #"{"@type":"F"}"#,
            ])
        #expect(extraction.diagnostics.map(\.code.rawValue) == ["json-repaired"])
    }

    @Test func reportsNonObjectsAndEmptyScripts() {
        let extraction = extract(#"<script type="application/ld+json">  </script><script type="application/ld+json">[1, {"@type":"A"}]</script>"#)
        #expect(serializedItems(extraction) == [#"{"@type":"A"}"#])
        #expect(extraction.diagnostics.map(\.code.rawValue) == ["json-ld-empty", "json-ld-not-object"])

        let numbers = extract(#"<script type="application/ld+json">["# + String(repeating: "1,", count: 50_000) + "1]</script>")
        #expect(numbers.items.isEmpty)
        #expect(
            numbers.diagnostics == [
                MarkupDiagnostic(code: .jsonLDNotObject, message: "JSON-LD script 1: 50001 JSON-LD values that are not an object ignored")
            ])
    }

    @Test func keepsOtherScriptsWhenOneIsBroken() {
        let html = """
            <script type="application/ld+json">{"@type": "Broken", </script>
            <script type="application/ld+json">{"@type": "Fine"}</script>
            """
        let extraction = extract(html)
        #expect(serializedItems(extraction) == [#"{"@type":"Fine"}"#])
        #expect(extraction.diagnostics.map(\.code.rawValue) == ["json-unrecoverable"])
    }

    @Test func dropsADeeplyNestedScriptQuickly() {
        let depth = 100_000
        let html =
            #"<script type="application/ld+json">"# + String(repeating: "[", count: depth)
            + String(repeating: "]", count: depth) + #"</script><script type="application/ld+json">{"@type":"Kept"}</script>"#
        let clock = ContinuousClock()
        var extraction = MarkupExtraction()
        let elapsed = clock.measure { extraction = extract(html) }
        #expect(elapsed < .seconds(5))
        #expect(serializedItems(extraction) == [#"{"@type":"Kept"}"#])
        #expect(extraction.diagnostics.map(\.code.rawValue) == ["json-too-deep"])
    }

    @Test func skipsScriptsOverTheSizeLimit() {
        let padding = String(repeating: " ", count: JSONLimits.maximumBytes)
        let extraction = extract(#"<script type="application/ld+json">{"@type":"Big"}"# + padding + "</script>")
        #expect(extraction.items.isEmpty)
        #expect(extraction.diagnostics.map(\.code.rawValue) == ["json-too-large"])
    }

    @Test func stripsMarkers() {
        #expect(JSONLDScript.strippingMarkers(Array("  <!--{}-->  ".utf8)) == Array("{}".utf8))
        #expect(JSONLDScript.strippingMarkers(Array("/*<![CDATA[*/{}/*]]>*/".utf8)) == Array("{}".utf8))
        #expect(JSONLDScript.strippingMarkers(Array("<!---->".utf8)) == [])
    }
}
