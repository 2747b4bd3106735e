import Testing

@testable import Feed

@Suite("Conditional GET and HEAD (RFC 7232 §6)")
struct ConditionalRequestTests {
    static let tag = EntityTag(opaque: "abc")
    static let modified: Int64 = 1_795_000_000

    @Test(
        "the decision for each combination of preconditions",
        arguments: [
            (nil, nil, ConditionalOutcome.send),
            ("\"abc\"", nil, .notModified),
            ("W/\"abc\"", nil, .notModified),
            ("\"x\", \"abc\"", nil, .notModified),
            ("\"x\"", nil, .send),
            ("*", nil, .notModified),
            // If-None-Match decides alone: If-Modified-Since is then ignored (§3.3, §6 step 3).
            ("\"x\"", "Fri, 31 Dec 2100 00:00:00 GMT", .send),
            (nil, "Fri, 31 Dec 2100 00:00:00 GMT", .notModified),
            (nil, HTTPDate.format(modified), .notModified),
            (nil, HTTPDate.format(modified - 1), .send),
            (nil, "yesterday", .send),
        ] as [(String?, String?, ConditionalOutcome)])
    func decisions(ifNoneMatch: String?, ifModifiedSince: String?, expected: ConditionalOutcome) {
        let request = ConditionalRequest(ifNoneMatch: ifNoneMatch, ifModifiedSince: ifModifiedSince)
        #expect(request.evaluate(tag: Self.tag, lastModified: Self.modified) == expected)
    }

    @Test("without a Last-Modified, If-Modified-Since never answers 304")
    func noLastModified() {
        let request = ConditionalRequest(ifNoneMatch: nil, ifModifiedSince: "Fri, 31 Dec 2100 00:00:00 GMT")
        #expect(request.evaluate(tag: Self.tag, lastModified: nil) == .send)
    }
}
