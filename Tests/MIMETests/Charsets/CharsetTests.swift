import Testing

@testable import MIME

@Suite struct CharsetTests {
    @Test(arguments: [
        ("ISO-8859-2", [0xBF, 0x61, 0xBC, 0xF1] as [UInt8], "żaźń"),
        ("Shift_JIS", [0x93, 0xFA, 0x96, 0x7B], "日本"),
        ("x-sjis", [0x93, 0xFA, 0x96, 0x7B], "日本"),
        ("KOI8-R", [0xF3, 0xD0, 0xC9, 0xD3, 0xCF, 0xCB], "Список"),
        ("ISO-2022-JP", [0x1B, 0x24, 0x42, 0x46, 0x7C, 0x4B, 0x5C, 0x1B, 0x28, 0x42], "日本"),
        ("windows-1250", [0x9A, 0x9D], "šť"),
        ("latin1", [0x63, 0x61, 0x66, 0xE9], "café"),
        ("cp1252", [0x80, 0x93, 0x94], "€“”"),
        ("utf8", [0x63, 0x61, 0x66, 0xC3, 0xA9], "café"),
        ("\"UTF-8\"", [0xE2, 0x98, 0x83], "☃"),
        ("us-ascii", [0x41, 0xE9], "Aé"),
    ])
    func decodes(_ label: String, _ bytes: [UInt8], _ expected: String) {
        let result = Charset(label: label).decode(bytes)
        #expect(result.text == expected)
        #expect(result.known)
    }

    @Test func utf8WithWindows1252Bytes() {
        // "naïve – ok" written in windows-1252 but labeled utf-8.
        let bytes: [UInt8] = [0x6E, 0x61, 0xEF, 0x76, 0x65, 0x20, 0x96, 0x20, 0xE2, 0x82, 0xAC]
        #expect(Charset(label: "utf-8").decode(bytes).text == "naïve – €")
    }

    @Test func unknownLabelFallsBack() {
        let result = Charset(label: "x-unknown-charset-9").decode([0x63, 0xC3, 0xA9])
        #expect(result.text == "cé")
        #expect(!result.known)
    }

    @Test func invalidBytesInIconvCharsetBecomeReplacement() {
        // A lead byte with no trail byte at the end.
        #expect(Charset(label: "Shift_JIS").decode([0x41, 0x81]).text == "A\u{FFFD}")
        // Not valid UTF-16: a lone high surrogate between two letters.
        #expect(Charset(label: "UTF-16BE").decode([0x00, 0x41, 0xD8, 0x00, 0x00, 0x42]).text.hasPrefix("A"))
    }

    /// Labels glibc reads as UTF-8 though Reservoir's tables do not ("utf_8", or with a stray
    /// control character, as a fuzzer wrote one) go through iconv, whose UTF-8 decoder lets
    /// sequences above U+10FFFF through; what comes out is still valid UTF-8.
    @Test(arguments: ["utf_8", "u\u{0B}tf8", "UTF8//IGNORE"])
    func iconvAliasOfUTF8GivesValidUTF8(label: String) {
        let bytes: [UInt8] = Array("ok ".utf8) + [0xF4, 0x91, 0x91, 0x91, 0xF4, 0x91] + Array(" end".utf8)
        let decoded = Charset(label: label).decodeToUTF8(bytes).utf8
        #expect(String(validating: decoded, as: UTF8.self) != nil)
        #expect(String(decoding: decoded, as: UTF8.self).hasPrefix("ok "))
    }

    @Test func textPartWithUnknownCharsetIsReported() {
        let message = Message(bytes: Fixture.lf("Content-Type: text/plain; charset=x-bogus\n\ncaf\u{E9}"))
        #expect(message.text(of: message.root) == "café")
        #expect(message.diagnostics.contains { $0.code == .unknownCharset })
    }
}

@Suite struct LargeCharsetTests {
    @Test func iconvOutputLongerThanOneBuffer() {
        // 600,000 KOI8-R letters become 1.2 MB of UTF-8: more than one iconv output buffer.
        let bytes = [UInt8](repeating: 0xC1, count: 600_000)
        let text = Charset(label: "koi8-r").decode(bytes).text
        #expect(text.unicodeScalars.count == 600_000)
        #expect(text.unicodeScalars.allSatisfy { $0 == "а" })
    }
}
