import ReservoirBase
import Testing

@Suite("Base64Text: RFC 4648 §4 read strictly, RFC 2045 §6.8 read leniently")
struct Base64TextTests {
    @Test(
        "strict: canonical padded text decodes",
        arguments: [("", ""), ("Zg==", "f"), ("Zm8=", "fo"), ("Zm9v", "foo"), ("Zm9vYg==", "foob"), ("Zm9vYmE=", "fooba"), ("Zm9vYmFy", "foobar")])
    func strictVectors(encoded: String, plain: String) {
        #expect(Base64Text.decode(encoded.utf8) == Array(plain.utf8))
        #expect(Base64Text.encode(Array(plain.utf8)) == encoded)
    }

    @Test(
        "strict: white space, other characters, misplaced or missing padding and a lone symbol are refused",
        arguments: [
            "Zm9v\r\nYmFy", "Zm9v YmFy", "Zm9v*mFy", "Zg", "Zm8", "Z", "Zg=", "Zg===", "Zm9=v", "=Zg=", "Zm8==", "A===", "AB=C", "====", "Zm9vYmFy=",
        ])
    func strictRefusals(encoded: String) {
        #expect(Base64Text.decode(encoded.utf8) == nil, "\(encoded)")
    }

    @Test("optional padding: the last group's padding may be left out or written in part, never doubled or moved")
    func optionalPadding() {
        #expect(Base64Text.decode("Zg".utf8, padding: .optional) == Array("f".utf8))
        #expect(Base64Text.decode("Zg=".utf8, padding: .optional) == Array("f".utf8))
        #expect(Base64Text.decode("Zg==".utf8, padding: .optional) == Array("f".utf8))
        #expect(Base64Text.decode("Zm8".utf8, padding: .optional) == Array("fo".utf8))
        for bad in ["Z", "Zm8==", "Zg===", "Zg=g", "=", "Zm9v=", "Zm 8"] {
            #expect(Base64Text.decode(bad.utf8, padding: .optional) == nil, "\(bad)")
        }
    }

    @Test("every byte value round-trips, at every length up to 7")
    func roundTrip() {
        let bytes = (0...255).map { UInt8($0) }
        #expect(Base64Text.decode(Base64Text.encode(bytes).utf8) == bytes)
        for length in 0...7 {
            let prefix = Array(bytes.suffix(length))
            #expect(Base64Text.decode(Base64Text.encode(prefix).utf8) == prefix)
        }
    }

    @Test("lenient: white space and characters outside the alphabet are skipped and counted, padding ends a group, decoding goes on after it")
    func lenient() {
        func read(_ text: String) -> Base64Text.LenientDecoding {
            let bytes = Array(text.utf8)
            return Base64Text.decodeLeniently(bytes, in: 0..<bytes.count)
        }
        #expect(read("Zm9v\r\n YmFy") == .init(bytes: Array("foobar".utf8), invalidSymbols: 0, strayPads: 0, firstSkipped: nil, truncated: false))
        #expect(read("Zm9v*YmFy!") == .init(bytes: Array("foobar".utf8), invalidSymbols: 2, strayPads: 0, firstSkipped: 4, truncated: false))
        // Concatenated encodings: "Zg==" then "Zm8=".
        #expect(read("Zg==Zm8=").bytes == Array("ffo".utf8))
        #expect(read("Zg==Zm8=").strayPads == 0)
        // No padding at the end: the final two or three symbols still decode.
        #expect(read("Zm8").bytes == Array("fo".utf8))
        #expect(read("Zm9vY").truncated)
        #expect(read("Zm9vY").bytes == Array("foo".utf8))
        #expect(read("=Zm9v").strayPads == 1)
        #expect(read("Z=m9v").firstSkipped == 1)
    }

    @Test("lenient: the range is all it reads")
    func lenientRange() {
        let bytes = Array("xxZm9vxx".utf8)
        #expect(Base64Text.decodeLeniently(bytes, in: 2..<6).bytes == Array("foo".utf8))
    }
}
