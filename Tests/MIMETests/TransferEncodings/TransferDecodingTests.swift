import Testing

@testable import MIME

@Suite struct TransferDecodingTests {
    func base64(_ text: String) -> TransferDecoding {
        let bytes = Array(text.utf8)
        return Base64.decode(bytes, in: 0..<bytes.count)
    }

    @Test(arguments: [
        ("SGVsbG8gd29ybGQ=", "Hello world"),
        ("SGVs\r\nbG8g\nd29y bGQ=", "Hello world"),
        ("SGVsbG8", "Hello"),
        ("SGVsbG8=SGVsbG8=", "HelloHello"),
    ])
    func base64Clean(_ input: String, _ expected: String) {
        let result = base64(input)
        #expect(String(decoding: result.bytes, as: UTF8.self) == expected)
        #expect(result.diagnostics.isEmpty)
    }

    @Test func base64WithJunkDecodesWhatIsValid() {
        let result = base64("SGV*sbG8g!d29y=bGQ=")
        #expect(String(decoding: result.bytes, as: UTF8.self).hasPrefix("Hello wor"))
        #expect(result.diagnostics.contains { $0.code == .invalidBase64 })
    }

    @Test func base64SplitAtEveryByte() {
        let encoded = Array("w6l0w6kgY2Fmw6k=".utf8)
        for cut in 0...encoded.count {
            let withBreak = Array(encoded[..<cut]) + [0x0D, 0x0A] + Array(encoded[cut...])
            let result = Base64.decode(withBreak, in: 0..<withBreak.count)
            #expect(String(decoding: result.bytes, as: UTF8.self) == "été café")
        }
    }

    func qp(_ text: String) -> TransferDecoding {
        let bytes = Array(text.utf8)
        return QuotedPrintable.decode(bytes, in: 0..<bytes.count)
    }

    @Test func qpSoftBreakInsideUTF8Sequence() {
        for lineBreak in ["\n", "\r\n"] {
            let result = qp("caf=C3=\(lineBreak)=A9 and =E2=98=\(lineBreak)=83")
            #expect(String(decoding: result.bytes, as: UTF8.self) == "café and ☃")
            #expect(result.diagnostics.isEmpty)
        }
    }

    @Test func qpInvalidEscapeKeptLiterally() {
        let result = qp("price =XY 5=3D5 =\n")
        #expect(String(decoding: result.bytes, as: UTF8.self) == "price =XY 5=5 ")
        #expect(result.diagnostics.contains { $0.code == .invalidQuotedPrintable })
    }

    @Test func qpTrailingWhitespaceIsPadding() {
        #expect(String(decoding: qp("a  \nb\t\r\nc").bytes, as: UTF8.self) == "a\nb\r\nc")
    }

    @Test func unknownEncodingIsPassedThroughWithDiagnostic() {
        let bytes = Array("begin 644 x".utf8)
        let result = TransferDecoding.decode(bytes, in: 0..<bytes.count, encoding: TransferEncoding("x-uuencode"))
        #expect(result.bytes == bytes)
        #expect(result.diagnostics.first?.code == .unknownTransferEncoding)
    }
}
