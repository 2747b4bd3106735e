import Foundation
import Testing

@testable import Documents

@Suite("the document reader's answer, as its caller reads it")
struct DocumentReaderTests {
    /// A stand-in reader: a shell script doing `body`.
    static func script(_ body: String) throws -> String {
        let path = NSTemporaryDirectory() + "reader-" + UUID().uuidString
        try writeProgram("#!/bin/sh\n\(body)\n", to: path)
        return path
    }

    /// Writes an executable through a close-on-exec descriptor: a child another test starts
    /// meanwhile never holds it open for writing, which would make running it fail (ETXTBSY).
    static func writeProgram(_ text: String, to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o755)
        guard descriptor >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        defer { close(descriptor) }
        let bytes = Array(text.utf8)
        guard write(descriptor, bytes, bytes.count) == bytes.count else { throw POSIXError(.EIO) }
    }

    @Test("codes and the end line read; a missing end, a bad page, bad base64 or a stray line is the reader's failure")
    func parse() {
        let good = DocumentReader.parse(Array("Aztec 1 TTE=\nPDF417 2 I1VU\nend ok\n".utf8))
        #expect(good.failure == nil)
        #expect(
            good.barcodes == [
                DocumentBarcode(format: "Aztec", page: 1, bytes: Array("M1".utf8)),
                DocumentBarcode(format: "PDF417", page: 2, bytes: Array("#UT".utf8)),
            ])
        #expect(DocumentReader.parse(Array("end truncated\n".utf8)).failure == .truncated)
        for broken in ["Aztec 1 TTE=\n", "Aztec 0 TTE=\nend ok\n", "Aztec 1 T*E=\nend ok\n", "hello\nend ok\n", ""] {
            #expect(DocumentReader.parse(Array(broken.utf8)).failure == .readerFailed, "\(broken)")
        }
    }
}
