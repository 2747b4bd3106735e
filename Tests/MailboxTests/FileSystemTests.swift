import Foundation
import TestRequirements
import Testing

@testable import Mailbox

@Suite struct FileSystemTests {
    @Test func readingADirectoryAsAFileFails() {
        #expect(throws: MessageSourceError.self) { try MessageSource.file(NSTemporaryDirectory()) }
    }

    @Test(.enabled(if: Requirement.met(MIMECorpus.available), "no MIME corpus at ../shared/corpora/mime beside the checkout"))
    func stalwartMaildirTree() throws {
        let root = MIMECorpus.root.appendingPathComponent("stalwart-mail-parser/maildir")
        let messages = Array(try MessageSource(path: root.path))
        // Root first, then ".My Folder", then ".My Folder.Nested Folder"; by file name inside each.
        #expect(messages.count == 6)
        #expect(messages.map(\.origin.maildirFlags) == ["Sb", "STln", "TDR", "", "RDF,", "FP"])
        #expect(messages.allSatisfy { !$0.bytes.isEmpty })
    }
}
