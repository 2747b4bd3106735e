import Testing

@testable import CalDAV

@Suite("Response header lines: status lines and entity tags")
struct ResponseHeaderLineTests {
    @Test(
        "lines as libcurl hands them over",
        arguments: [
            ("HTTP/1.1 201 Created\r\n", ResponseHeaderLine.statusLine),
            ("HTTP/2 204\r\n", .statusLine),
            ("ETag: \"abc-123\"\r\n", .entityTag("\"abc-123\"")),
            ("etag:W/\"weak\"  \r\n", .entityTag("W/\"weak\"")),
            ("ETAG:\t\"\"\r\n", .entityTag("\"\"")),
            ("ETag: abc\r\n", .entityTag(nil)),
            ("ETag: \"a\"b\"\r\n", .entityTag(nil)),
            ("ETag: \"a b\"\r\n", .entityTag(nil)),
            ("ETag: \"unterminated\r\n", .entityTag(nil)),
            ("ETag : \"spaced-name\"\r\n", .other),
            ("X-ETag: \"other\"\r\n", .other),
            ("Content-Type: text/calendar\r\n", .other),
            ("\r\n", .other),
            ("", .other),
        ])
    func line(text: String, expected: ResponseHeaderLine) {
        #expect(ResponseHeaderLine(Array(text.utf8)) == expected)
    }

    @Test("an entity tag over the limit is dropped, one at the limit kept")
    func limit() {
        let atLimit = "\"" + String(repeating: "a", count: CalDAVLimits.entityTagBytes - 2) + "\""
        #expect(ResponseHeaderLine(Array("ETag: \(atLimit)\r\n".utf8)) == .entityTag(atLimit))
        let over = "\"" + String(repeating: "a", count: CalDAVLimits.entityTagBytes - 1) + "\""
        #expect(ResponseHeaderLine(Array("ETag: \(over)\r\n".utf8)) == .entityTag(nil))
    }
}
