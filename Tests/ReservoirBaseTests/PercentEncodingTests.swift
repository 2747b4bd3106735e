import ReservoirBase
import Testing

@Suite("PercentEncoding: RFC 3986 §2.1, read strictly")
struct PercentEncodingTests {
    @Test("%XX is the byte XX in either case; a % without two hexadecimal digits makes the text unreadable")
    func decoding() {
        #expect(PercentEncoding.decoded(Array("a%2Fb%2fc".utf8)) == Array("a/b/c".utf8))
        #expect(PercentEncoding.decoded(Array("%E2%82%AC".utf8)) == [0xE2, 0x82, 0xAC])
        #expect(PercentEncoding.decoded(Array("plain".utf8)) == Array("plain".utf8))
        for bad in ["%", "%2", "%G0", "a%2", "%%41"] {
            #expect(PercentEncoding.decoded(Array(bad.utf8)) == nil, "\(bad)")
        }
    }
}
