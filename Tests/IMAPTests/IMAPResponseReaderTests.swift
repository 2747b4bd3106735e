import Testing

@testable import IMAP

@Suite("Reading IMAP responses within limits")
struct IMAPResponseReaderTests {
    static func responses(_ chunks: [String], literalLimit: Int = IMAPLimits.otherLiteralBytes) throws(IMAPError) -> [IMAPUntagged] {
        var reader = IMAPResponseReader()
        reader.literalLimit = literalLimit
        var out: [IMAPUntagged] = []
        for chunk in chunks {
            Array(chunk.utf8).withUnsafeBytes { reader.feed($0) }
            while let item = try reader.next() {
                if case .line(let response) = item { out.append(response) }
            }
        }
        return out
    }

    @Test("a FETCH with a literal split across reads: the literal's bytes exactly, CRLFs inside kept")
    func literalAcrossChunks() throws {
        let body = "From: a@example.org\r\nSubject: x\r\n\r\nbody {5}\r\n"
        let whole = "* 3 FETCH (UID 12 BODY[] {\(body.utf8.count)}\r\n\(body))\r\nR4 OK done\r\n"
        let chunks = stride(from: 0, to: whole.utf8.count, by: 7).map { start in
            String(decoding: Array(whole.utf8)[start..<min(start + 7, whole.utf8.count)], as: UTF8.self)
        }
        let out = try Self.responses(chunks, literalLimit: 1000)
        #expect(out.count == 2)
        #expect(out[0].literals == [Array(body.utf8)])
        #expect(out[0].number(after: "UID") == 12)
        #expect(String(decoding: out[1].text, as: UTF8.self) == "R4 OK done")
    }

    @Test("UIDVALIDITY and RFC822.SIZE are read as numbers; words that are not numbers are not")
    func numbers() throws {
        let out = try Self.responses(["* OK [UIDVALIDITY 3857529045] UIDs valid\r\n* 1 FETCH (UID 7 RFC822.SIZE 3311)\r\n* 2 FETCH (UID x)\r\n"])
        #expect(out[0].number(after: "UIDVALIDITY") == 3_857_529_045)
        #expect(out[1].number(after: "RFC822.SIZE") == 3311)
        #expect(out[2].number(after: "UID") == nil)
    }

    @Test("a literal over the command's limit is refused before its bytes are kept; a fitting one is read")
    func literalLimit() throws {
        #expect(throws: IMAPError(.protocolViolation, "")) { try Self.responses(["* 1 FETCH (BODY[] {4097}\r\n"]) }
        #expect(throws: IMAPError(.protocolViolation, "")) { try Self.responses(["* 1 FETCH (BODY[] {99999999999999999999999}\r\n"]) }
        #expect(try Self.responses(["* 1 FETCH (BODY[] {3}\r\nabc)\r\n"]).first?.literals == [Array("abc".utf8)])
    }

    @Test("a line without an end is refused once past the line limit, in pieces or whole")
    func lineLimit() throws {
        let long = String(repeating: "a", count: IMAPLimits.lineBytes + 1)
        #expect(throws: IMAPError(.protocolViolation, "")) { try Self.responses(["* ", long]) }
        #expect(throws: IMAPError(.protocolViolation, "")) { try Self.responses(["* " + long + "\r\n"]) }
        #expect(try Self.responses(["* " + String(repeating: "a", count: 1000) + "\r\n"]).count == 1)
    }
}
