import Foundation
import Mailbox
import PipelineTestSupport
import Testing

@testable import Pipeline

@Suite struct MessageScannerTests {
    struct Stop: Error {}

    /// A copy of the sample Maildir in a fresh directory; the caller removes `root`.
    func sampleCopy() throws -> (root: URL, maildir: URL) {
        let root = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("reservoir-scanner-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let maildir = root.appendingPathComponent("Maildir")
        try FileManager.default.copyItem(at: Samples.maildir, to: maildir)
        return (root, maildir)
    }

    /// Yields the placeholders of `base`, deleting the file of the one at `vanishing` once it is
    /// queued: the worker that takes it finds no file.
    struct Vanishing: Sequence {
        let base: AnySequence<RawMessage>
        let vanishing: Int
        func makeIterator() -> AnyIterator<RawMessage> {
            let inner = base.makeIterator()
            var position = 0
            return AnyIterator {
                guard let next = inner.next() else { return nil }
                if position == vanishing, let path = next.origin.path { unlink(path) }
                position += 1
                return next
            }
        }
    }

    @Test(
        "the workers read the files they analyse, report in source order, and skip a file gone before its worker reads it",
        arguments: [1, 2])
    func deferredReadsInOrder(workers: Int) throws {
        let (root, maildir) = try sampleCopy()
        defer { try? FileManager.default.removeItem(at: root) }
        let source = try MessageSource(path: maildir.path)
        let expected = Array(source).compactMap(\.origin.path)
        #expect(expected.count > 3)

        let scanner = MessageScanner(workers: try (0..<workers).map { _ in try Samples.pipeline() }, recorder: try Samples.pipeline())
        var reported: [String] = []
        var subjects: [String?] = []
        let messages = Vanishing(base: source.skipping({ _, _ in false }, deferringReads: true), vanishing: 2)
        try scanner.scan(
            messages,
            each: { (report: MessageReport) throws(Stop) in
                reported.append(report.origin.path ?? "")
                subjects.append(report.subject)
            }, groupEnd: { () throws(Stop) in })
        var survivors = expected
        survivors.remove(at: 2)
        #expect(reported == survivors)
        // Every reported message was read and parsed, not analysed as an empty placeholder.
        #expect(subjects.allSatisfy { ($0 ?? "").isEmpty == false })
    }
}
