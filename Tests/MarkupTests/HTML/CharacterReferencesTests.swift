import Testing

@testable import Markup

@Suite struct CharacterReferencesTests {
    @Test(arguments: [
        ("&quot;a&quot;", "\"a\""),
        ("&#34;&#x22;&#X22;", "\"\"\""),
        ("&amp;&lt;&gt;&apos;&eacute;&nbsp;", "&<>'é\u{A0}"),
        ("&unknown; & &amp &#xZZ; &;", "&unknown; & &amp &#xZZ; &;"),
        ("&#0; &#x110000;", "&#0; &#x110000;"),
    ])
    func decodesReferences(text: String, expected: String) {
        let decoded = CharacterReferences.decode(Array(text.utf8)).map { String(decoding: $0, as: UTF8.self) } ?? text
        #expect(decoded == expected)
    }

    @Test func reportsNothingToDecode() {
        #expect(CharacterReferences.decode(Array("plain".utf8)) == nil)
        #expect(CharacterReferences.decode(Array("a & b".utf8)) == nil)
    }
}
