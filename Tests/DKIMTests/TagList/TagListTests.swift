import Testing

@testable import DKIM

@Suite struct TagListTests {
    @Test func readsTagsWithFoldingWhitespace() throws {
        let list = try TagList(parsing: " v=1;\r\n\ta = rsa-sha256 ; b=abc\r\n def; x_y=; unknown=ok;")
        #expect(list["v"] == "1")
        #expect(list["a"] == "rsa-sha256")
        #expect(list["b"] == "abc\r\n def")
        #expect(list["x_y"] == "")
        #expect(list["unknown"] == "ok")
        #expect(TagList.withoutWhitespace(list["b"] ?? "") == "abcdef")
    }

    @Test(arguments: [
        ("v=1; v=2", TagList.ParseError.duplicateTag("v")),
        ("v=1; novalue", TagList.ParseError.missingEquals("novalue")),
        ("1v=1", TagList.ParseError.invalidTagName("1v")),
        ("=x", TagList.ParseError.invalidTagName("")),
    ])
    func rejectsMalformedLists(text: String, error: TagList.ParseError) {
        #expect(throws: error) { try TagList(parsing: text) }
    }

    @Test func headerListsAreLowercasedWithoutWhitespace() {
        #expect(TagList.lowercasedList("From : To:\r\n\tSUBJECT::Date: ") == ["from", "to", "subject", "date", ""])
        #expect(TagList.lowercasedList("") == [])
        #expect(TagList.lowercasedList("Ä-Header:x") == ["ä-header", "x"])
        // The same items as the String operations it replaces, on random lists.
        let alphabet: [Character] = ["a", "B", "z", ":", " ", "\t", "\r\n", "-", "Ü", "ß", "1"]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let text = String((0..<Int.random(in: 0..<24, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
            let expected = text.split(separator: ":").map { TagList.withoutWhitespace(String($0)).lowercased() }
            #expect(TagList.lowercasedList(text) == expected, "\(text.debugDescription)")
        }
        #expect(TagList.withoutWhitespace("no-space") == "no-space")
        #expect(TagList.withoutWhitespace(" a\r\n\tb ") == "ab")
    }

    @Test(arguments: [
        ("example.com", true), ("mail._domainkey.example.com", true), ("s-1", true), ("bücher.example", true),
        ("", false), ("a..b", false), (".a", false), ("a.", false), ("a b", false), ("a;b", false), ("x/y", false),
    ])
    func domainAndSelectorNames(name: String, valid: Bool) {
        #expect(DKIMSignature.isDomainName(name) == valid)
    }

    @Test func base64SkipsWhitespaceAndRejectsGarbage() {
        #expect(Base64.decode("aGVs\r\n bG8=") == Array("hello".utf8))
        #expect(Base64.decode("aGVsbG8") == Array("hello".utf8))
        #expect(Base64.decode("aGV*bG8=") == nil)
        #expect(Base64.decode("aGVsbG8=x") == nil)
        #expect(Base64.encode(Array("hello".utf8)) == "aGVsbG8=")
        for length in 0..<8 {
            let bytes = (0..<length).map { UInt8($0 * 37 & 0xFF) }
            #expect(Base64.decode(Base64.encode(bytes)) == bytes)
        }
    }
}
