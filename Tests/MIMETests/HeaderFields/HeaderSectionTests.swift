import Testing

@testable import MIME

@Suite struct HeaderSectionTests {
    @Test func rawRangesCoverFoldedFieldsExactly() {
        let text = "Subject: one\r\n two\r\nFrom: a@b.example\r\n\r\nbody"
        let bytes = Array(text.utf8)
        let header = HeaderSection.parse(bytes, in: 0..<bytes.count)
        #expect(header.fields.count == 2)
        let subject = header.fields[0]
        #expect(String(decoding: bytes[subject.rawRange], as: UTF8.self) == "Subject: one\r\n two\r\n")
        #expect(String(decoding: bytes[subject.valueRange], as: UTF8.self) == " one\r\n two")
        #expect(String(decoding: bytes[header.bodyStart...], as: UTF8.self) == "body")
    }

    @Test func fieldNamesMatchWithoutCase() throws {
        let bytes = Array("CONTENT-type: text/plain\nX-[Odd]: 1\n\nbody".utf8)
        let fields = HeaderSection.parse(bytes, in: 0..<bytes.count).fields
        try #require(fields.count == 2)
        #expect(fields[0].hasName("Content-Type"))
        #expect(fields[0].hasName("content-type"))
        #expect(!fields[0].hasName("Content-Typf"))
        #expect(!fields[0].hasName("Content-Type "))
        // Only letters fold: "[" and "{" differ by the same bit as "A" and "a".
        #expect(fields[1].hasName("x-[odd]"))
        #expect(!fields[1].hasName("x-{odd]"))
        // Not ASCII: as many bytes, never equal.
        #expect(!fields[1].hasName("x-ödd"))
    }

    @Test func unfoldingJoinsContinuationLines() {
        for message in Fixture.both("Subject: Fwd: \n\tSaying \n Hello\nFrom: x@y.example\n\nbody\n") {
            #expect(message.subject == "Fwd: \tSaying  Hello")
        }
    }

    @Test func obsoleteSpaceBeforeColonAndBOM() {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("Subject  : hi\nFrom: a@b.example\n\nbody".utf8)
        let message = Message(bytes: bytes)
        #expect(message.subject == "hi")
        #expect(message.from.map(\.address) == ["a@b.example"])
        #expect(message.diagnostics.contains { $0.code == .byteOrderMark })
    }

    @Test func messageWithoutHeaderIsAllBody() {
        for message in Fixture.both("This is a simple message not having headers.\nThe whole text should be recognized as body.\n") {
            #expect(message.header.fields.isEmpty)
            #expect(message.text(of: message.root) == "This is a simple message not having headers.\nThe whole text should be recognized as body.\n")
        }
    }

    @Test func rawEightBitSubjectFallsBackToLatin1() {
        var bytes = Array("Subject: Fr".utf8)
        bytes += [0xF6]
        bytes += Array("sche und Gr\u{FC}\u{DF}e\n\nx".utf8)
        let message = Message(bytes: bytes)
        #expect(message.subject == "Frösche und Grüße")
    }
}
