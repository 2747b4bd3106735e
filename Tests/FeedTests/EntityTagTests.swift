import Testing

@testable import Feed

@Suite("Entity tags and If-None-Match lists (RFC 7232 §2.3, §3.2)")
struct EntityTagTests {
    @Test("the strong tag is the SHA-256 of the exact bytes, in hex, in quotes")
    func strongTag() {
        // FIPS 180-2 appendix B.1: SHA-256("abc").
        let tag = EntityTag(strongFor: Array("abc".utf8))
        #expect(tag.headerValue == "\"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\"")
        #expect(!tag.isWeak)
        #expect(EntityTag(strongFor: Array("abd".utf8)) != tag)
        #expect(EntityTag(strongFor: []).opaque == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test(
        "If-None-Match values are read as RFC 7232 §3.2 lists",
        arguments: [
            ("*", EntityTagCondition.any),
            (" * ", .any),
            ("\"a\"", .tags([EntityTag(opaque: "a")])),
            ("W/\"a\", \"b\"", .tags([EntityTag(opaque: "a", isWeak: true), EntityTag(opaque: "b")])),
            ("\"a,b\",\"c\"", .tags([EntityTag(opaque: "a,b"), EntityTag(opaque: "c")])),
            (" , ,\"x\" ,", .tags([EntityTag(opaque: "x")])),
            ("garbage, \"ok\"", .tags([EntityTag(opaque: "ok")])),
            ("\"unterminated", .tags([])),
            ("", .tags([])),
        ])
    func lists(field: String, expected: EntityTagCondition) {
        #expect(EntityTagCondition(fieldValue: field) == expected)
    }

    @Test("weak comparison ignores W/, strong comparison needs two strong tags (RFC 7232 §2.3.2 table)")
    func comparisons() {
        let weak1 = EntityTag(opaque: "1", isWeak: true)
        let weak2 = EntityTag(opaque: "2", isWeak: true)
        let strong1 = EntityTag(opaque: "1")
        #expect(!weak1.stronglyMatches(weak1) && weak1.weaklyMatches(weak1))
        #expect(!weak1.stronglyMatches(weak2) && !weak1.weaklyMatches(weak2))
        #expect(!weak1.stronglyMatches(strong1) && weak1.weaklyMatches(strong1))
        #expect(strong1.stronglyMatches(strong1) && strong1.weaklyMatches(strong1))
    }
}

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

@Suite("HTTP dates (RFC 7231 §7.1.1.1)")
struct HTTPDateTests {
    @Test("the RFC's example in all three formats is one instant; IMF-fixdate is written")
    func example() {
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == 784_111_777)
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT") == 784_111_777)
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == 784_111_777)
        #expect(HTTPDate.format(784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.format(0) == "Thu, 01 Jan 1970 00:00:00 GMT")
    }

    @Test("formatting and reading back agree across the years", arguments: [0, 951_782_400, 1_795_000_000, 4_102_444_799] as [Int64])
    func roundTrip(epoch: Int64) {
        #expect(HTTPDate.parse(HTTPDate.format(epoch)) == epoch)
    }

    @Test(
        "what is not an HTTP-date is refused",
        arguments: [
            "", "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 6 Nov 1994 08:49:37 GMT", "Sun, 31 Feb 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 Foo 1994 08:49:37 GMT", "1994-11-06T08:49:37Z",
        ])
    func refused(text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }
}
