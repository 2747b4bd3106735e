import Foundation
import Testing
@testable import Mailbox

@Suite struct FileSystemTests {
    @Test func pipeRoundTripLargerThanOneRead() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        let payload = (0..<(FileSystem.readChunk * 2 + 17)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let writeEnd = fds[1]
        let writer = Thread {
            FileSystem.writeAll(writeEnd, payload)
            close(writeEnd)
        }
        writer.start()
        let read = try FileSystem.readAll(fds[0], sizeHint: 0, path: "pipe")
        close(fds[0])
        #expect(read == payload)
    }

    @Test func readingADirectoryAsAFileFails() {
        #expect(throws: MessageSourceError.self) { try MessageSource.file(NSTemporaryDirectory()) }
    }

    @Test(.enabled(if: MIMECorpus.available))
    func stalwartMaildirTree() throws {
        let root = MIMECorpus.root.appendingPathComponent("stalwart-mail-parser/maildir")
        let messages = Array(try MessageSource(path: root.path))
        // Root first, then ".My Folder", then ".My Folder.Nested Folder"; by file name inside each.
        #expect(messages.count == 6)
        #expect(messages.map(\.origin.maildirFlags) == ["Sb", "STln", "TDR", "", "RDF,", "FP"])
        #expect(messages.allSatisfy { !$0.bytes.isEmpty })
    }
}
