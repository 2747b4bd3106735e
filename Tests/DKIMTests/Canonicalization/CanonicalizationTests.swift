import MIME
import Testing

@testable import DKIM

@Suite struct CanonicalizationTests {
    /// RFC 6376 §3.4.6 example.
    static let example = Array("A: X\r\nB : Y\t\r\n\tZ  \r\n\r\n C \r\nD \t E\r\n\r\n\r\n".utf8)

    static func body(_ bytes: [UInt8], relaxed: Bool) -> [UInt8] {
        var canonicalizer = BodyCanonicalizer(relaxed: relaxed)
        canonicalizer.feed(bytes)
        canonicalizer.finish()
        return canonicalizer.output
    }

    static func headers(_ bytes: [UInt8], relaxed: Bool) -> [UInt8] {
        let message = Message(bytes: bytes)
        return message.header.fields.flatMap { HeaderCanonicalizer.canonicalize(bytes, $0, relaxed: relaxed) }
    }

    @Test func rfcExampleRelaxed() {
        let message = Message(bytes: Self.example)
        #expect(String(decoding: Self.headers(Self.example, relaxed: true), as: UTF8.self) == "a:X\r\nb:Y Z\r\n")
        let body = Self.body(Array(Self.example[message.bodyRange]), relaxed: true)
        #expect(String(decoding: body, as: UTF8.self) == " C\r\nD E\r\n")
    }

    @Test func rfcExampleSimple() {
        let message = Message(bytes: Self.example)
        #expect(String(decoding: Self.headers(Self.example, relaxed: false), as: UTF8.self) == "A: X\r\nB : Y\t\r\n\tZ  \r\n")
        let body = Self.body(Array(Self.example[message.bodyRange]), relaxed: false)
        #expect(String(decoding: body, as: UTF8.self) == " C \r\nD \t E\r\n")
    }

    @Test func bareLFIsCRLF() {
        let lf = Array(String(decoding: Self.example, as: UTF8.self).replacingCRLF().utf8)
        #expect(Self.headers(lf, relaxed: false) == Self.headers(Self.example, relaxed: false))
        let lfMessage = Message(bytes: lf)
        let crlfMessage = Message(bytes: Self.example)
        for relaxed in [false, true] {
            #expect(
                Self.body(Array(lf[lfMessage.bodyRange]), relaxed: relaxed) == Self.body(Array(Self.example[crlfMessage.bodyRange]), relaxed: relaxed)
            )
        }
    }

    @Test(arguments: [
        ("", false, "\r\n"), ("", true, ""),
        ("\r\n\r\n", false, "\r\n"), ("\r\n\r\n", true, ""),
        ("abc", false, "abc\r\n"), ("abc  ", true, "abc\r\n"),
        ("a\rb\r\n", false, "a\rb\r\n"), ("  \r\n", true, ""),
        ("x\n\n\ny\n\n", false, "x\r\n\r\n\r\ny\r\n"),
    ])
    func bodyEdgeCases(input: String, relaxed: Bool, expected: String) {
        #expect(String(decoding: Self.body(Array(input.utf8), relaxed: relaxed), as: UTF8.self) == expected)
    }

    /// The streaming canonicalizer gives the same output wherever the input is split.
    @Test(arguments: [false, true])
    func splitAtEveryBoundary(relaxed: Bool) {
        let input = Array(" C \r\nD \t E\r\n\r\nx\ny \t\n\r\r\n\n\n".utf8)
        let whole = Self.body(input, relaxed: relaxed)
        for cut in 0...input.count {
            var canonicalizer = BodyCanonicalizer(relaxed: relaxed)
            canonicalizer.feed(input[0..<cut])
            canonicalizer.feed(input[cut...])
            canonicalizer.finish()
            #expect(canonicalizer.output == whole, "split at \(cut)")
        }
    }

    /// The bulk path (runs of ordinary bytes skipped eight at a time and copied at once) agrees
    /// with the rules applied one byte at a time, on inputs dense in CR, LF, SP and HTAB, with
    /// ordinary runs long enough for the vector test, and the other bytes near the bounds
    /// (0x00–0x21, 0x7F–0xFF).
    @Test(arguments: [false, true])
    func bulkMatchesByteByByte(relaxed: Bool) {
        let alphabet = Array("ab \t\r\n".utf8) + [0x00, 0x08, 0x0B, 0x0C, 0x0E, 0x1F, 0x21, 0x7F, 0x80, 0xFF]
        var generator = SplitMix(state: 0x9E37_79B9_7F4A_7C15)
        for _ in 0..<5_000 {
            var input: [UInt8] = []
            for _ in 0..<Int.random(in: 0..<120, using: &generator) {
                // Half the time a run of ordinary bytes, long enough to fill whole words.
                if Bool.random(using: &generator) {
                    input += [UInt8](repeating: UInt8(ascii: "a"), count: Int.random(in: 1..<40, using: &generator))
                } else {
                    input.append(alphabet[Int.random(in: 0..<alphabet.count, using: &generator)])
                }
            }
            var bytewise = BodyCanonicalizer(relaxed: relaxed)
            for byte in input { bytewise.feed(byte) }
            bytewise.finish()
            #expect(Self.body(input, relaxed: relaxed) == bytewise.output, "\(input)")
            // The same in pieces: lines begun in one piece and ended in the next.
            var pieces = BodyCanonicalizer(relaxed: relaxed)
            var start = 0
            while start < input.count {
                let end = min(input.count, start + Int.random(in: 1...40, using: &generator))
                pieces.feed(input[start..<end])
                start = end
            }
            pieces.finish()
            #expect(pieces.output == bytewise.output, "\(input) in pieces")
        }
    }

    @Test func canonicalizationTags() {
        #expect(DKIMCanonicalization(tag: "relaxed/relaxed") == .relaxedRelaxed)
        #expect(DKIMCanonicalization(tag: "simple") == .simpleSimple)
        #expect(DKIMCanonicalization(tag: "relaxed") == .relaxedSimple)
        #expect(DKIMCanonicalization(tag: "Simple/Relaxed") == .simpleRelaxed)
        #expect(DKIMCanonicalization(tag: "fancy/simple") == nil)
        #expect(DKIMCanonicalization(tag: "relaxed/relaxed/x") == nil)
        #expect(DKIMCanonicalization(tag: "relaxed/") == nil)
        #expect(DKIMCanonicalization(tag: "/simple") == nil)
    }
}

extension String {
    func replacingCRLF() -> String {
        var out = ""
        var previousCR = false
        for scalar in unicodeScalars {
            if previousCR, scalar != "\n" { out.unicodeScalars.append("\r") }
            previousCR = scalar == "\r"
            if !previousCR { out.unicodeScalars.append(scalar) }
        }
        if previousCR { out += "\r" }
        return out
    }
}

/// A small deterministic generator so failures reproduce.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
