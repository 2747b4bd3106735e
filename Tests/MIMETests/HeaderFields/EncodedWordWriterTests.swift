import ReservoirBase
import Testing

@testable import MIME

@Suite("RFC 2047 encoding")
struct EncodedWordWriterTests {
    @Test(
        "written words decode to the text, and none is longer than 75 characters (RFC 2047 §2)",
        arguments: [
            "Zürich HB → Milano Centrale", "Harborview Hotel Boston", "日本語のテキストがここに長く続きます、とても長い件名です",
            "=?UTF-8?Q?looks_encoded?= plain", "a  b\tc", "émoji 🎉 and combining é",
            "Gala\u{2028}X-Reservation: forged\u{2029}\u{85}end", "a\r\nb\u{0B}c\u{1C}d\u{7F}e\u{9B}f",
        ])
    func roundTrip(_ text: String) {
        let words = EncodedWordWriter.words(text)
        #expect(words.allSatisfy { $0.count <= EncodedWordWriter.maxWordLength })
        let value = Array((" " + words.joined(separator: " ")).utf8)
        let decoded = HeaderText.decode(value[...], at: 0).text
        // Every control character and line break separates words as a space does.
        let spaced = String(String.UnicodeScalarView(text.unicodeScalars.map { ControlCharacter($0) == nil ? $0 : " " }))
        #expect(decoded == spaced.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " "))
        #expect(decoded.unicodeScalars.allSatisfy { ControlCharacter($0) == nil })
    }
}
