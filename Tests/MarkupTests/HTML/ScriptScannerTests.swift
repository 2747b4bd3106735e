import Foundation
import Testing

@testable import Markup

/// The quick script reader must find exactly what libxml2's tree holds, or step aside.
@Suite struct ScriptScannerTests {
    static let script = #"<script type="application/ld+json">{"@type":"FoodEstablishmentReservation","reservationNumber":"A1"}</script>"#

    static func scripts(_ html: String) -> [String]? {
        let bytes = Array(html.utf8)
        return bytes.withUnsafeBufferPointer { buffer in
            ScriptScanner.jsonLDScripts(buffer)?.map { String(decoding: buffer[$0], as: UTF8.self) }
        }
    }

    /// Both ways of reading a part give the same items and diagnostics.
    static func expectSameAsTree(_ html: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let bytes = Array(html.utf8)
        let quick = MarkupExtractor.extract(html: bytes)
        let tree = MarkupExtractor.extractFromTree(html: bytes)
        #expect(quick.items == tree.items, "\(html)", sourceLocation: sourceLocation)
        #expect(quick.diagnostics == tree.diagnostics, "\(html)", sourceLocation: sourceLocation)
    }

    @Test("an ordinary confirmation: head, title, style, comments, conditional comments, scripts")
    func ordinaryMail() throws {
        let html = """
            <?xml version="1.0" encoding="utf-8"?>
            <!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">
            <html><head><meta charset="utf-8"><title>Your table at EPIC Steak</title>
            <style type="text/css">p > a { color: #333 } /* </p> */</style>
            <!--[if mso]><style>td { padding: 0 }</style><![endif]-->
            <script type="text/javascript">if (a < b && c > d) { x = "<p>" }</script>
            \(Self.script)
            </head><body><![if !mso]><p class=intro data-x='1'>Dear Alice &amp; Bob, 3 < 4</p><![endif]>
            <SCRIPT TYPE = ' application/LD+JSON; charset=utf-8 ' >[{"@type":"Event","name":"Two"}]</SCRIPT >
            <img src="logo.png" alt="<Logo>" /><br/></body></html>
            """
        let found = try #require(Self.scripts(html))
        #expect(found == [#"{"@type":"FoodEstablishmentReservation","reservationNumber":"A1"}"#, #"[{"@type":"Event","name":"Two"}]"#])
        Self.expectSameAsTree(html)
        #expect(MarkupExtractor.extract(html: Array(html.utf8)).items.count == 2)
    }

    @Test("scripts hidden from the tree are hidden from the scanner: comments, attribute values, other raw text")
    func hiddenScripts() throws {
        for html in [
            "<!-- \(Self.script) -->",
            "<a title='\(Self.script)'>x</a>",
            "<style>p { } \(Self.script)</style>",
            "<script type=\"text/javascript\">var s = '\(Self.script.replacingOccurrences(of: "</script>", with: ""))';</script>",
        ] {
            #expect(try #require(Self.scripts(html)) == [], "\(html)")
            Self.expectSameAsTree(html)
        }
    }

    @Test(
        "constructs HTML parsers read differently send the part to the full parser",
        arguments: [
            "<!--> \(script) -->",  // an empty comment in HTML only
            "<!-- x --!> \(script) -->",  // "--!>" ends a comment in HTML only
            #"<script type="application/ld+json">{"a":"</scriptx>"}</script>"#,  // libxml2 ends at the prefix
            "<title>\(script)</title>",  // RCDATA in HTML, markup to libxml2
            "<textarea>\(script)</textarea>",
            #"<script type="application/ld+json"/>{"a":1}</script>"#,  // self-closed: empty to libxml2
            #"<script type="application/ld+json">{"a":"<!-- <script>"}</script> x </script>"#,  // escaped script data
            "<? \(script) ?>",
            "</ \(script) >",
            "<_x title=\"\(script)\">",
            "<noscript>\(script)</noscript>",
            "<svg>\(script)</svg>",
            "<![CDATA[ \(script) ]]>",
            #"<script type="application/ld&#43;json">{"a":1}</script>"#,
            #"<script type="application/ld+json">{"a":1}"#,  // no end tag
            "<p>\u{0C}\(script)",  // form feed
            "<p>\u{01}\(script)",  // a control character
            "<!DOCTYPE html SYSTEM \"a>\(script)\">",
            "<a b='x' / \(script)>",
            "<script type=\"application/ld+json\"><noscript>\(script)",  // a tag first in a script
            "<script type=\"application/ld+json\"></p>{}</script>",
            "<schema:script type=\"application/ld+json\">{\"a\":\"&quot;\"}</schema:script>",  // found by fuzz-scripts
            "<script x:type=\"application/ld+json\">{\"a\":1}</script>",
        ])
    func unsure(html: String) {
        #expect(Self.scripts(html) == nil)
        Self.expectSameAsTree(html)
    }

    @Test("parts with Microdata always go to the tree")
    func microdata() {
        let bytes = Array("<div itemscope itemtype=\"https://schema.org/Event\"><span itemprop=name>x</span></div>\(Self.script)".utf8)
        #expect(bytes.withUnsafeBufferPointer { ScriptScanner.needsTree($0) })
        let orphan = Array("<span ItemProp=name>x</span>\(Self.script)".utf8)
        #expect(orphan.withUnsafeBufferPointer { ScriptScanner.needsTree($0) })
        #expect(!Array(Self.script.utf8).withUnsafeBufferPointer { ScriptScanner.needsTree($0) })
    }

    @Test("the golden fixtures read the same both ways")
    func fixtures() throws {
        var quick = 0
        for name in MarkupFixtureTests.fixtures {
            let html = try String(contentsOf: MarkupFixtureTests.folder.appendingPathComponent(name + ".html"), encoding: .utf8)
            Self.expectSameAsTree(html)
            if Self.scripts(html) != nil, !Array(html.utf8).withUnsafeBufferPointer({ ScriptScanner.needsTree($0) }) { quick += 1 }
        }
        // The JSON-LD-only fixtures take the quick way.
        #expect(quick >= 3)
    }

    /// Random documents from pieces that matter to tokenizers: every one the scanner answers
    /// must read the same as the tree. (The fuzz-scripts target does the same with mutations.)
    static let randomDocumentCount = Int(ProcessInfo.processInfo.environment["RESERVOIR_SCRIPT_DOCUMENTS"] ?? "") ?? 20_000

    @Test("20,000 random documents of tags, comments, quotes and scripts read the same both ways")
    func randomDocuments() {
        let pieces = [
            Self.script, "<script type=\"application/ld+json\">", "<script type=application/ld+json>", "<script>",
            "</script>", "</script >", "</SCRIPT>", "</scriptx>", "<script type=\"text/javascript\">",
            #"{"@type":"Event","name":"Gala","startDate":"2031-05-12T19:30:00-07:00"}"#, #"[{"@type":"Person"}]"#,
            "<!--", "-->", "--!>", "<!-->", "<!--->", "<![if !mso]>", "<![endif]>", "<![CDATA[", "]]>",
            "<?xml version=\"1.0\"?>", "<?", "<!DOCTYPE html>", "<!doctype html SYSTEM \"x\">",
            "<title>", "</title>", "<style>", "</style>", "<textarea>", "</textarea>", "<noscript>",
            "<p>", "</p>", "<div/>", "<br />", "<a href=\"x\">", "<a href='y' b>", "<a b=c d>", "</a>",
            "<table><tr><td>", "</td></tr></table>", "<html>", "</html>", "<head>", "<body>",
            "\"", "'", "<", ">", "/", "=", "&amp;", "&#43;", "\r\n", "\n", " ", "\t", "text", "é", "{", "}",
            "<p class=x", " type=\"application/ld+json\"", "<_", "</", "</ ", "<1", "`",
            "<o:p>", "</o:p>", "<x:script>", "&quot;", " x:type=", "<v:shape v:ext=\"edit\">",
        ]
        var generator = SystemRandomNumberGenerator()
        var answered = 0
        for _ in 0..<Self.randomDocumentCount {
            let length = Int.random(in: 1...14, using: &generator)
            let html = (0..<length).map { _ in pieces.randomElement(using: &generator)! }.joined()
            let bytes = Array(html.utf8)
            guard bytes.withUnsafeBufferPointer({ ScriptScanner.jsonLDScripts($0) }) != nil else { continue }
            answered += 1
            let quick = MarkupExtractor.extract(html: bytes)
            let tree = MarkupExtractor.extractFromTree(html: bytes)
            if quick.items != tree.items || quick.diagnostics != tree.diagnostics {
                Issue.record("differs from the tree: \(html.debugDescription)")
                return
            }
        }
        // Most documents are plain enough to be answered.
        #expect(answered > Self.randomDocumentCount / 8)
    }
}
