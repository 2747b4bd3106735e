import Foundation
import TestRequirements
import Testing

@testable import MIME

/// Stalwart mail-parser's expected parses of whole messages (`eml/**/NNN.json`, from the input
/// with every CR removed): subjects and the decoded text of text parts.
@Suite(.enabled(if: Requirement.met(CorpusTests.available), "no MIME corpus at ../shared/corpora/mime beside the checkout"))
struct StalwartMessageTests {
    static let folder = CorpusTests.corpus.appendingPathComponent("stalwart-mail-parser/eml")

    struct Expected {
        var subject: String?
        var texts: [String]
    }

    static func expected(_ json: URL) throws -> Expected {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: json)) as? [String: Any])
        let parts = (object["parts"] as? [[String: Any]]) ?? []
        var subject: String? = nil
        for header in (parts.first?["headers"] as? [[String: Any]]) ?? [] where (header["name"] as? String) == "subject" {
            subject = (header["value"] as? [String: Any])?["Text"] as? String
        }
        var texts: [String] = []
        for part in parts {
            let body = part["body"] as? [String: Any]
            // This reader normalizes text line breaks to LF; Stalwart keeps decoded CRs.
            if let text = (body?["Text"] ?? body?["Html"]) as? String { texts.append(text.replacingOccurrences(of: "\r", with: "")) }
        }
        return Expected(subject: subject, texts: texts)
    }

    static func collapsed(_ text: String) -> String {
        text.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
    }

    @Test func subjectsAndTexts() throws {
        let files = try FileManager.default.subpathsOfDirectory(atPath: Self.folder.path)
            .filter { $0.hasSuffix(".eml") }.sorted()
        var subjectMismatches: [String] = []
        var textMismatches: [String] = []
        var compared = 0
        for name in files {
            let json = Self.folder.appendingPathComponent(String(name.dropLast(4)) + ".json")
            guard FileManager.default.fileExists(atPath: json.path) else { continue }
            let expected = try Self.expected(json)
            let bytes = [UInt8](try Data(contentsOf: Self.folder.appendingPathComponent(name))).filter { $0 != 0x0D }
            let message = Message(bytes: bytes)
            compared += 1
            if let subject = expected.subject, Self.collapsed(message.subject ?? "") != Self.collapsed(subject) {
                subjectMismatches.append(name)
            }
            let ours = Set(
                message.root.allParts.filter { $0.isLeaf && $0.contentType.type == "text" }
                    .map { message.text(of: $0).replacingOccurrences(of: "\r", with: "") })
            if !expected.texts.allSatisfy({ ours.contains($0) }) {
                textMismatches.append(name)
                if ProcessInfo.processInfo.environment["MIME_DEBUG"] != nil {
                    for missing in expected.texts where !ours.contains(missing) {
                        print("## \(name) EXPECTED \(String(reflecting: String(missing.prefix(150))))")
                        let close = ours.map { String(reflecting: String($0.prefix(150))) }
                        print("   OURS \(close)")
                    }
                }
            }
        }
        #expect(compared == 107)
        #expect(Set(subjectMismatches) == Self.subjectDifferences, "\(subjectMismatches)")
        #expect(Set(textMismatches) == Set(Self.textDifferences.keys), "\(textMismatches)")
    }

    /// Raw 8-bit Latin-1 in Subject: Stalwart gives U+FFFD, this reader the Latin-1 characters
    /// (HARD-CASES #1, GMime's reading).
    static let subjectDifferences: Set<String> = [
        "legacy/010.eml", "legacy/020.eml", "legacy/022.eml", "legacy/027.eml", "legacy/052.eml",
    ]

    /// Messages where some text part reads differently, and why.
    static let textDifferences: [String: String] = [
        "legacy/026.eml": "8-bit Latin-1 in a text part without charset: Latin-1 here, U+FFFD in Stalwart",
        "legacy/033.eml": "same: Latin-1 instead of U+FFFD",
        "legacy/052.eml": "same: Latin-1 instead of U+FFFD",
        "thirdparty/002.eml": "invalid bytes read as windows-1252 instead of U+FFFD",
        "malformed/001.eml": "an empty inner multipart's text is its preamble; Stalwart yields an empty part",
        "malformed/002.eml": "a multipart without any delimiter stays a multipart leaf (no text part)",
        "malformed/004.eml": "a multipart without any delimiter stays a multipart leaf",
        "malformed/009.eml": "an outer delimiter ends the inner multipart (RFC 2046 nesting); Stalwart keeps it inside",
        "malformed/011.eml": "same as 009",
        "malformed/016.eml": "boundaries that are prefixes of one another: a delimiter must be followed by white space",
        "malformed/020.eml": "two Content-Type fields in one part (no empty line between): the first, multipart/alternative, is used",
        "malformed/021.eml": "same as 020",
        "rfc/000.eml": "audio/image parts are not text parts here",
        "thirdparty/005.eml": "Stalwart ends a part at \"--1--\" in mid-line; delimiters start a line (RFC 2046 §5.1.1)",
    ]
}
