import Testing

@testable import MIME

/// Decoders and the part parser on input cut at every byte boundary.
@Suite struct SplitTests {
    @Test func qpSoftBreakAtEveryPosition() {
        let encoded = Array("Gr=C3=BC=C3=9Fe aus K=C3=B6ln =E2=98=83".utf8)
        for cut in 0...encoded.count {
            // A soft break may not split an "=XX" escape.
            if (1...2).contains(where: { cut - $0 >= 0 && encoded[cut - $0] == UInt8(ascii: "=") }) { continue }
            for lineBreak in [[UInt8(ascii: "="), 0x0A], [UInt8(ascii: "="), 0x0D, 0x0A]] {
                let input = Array(encoded[..<cut]) + lineBreak + Array(encoded[cut...])
                let result = QuotedPrintable.decode(input, in: 0..<input.count)
                #expect(String(decoding: result.bytes, as: UTF8.self) == "Grüße aus Köln ☃", "cut at \(cut)")
            }
        }
    }

    @Test func everyPrefixOfAMessageParsesWithoutTrouble() {
        for bytes in [Fixture.lf(PartTreeTests.nested), Fixture.crlf(PartTreeTests.nested)] {
            for end in 0...bytes.count {
                let message = Message(bytes: Array(bytes[..<end]))
                for part in message.root.allParts where part.isLeaf {
                    _ = message.text(of: part)
                    #expect(part.bodyRange.upperBound <= end)
                    #expect(part.bodyRange.lowerBound <= part.bodyRange.upperBound)
                }
                _ = message.diagnostics
                _ = (message.subject, message.from, message.date, message.messageID, message.htmlParts)
            }
        }
    }
}
