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
