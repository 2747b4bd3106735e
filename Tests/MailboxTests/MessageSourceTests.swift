import Foundation
import MIME
import Testing

@testable import Mailbox

@Suite struct MessageSourceTests {
    /// A fresh temporary directory, removed by the caller.
    func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("mime-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    func write(_ text: String, to url: URL) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    @Test func maildirReadsCurNewAndSubfoldersInOrder() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        try write("Subject: b\n\nx", to: root.appendingPathComponent("cur/200.host:2,FS"))
        try write("Subject: a\n\nx", to: root.appendingPathComponent("new/100.host"))
        try write("Subject: tmp\n\nx", to: root.appendingPathComponent("tmp/300.host"))
        try write("Subject: hidden\n\nx", to: root.appendingPathComponent("cur/.hidden"))
        try write("Subject: c\n\nx", to: root.appendingPathComponent(".Travel/cur/400.host;2,S"))
        try FileManager.default.createDirectory(at: root.appendingPathComponent(".Travel/new"), withIntermediateDirectories: true)

        let messages = Array(try MessageSource(path: root.path))
        #expect(messages.map { Message(bytes: $0.bytes).subject } == ["a", "b", "c"])
        #expect(messages.map(\.origin.maildirFlags) == [nil, "FS", "S"])
        #expect(messages[0].origin.path?.hasSuffix("new/100.host") == true)
    }

    @Test(arguments: ["\n", "\r\n"])
    func mboxSplitsAndUnescapes(_ lineBreak: String) throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let text = """
            From alice@example.com Mon Jan  2 15:04:05 2006
            Subject: one

            >From the start
            >>From deeper
            From inside a paragraph stays

            From bob@example.com Mon Jan  2 15:04:06 2006
            Subject: two

            body two

            """.replacingOccurrences(of: "\n", with: lineBreak)
        let file = root.appendingPathComponent("box.mbox")
        try write(text, to: file)

        let messages = Array(try MessageSource(path: file.path))
        #expect(messages.count == 2)
        #expect(messages.map(\.origin.mboxIndex) == [0, 1])
        let first = String(decoding: messages[0].bytes, as: UTF8.self)
        let expectedFirst = "Subject: one\n\nFrom the start\n>From deeper\nFrom inside a paragraph stays\n"
            .replacingOccurrences(of: "\n", with: lineBreak)
        #expect(first == expectedFirst)
        #expect(String(decoding: messages[1].bytes, as: UTF8.self) == "Subject: two\n\nbody two\n".replacingOccurrences(of: "\n", with: lineBreak))
    }

    @Test func singleFileIsByteExact() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let file = root.appendingPathComponent("m.eml")
        let bytes: [UInt8] = Array("Subject: x\r\n\r\nbody\r\n".utf8) + [0x00, 0xFF]
        try Data(bytes).write(to: file)
        #expect(try MessageSource.file(file.path).bytes == bytes)
        let all = Array(try MessageSource(path: file.path))
        #expect(all.map(\.bytes) == [bytes])
    }

    @Test func errorsAreClear() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(throws: MessageSourceError(.notFound, path: root.path + "/missing", "")) {
            try MessageSource(path: root.path + "/missing")
        }
        #expect(throws: MessageSourceError(.notFound, path: root.path + "/missing", "")) {
            try MessageSource.file(root.path + "/missing")
        }
        // An empty directory is neither a Maildir nor a folder of messages.
        do {
            _ = try MessageSource(path: root.path)
            Issue.record("expected an error")
        } catch let error as MessageSourceError {
            #expect(error.code == .notMail)
            #expect(error.description.contains("Maildir"))
        }
    }

    @Test func directoryOfMessageFiles() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        try write("Subject: 2\n\nx", to: root.appendingPathComponent("b.eml"))
        try write("Subject: 1\n\nx", to: root.appendingPathComponent("a.eml"))
        #expect(Array(try MessageSource(path: root.path)).map { Message(bytes: $0.bytes).subject } == ["1", "2"])
    }

    @Test("deferred reads give the messages an eager read gives, and skip a file gone before it is read")
    func deferredReads() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        try write("Subject: a\r\n\r\nfirst\r\n", to: root.appendingPathComponent("new/100.host"))
        try write("Subject: b\n\nsecond", to: root.appendingPathComponent("cur/200.host:2,S"))
        try write("Subject: c\n\nthird", to: root.appendingPathComponent("cur/300.host:2,"))
        let source = try MessageSource(path: root.path)
        let eager = Array(source)
        let deferred = Array(source.skipping({ _, _ in false }, deferringReads: true))
        #expect(deferred.map(\.bytes) == [[], [], []])  // found, not read
        #expect(deferred.map(\.size) == eager.map(\.bytes.count))
        let read = deferred.compactMap { $0.readingDeferred() }
        #expect(read.map(\.bytes) == eager.map(\.bytes))
        #expect(read.map(\.origin) == eager.map(\.origin))
        #expect(read.allSatisfy { $0.file == nil })
        // Reading again is harmless: a message already read is itself.
        #expect(read[0].readingDeferred()?.bytes == eager[0].bytes)

        try FileManager.default.removeItem(at: root.appendingPathComponent("cur/300.host:2,"))
        #expect(deferred[2].readingDeferred() == nil)
    }

    @Test func maildirFlagNames() {
        #expect(MessageSource.maildirFlags("123.host,S=10:2,RS") == "RS")
        #expect(MessageSource.maildirFlags("123.host;2,") == "")
        #expect(MessageSource.maildirFlags("123.host") == nil)
    }
}
