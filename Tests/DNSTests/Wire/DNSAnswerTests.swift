import Testing

@testable import DNS

@Suite struct DNSAnswerTests {
    /// A response with one question and the given TXT rdatas for `a.example`.
    static func response(rcode: UInt8 = 0, rdatas: [[UInt8]]) -> [UInt8] {
        var m: [UInt8] = [0x12, 0x34, 0x81, 0x80 | rcode, 0, 1, 0, UInt8(rdatas.count), 0, 0, 0, 0]
        m += [1, UInt8(ascii: "a"), 7] + Array("example".utf8) + [0, 0, 16, 0, 1]
        for rdata in rdatas {
            m += [0xC0, 12, 0, 16, 0, 1, 0, 0, 0x0E, 0x10, UInt8(rdata.count >> 8), UInt8(rdata.count & 0xFF)]
            m += rdata
        }
        return m
    }

    static func strings(_ parts: [String]) -> [UInt8] {
        parts.flatMap { [UInt8($0.utf8.count)] + Array($0.utf8) }
    }

    @Test func concatenatesCharacterStrings() throws {
        let answer = try DNSAnswer(Self.response(rdatas: [Self.strings(["v=DKIM1; ", "p=abc"]), Self.strings(["second"])]))
        #expect(answer.responseCode == .noError)
        #expect(answer.txtRecords == [Array("v=DKIM1; p=abc".utf8), Array("second".utf8)])
    }

    @Test func nameErrorAndServerFailure() throws {
        #expect(try DNSAnswer(Self.response(rcode: 3, rdatas: [])).responseCode == .nameError)
        #expect(try DNSAnswer(Self.response(rcode: 2, rdatas: [])).responseCode == .serverFailure)
    }

    @Test func characterStringLongerThanRdataIsRejected() {
        #expect(throws: DNSAnswer.ParseError.malformedTXT) {
            try DNSAnswer(Self.response(rdatas: [[10] + Array("short".utf8)]))
        }
    }

    /// Every prefix of a valid answer either parses or is rejected; none crashes.
    @Test func everyTruncationIsHandled() {
        let full = Self.response(rdatas: [Self.strings(["v=DKIM1; p=abc", "def"])])
        for length in 0..<full.count {
            #expect(throws: DNSAnswer.ParseError.self) { try DNSAnswer(Array(full[0..<length])) }
        }
    }

    @Test func pointerLoopIsRejected() {
        var m: [UInt8] = [0, 0, 0x81, 0x80, 0, 1, 0, 0, 0, 0, 0, 0]
        m += [0xC0, 12]  // points at itself: skipName stops after one pointer, then type/class truncated
        #expect(throws: DNSAnswer.ParseError.self) { try DNSAnswer(m) }
    }
}
