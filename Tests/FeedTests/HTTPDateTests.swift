import Testing

@testable import Feed

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
