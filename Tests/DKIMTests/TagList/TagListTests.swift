@testable import DKIM
import Testing

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
