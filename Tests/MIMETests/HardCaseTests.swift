import Foundation
import TestRequirements
import Testing

@testable import MIME

/// The corpus's HARD-CASES.md, each read the way users expect (skipped without the corpus,
/// failed under `CI=true`).
@Suite(.enabled(if: Requirement.met(CorpusTests.available), "no MIME corpus at ../shared/corpora/mime beside the checkout"))
struct HardCaseTests {
    static func message(_ path: String) throws -> Message {
        Message(bytes: [UInt8](try Data(contentsOf: CorpusTests.corpus.appendingPathComponent(path))))
    }

    @Test func rawLatin1SubjectReadsAsLatin1() throws {
        // Case 1: GMime's reading ("Frösche"), not U+FFFD.
        let message = try Self.message("stalwart-mail-parser/eml/legacy/010.eml")
        let subject = try #require(message.subject)
        #expect(!subject.contains("\u{FFFD}"))
        #expect(subject.unicodeScalars.contains { $0.value >= 0xC0 && $0.value <= 0xFF })
    }

    @Test func encodedWordsInParameters() throws {
        // Case 6.
        let russian = try Self.message("mime-tools/russian.msg")
        #expect(russian.root.allParts.compactMap(\.filename).contains("Список.doc"))
        // Backslashes in a quoted string quote the next character (RFC 5322 §3.2.4).
        let evil = try Self.message("mime-tools/multi-2evil.msg")
        #expect(evil.root.allParts.compactMap(\.filename).contains("/evil/because:ofpath3d-compress.gif"))
    }

    @Test func nulBytesAreKept() throws {
        // Case 9.
        let message = try Self.message("crymap/multi-part-base64.eml")
        let texts = message.root.allParts.filter { $0.isLeaf && $0.contentType.type == "text" }.map { message.text(of: $0) }
        #expect(texts.contains { $0.contains("\u{0}") })
    }

    @Test func longAndSpaceEndedBoundaries() throws {
        // Case 10: one part each.
        for name in ["weird-boundary", "very-long-boundary", "very-very-long-boundary"] {
            let message = try Self.message("mime4j/testmsgs/\(name).msg")
            #expect(message.root.children.count == 1, "\(name)")
        }
    }

    @Test func unknownCharsetStillDecodes() throws {
        // Case 13.
        let message = try Self.message("ruby-mail/emails/plain_emails/raw_email10.eml")
        #expect(!message.text(of: message.root).isEmpty)
        #expect(message.diagnostics.contains { $0.code == .unknownCharset })
    }
}

extension HardCaseTests {
    @Test func damagedHeaderBlocksAreRecovered() throws {
        // Case 5: BOM before the first field, "Subject  :", a garbage first line.
        let bom = try Self.message("mime-tools/utf8-bom-at-start.msg")
        #expect(bom.subject != nil)
        #expect(bom.root.contentType.isMultipart)
        let obsolete = try Self.message("mime4j/testmsgs/obsolete.msg")
        #expect(obsolete.subject?.hasPrefix("The obsolete syntax allow spaces before the colon") == true)
        let garbage = try Self.message("stalwart-mail-parser/eml/malformed/019.eml")
        #expect(garbage.subject == "Sprint 3 multipart fixture")
        #expect(garbage.root.allParts.count == 10)
    }

    @Test("case 2: 8-bit UTF-8 in a text part without charset reads as UTF-8")
    func undeclaredUTF8() throws {
        let message = try Self.message("stalwart-mail-parser/eml/thirdparty/010.eml")
        let texts = message.root.allParts.filter { $0.isLeaf && $0.contentType.type == "text" }.map { message.text(of: $0) }
        #expect(!texts.isEmpty)
        #expect(texts.allSatisfy { !$0.contains("\u{FFFD}") })
    }

    @Test("case 3: a last part without close delimiter keeps its trailing newline")
    func unterminatedLastPart() throws {
        let message = try Self.message("stalwart-mail-parser/eml/malformed/006.eml")
        let last = try #require(message.root.allParts.last { $0.isLeaf })
        #expect(message.text(of: last).hasSuffix("\n"))
    }

    @Test("case 4: an inner multipart missing its close delimiter keeps its text (1.1.1)")
    func innerMissingClose() throws {
        let message = try Self.message("stalwart-mail-parser/eml/malformed/003.eml")
        let inner = try #require(message.root.children.first)
        #expect(message.root.children.count == 1)
        let leaf = try #require(inner.children.first)
        #expect(message.text(of: leaf).hasPrefix("body"))
    }

    @Test("case 7: adjacent B words, the first ending in \"=\" padding, join")
    func paddedAdjacentWords() {
        #expect(HeaderText.decode(Array("=?UTF-8?B?SGVsbG8=?= =?UTF-8?B?IHdvcmxk?=".utf8)).text == "Hello world")
    }

    @Test("case 8: an RFC 2231 continuation split inside a UTF-8 character")
    func splitContinuation() throws {
        let type = try #require(ContentType.parse(Array("application/pdf; name*0*=UTF-8''%E2%98; name*1*=%83.txt".utf8)))
        #expect(type.parameters["name"] == "☃.txt")
    }

    @Test("case 11: invalid base64 decodes what is valid, keeps the part and says so")
    func invalidBase64() {
        let text = "Content-Type: text/plain\nContent-Transfer-Encoding: base64\n\nSGVs*bG8g=d29y!bGQ=\n"
        let message = Message(bytes: Array(text.utf8))
        #expect(message.text(of: message.root).hasPrefix("Hello"))
        #expect(message.diagnostics.contains { $0.code == .invalidBase64 })
    }

    @Test("case 14: a message without any header is all body")
    func noHeader() throws {
        let message = try Self.message("mime4j/testmsgs/malformedHeader-noheader.msg")
        #expect(message.header.fields.isEmpty)
        #expect(!message.text(of: message.root).isEmpty)
    }

    @Test("case 12: windows-1252 bytes in a part labelled utf-8 read as windows-1252")
    func mislabelledWindows1252() {
        let bytes =
            Array("Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: 8bit\n\n".utf8)
            + [0x63, 0x61, 0x66, 0xE9, 0x20, 0x93, 0x71, 0x94]
        let message = Message(bytes: bytes)
        #expect(message.text(of: message.root) == "café “q”")
    }
}
