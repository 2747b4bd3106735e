import Foundation
import TestRequirements
import Testing

@testable import MIME

/// Runs the shared MIME corpora (`../shared/corpora/mime` beside the package) when present
/// (always under `CI=true`, where an absent corpus fails).
@Suite struct CorpusTests {
    static let corpus: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("../shared/corpora/mime").standardizedFileURL

    static var available: Bool { FileManager.default.fileExists(atPath: corpus.appendingPathComponent("README.md").path) }

    /// Every single-message file of the corpus.
    static func messageFiles() -> [URL] {
        guard let walker = FileManager.default.enumerator(at: corpus, includingPropertiesForKeys: nil) else { return [] }
        var files: [URL] = []
        for case let url as URL in walker
        where ["eml", "msg"].contains(url.pathExtension)
            || (url.pathExtension == "txt" && url.path.contains("/python-email/"))
        {
            files.append(url)
        }
        return files.sorted { $0.path < $1.path }
    }

    static func withoutCR(_ bytes: [UInt8]) -> [UInt8] { bytes.filter { $0 != 0x0D } }

    static func withCRLF(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + bytes.count / 20)
        for b in withoutCR(bytes) {
            if b == 0x0A { out.append(0x0D) }
            out.append(b)
        }
        return out
    }

    /// What a reader of the message would notice: subject, sender, date, tree shape, text.
    struct Summary: Equatable {
        var subject: String?
        var from: [MailboxAddress]
        var date: MessageDate?
        var tree: [String]
        var texts: [String]
        var decodedSizes: [Int]
    }

    static func summary(_ message: Message) -> Summary {
        let parts = message.root.allParts
        let leaves = parts.filter(\.isLeaf)
        return Summary(
            subject: message.subject, from: message.from, date: message.date,
            tree: parts.map { "\($0.depth) \($0.contentType.mediaType) \($0.filename ?? "")" },
            texts: leaves.filter { $0.contentType.type == "text" }.map { message.text(of: $0) },
            decodedSizes: leaves.filter { $0.transferEncoding == .base64 }.map { message.decodedBody(of: $0).count })
    }

    @Test(.enabled(if: Requirement.met(CorpusTests.available), "no MIME corpus at ../shared/corpora/mime beside the checkout"))
    func everyMessageReadsTheSameAsLFAndCRLF() throws {
        let files = Self.messageFiles()
        #expect(files.count > 100, "the corpus folder should not be empty")
        var compared = 0
        for file in files where !Self.notLineBreakNeutral.contains(where: { file.path.hasSuffix($0) }) {
            let bytes = [UInt8](try Data(contentsOf: file))
            let lf = Message(bytes: Self.withoutCR(bytes))
            let crlf = Message(bytes: Self.withCRLF(bytes))
            _ = lf.diagnostics
            #expect(Self.summary(lf) == Self.summary(crlf), "\(file.path)")
            compared += 1
        }
        #expect(compared == files.count - Self.notLineBreakNeutral.count)
    }

    /// mime4j ships the decoded body of every leaf as `NAME_decoded_1_2.txt` (path from the root,
    /// 1-based); compare transfer decoding and tree paths against them.
    @Test(.enabled(if: Requirement.met(CorpusTests.available), "no MIME corpus at ../shared/corpora/mime beside the checkout"))
    func mime4jDecodedParts() throws {
        let folder = Self.corpus.appendingPathComponent("mime4j/testmsgs")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        var matched = 0
        var mismatched: [String] = []
        for name in names.sorted() where name.contains("_decoded_") && (name.hasSuffix(".txt") || name.hasSuffix(".bin")) {
            let stem = name[..<name.range(of: "_decoded_")!.lowerBound]
            let pathText = name[name.range(of: "_decoded_")!.upperBound...].dropLast(4)
            let path = pathText.split(separator: "_").compactMap { Int($0) }
            let message = Message(bytes: [UInt8](try Data(contentsOf: folder.appendingPathComponent("\(stem).msg"))))
            let expected = [UInt8](try Data(contentsOf: folder.appendingPathComponent(name)))
            var part: MIMEPart? = message.root
            // A message/rfc822 part's one child is its message, as in mime4j's paths.
            for index in path.dropFirst() {
                part = part.flatMap { $0.children.indices.contains(index - 1) ? $0.children[index - 1] : nil }
            }
            if let part, message.decodedBody(of: part) == expected {
                matched += 1
            } else if Self.knownMime4jDifferences[name] == nil {
                mismatched.append(name)
            }
        }
        #expect(matched >= 25)
        #expect(mismatched.isEmpty, "\(mismatched)")
    }

    /// Where this reader deliberately reads differently from mime4j, and why.
    static let knownMime4jDifferences: [String: String] = [
        "bad-newlines-multiple-parts-base64_decoded_1_1_1.txt": "base64-encoded message/rfc822 stays a leaf (RFC 2046 §5.2.1 forbids it; no copy)",
        "base64encoded-rfc822message-nested_decoded_1_1_1.txt": "base64-encoded message/rfc822 stays a leaf",
        "base64encoded-rfc822message_decoded_1_1.txt": "base64-encoded message/rfc822 stays a leaf",
        "basic-plain-with-bad-header-separator_decoded_1.txt": "a line of white space ends the header here; mime4j reads it as folding",
        "malformedHeader-nocrlfcrlf_decoded_1.txt": "a non-field line ends the header (as Python); mime4j skips it and goes on",
        "malformedHeaderStartsBody-nocrlfcrlf_decoded_1.txt": "a non-field line ends the header (as Python)",
        "malformedHeader-noheader_decoded_1.txt": "header-less message: all text is body (HARD-CASES #14); mime4j's file is empty",
        "malformedHeaderStartsBody-noheader_decoded_1.txt": "header-less message: all text is body",
        "obsolete_decoded_1.txt": "an invalid field name ends the header here; mime4j skips the line",
        "missing-inner-boundary_decoded_1_2_1.txt": "a multipart without any delimiter stays a leaf with a diagnostic",
        "multipartemptypart_decoded_1_2.txt": "mime4j invents a second empty part after the close delimiter",
    ]

    /// Files whose LF/CRLF conversion changes the content itself (UTF-16 text with 0x0A bytes).
    static let notLineBreakNeutral: Set<String> = ["stalwart-mail-parser/eml/thirdparty/005.eml"]
}
