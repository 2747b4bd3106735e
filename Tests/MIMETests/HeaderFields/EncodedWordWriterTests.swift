import Testing

@testable import MIME

@Suite("RFC 2047 encoding")
struct EncodedWordWriterTests {
    @Test(
        "written words decode to the text, and none is longer than 75 characters (RFC 2047 §2)",
        arguments: [
            "Zürich HB → Milano Centrale", "Harborview Hotel Boston", "日本語のテキストがここに長く続きます、とても長い件名です",
            "=?UTF-8?Q?looks_encoded?= plain", "a  b\tc", "émoji 🎉 and combining é",
        ])
    func roundTrip(_ text: String) {
        let words = EncodedWordWriter.words(text)
        #expect(words.allSatisfy { $0.count <= EncodedWordWriter.maxWordLength })
        let value = Array((" " + words.joined(separator: " ")).utf8)
        let decoded = HeaderText.decode(value[...], at: 0).text
        #expect(decoded == text.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " "))
    }
}
