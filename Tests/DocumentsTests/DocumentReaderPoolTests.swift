import Foundation
import Testing

@testable import Documents

/// The long-lived readers, with stand-ins that speak `reservoir-document serve`'s protocol: one
/// reader for many documents, and each failure ending only its reader.
@Suite("the document readers that outlive a document")
struct DocumentReaderPoolTests {
    /// A stand-in reader: for each request `KIND LENGTH` it takes the bytes, then runs `answer`
    /// with `$kind` set; `$$` is its process id, written to `pids` when given.
    static func script(_ answer: String, pids: String? = nil) throws -> String {
        let path = NSTemporaryDirectory() + "serve-" + UUID().uuidString
        let record = pids.map { "echo $$ >> \($0)\n" } ?? ""
        let body = """
            #!/bin/sh
            [ "$1" = serve ] || exit 64
            \(record)while read kind length; do
              head -c "$length" > /dev/null
              \(answer)
            done
            """
        try DocumentReaderTests.writeProgram(body + "\n", to: path)
        return path
    }

    static let answer = "echo \"QRCode 1 TTE=\"; echo \"end ok\""

    /// The opening a document of `type` needs (``DocumentType/opens(_:)``), then `byte`.
    static func document(_ type: DocumentType, _ byte: UInt8 = 0, count: Int = 1) -> [UInt8] {
        let head: [UInt8] =
            switch type {
            case .pdf: Array("%PDF-1.7\n".utf8)
            case .png: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            case .jpeg: [0xFF, 0xD8, 0xFF, 0xE0]
            case .gif: Array("GIF89a".utf8)
            }
        return head + Array(repeating: byte, count: count)
    }

    @Test("documents one after another are read by one reader, each answer its own")
    func oneReader() throws {
        let reader = try Self.script(Self.answer)
        defer { unlink(reader) }
        let pool = DocumentReaderPool(program: reader, keptIdle: 1)
        for size in [1, 100_000, 3] {
            let reading = pool.read(Self.document(.pdf, 0x25, count: size), type: .pdf)
            #expect(reading == DocumentReading(barcodes: [DocumentBarcode(format: "QRCode", page: 1, bytes: Array("M1".utf8))]))
        }
        #expect(pool.statistics == DocumentReaderPool.Counts(started: 1, read: 3))
    }

    @Test("a reader that never answers is killed at the budget; the next document gets a new reader")
    func timeout() throws {
        let reader = try Self.script("if [ \"$kind\" = gif ]; then exec sleep 30; fi; \(Self.answer)")
        defer { unlink(reader) }
        let pool = DocumentReaderPool(program: reader, keptIdle: 1)
        let started = Date()
        #expect(pool.read(Self.document(.gif, 1), type: .gif, budgetMilliseconds: 500).failure == .timedOut)
        #expect(Date().timeIntervalSince(started) < 5)
        #expect(pool.read(Self.document(.pdf, 1), type: .pdf).failure == nil)
        #expect(pool.statistics.started == 2)
    }

    @Test("a reader that exits without reading a large document: a failure, and the caller lives on (no SIGPIPE)")
    func readerExitsEarly() throws {
        let reader = try DocumentReaderTests.script("exit 0")
        defer { unlink(reader) }
        let pool = DocumentReaderPool(program: reader, keptIdle: 1)
        #expect(pool.read(Self.document(.pdf, 0x41, count: 2 << 20), type: .pdf).failure == .readerFailed)
    }

    @Test("a reader that dies in a document: that document failed, the next one is read by a new reader")
    func crash() throws {
        let reader = try Self.script("if [ \"$kind\" = png ]; then echo \"QRCode 1 TTE=\"; exit 1; fi; \(Self.answer)")
        defer { unlink(reader) }
        let pool = DocumentReaderPool(program: reader, keptIdle: 1)
        #expect(pool.read(Self.document(.pdf, 1), type: .pdf).failure == nil)
        let failed = pool.read(Self.document(.png, 1), type: .png)
        #expect(failed.failure == .readerFailed)
        #expect(pool.read(Self.document(.pdf, 2), type: .pdf).failure == nil)
        #expect(pool.statistics.started == 2)
    }

    @Test("a waiting reader killed from outside is replaced, and the next document is not blamed for it")
    func killedWhileWaiting() throws {
        let pids = NSTemporaryDirectory() + "pids-" + UUID().uuidString
        let reader = try Self.script(Self.answer, pids: pids)
        defer {
            unlink(reader)
            unlink(pids)
        }
        let pool = DocumentReaderPool(program: reader, keptIdle: 1)
        #expect(pool.read(Self.document(.pdf, 1), type: .pdf).failure == nil)
        let first = try #require(Int32(try String(contentsOfFile: pids, encoding: .utf8).split(separator: "\n")[0]))
        kill(first, SIGKILL)
        usleep(100_000)
        #expect(pool.read(Self.document(.pdf, 2), type: .pdf).failure == nil)
        #expect(pool.statistics == DocumentReaderPool.Counts(started: 2, read: 2))
    }

    @Test("a reader is replaced after its share of documents")
    func share() throws {
        let reader = try Self.script(Self.answer)
        defer { unlink(reader) }
        let pool = DocumentReaderPool(program: reader, keptIdle: 1)
        for n in 0...DocumentLimits.documentsPerReader { #expect(pool.read(Self.document(.jpeg, UInt8(n)), type: .jpeg).failure == nil) }
        #expect(pool.statistics == DocumentReaderPool.Counts(started: 2, read: DocumentLimits.documentsPerReader + 1))
    }

    @Test("a reader that says more than a reader may, or something else than its lines, failed")
    func garbage() throws {
        let reader = try Self.script("echo hello; echo \"end ok\"")
        defer { unlink(reader) }
        let pool = DocumentReaderPool(program: reader, keptIdle: 1)
        #expect(pool.read(Self.document(.pdf, 1), type: .pdf).failure == .readerFailed)
        #expect(pool.read(Self.document(.pdf, 1), type: .pdf).failure == .readerFailed)
        #expect(pool.statistics.started == 2, "a reader that failed is not used again")
    }

    @Test("a document over the size limit is refused unsent; no reader installed is said")
    func refusedUnsent() throws {
        let reader = try Self.script(Self.answer)
        defer { unlink(reader) }
        let pool = DocumentReaderPool(program: reader)
        #expect(pool.read(Array(repeating: 0, count: DocumentLimits.maxDocumentBytes + 1), type: .pdf).failure == .tooLarge)
        #expect(pool.statistics.started == 0)
        #expect(DocumentReaderPool(program: "/nonexistent/reservoir-document").read(Self.document(.pdf, 1), type: .pdf).failure == .readerMissing)
    }

    @Test("a document read before is answered from memory, byte for byte; a time-out is not remembered")
    func remembered() throws {
        let reader = try Self.script("if [ \"$kind\" = gif ]; then exec sleep 30; fi; \(Self.answer)")
        defer { unlink(reader) }
        let pool = DocumentReaderPool(program: reader, keptIdle: 1)
        let document = Self.document(.pdf, 0x25, count: 5000)
        #expect(pool.read(document, type: .pdf).failure == nil)
        #expect(pool.read(document, type: .pdf).barcodes.count == 1)
        #expect(pool.statistics == DocumentReaderPool.Counts(started: 1, read: 1, remembered: 1))
        // One byte changed: read again.
        var changed = document
        changed[4999] = 0x26
        #expect(pool.read(changed, type: .pdf).failure == nil)
        #expect(pool.statistics == DocumentReaderPool.Counts(started: 1, read: 2, remembered: 1))
        let image = Self.document(.gif, 0x25, count: 5000)
        #expect(pool.read(image, type: .gif, budgetMilliseconds: 300).failure == .timedOut)
        #expect(pool.read(image, type: .gif, budgetMilliseconds: 300).failure == .timedOut)
        #expect(pool.statistics.started == 2 && pool.statistics.remembered == 1, "each time-out ended its reader")
    }

    @Test("a reader holds no descriptor of its parent's but its socket and standard error")
    func noInheritedDescriptors() throws {
        let listing = NSTemporaryDirectory() + "fds-" + UUID().uuidString
        let reader = try Self.script("ls /proc/$$/fd > \(listing); \(Self.answer)")
        defer {
            unlink(reader)
            unlink(listing)
        }
        // A descriptor of the parent's without close-on-exec, as a library may leave one.
        let open = Glibc.open("/dev/null", O_RDONLY)
        #expect(dup2(open, 200) == 200)
        close(open)
        defer { close(200) }
        #expect(DocumentReaderPool(program: reader, keptIdle: 1).read(Self.document(.pdf, 1), type: .pdf).failure == nil)
        let descriptors = try String(contentsOfFile: listing, encoding: .utf8).split(separator: "\n").compactMap { Int($0) }
        #expect(descriptors.contains(0) && descriptors.contains(1))
        #expect(!descriptors.contains(200), "\(descriptors)")
    }

    @Test("bytes that are no document of their type are unreadable, and no reader is started for them")
    func notADocument() throws {
        let reader = try Self.script(Self.answer)
        defer { unlink(reader) }
        let pool = DocumentReaderPool(program: reader, keptIdle: 1)
        for type in DocumentType.allCases {
            #expect(pool.read(Array(repeating: 0x41, count: 3000), type: type).failure == .unreadable, "\(type)")
            #expect(pool.read(Self.document(type), type: type).failure == nil, "\(type)")
        }
        #expect(pool.statistics.read == DocumentType.allCases.count)
        // The PDF header may follow up to 1,024 bytes of anything, as readers accept it.
        let late = Array(repeating: UInt8(0x20), count: 1000) + Self.document(.pdf)
        #expect(DocumentType.pdf.opens(late))
        #expect(!DocumentType.pdf.opens(Array(repeating: UInt8(0x20), count: 1020) + Self.document(.pdf)))
        #expect(!DocumentType.pdf.opens(Array("%PDF".utf8)) && !DocumentType.gif.opens(Array("GIF88a".utf8)))
        #expect(!DocumentType.png.opens([0x89, 0x50, 0x4E, 0x47]) && !DocumentType.jpeg.opens([0xFF, 0xD8]))
    }

    @Test("the end line is found only as the last complete line")
    func endLine() {
        #expect(DocumentReaderPool.endsWithEndLine(Array("end ok\n".utf8)))
        #expect(DocumentReaderPool.endsWithEndLine(Array("QRCode 1 TTE=\nend truncated\n".utf8)))
        #expect(!DocumentReaderPool.endsWithEndLine(Array("QRCode 1 TTE=\nend o".utf8)))
        #expect(!DocumentReaderPool.endsWithEndLine(Array("QRCode 1 end\n".utf8)))
        #expect(!DocumentReaderPool.endsWithEndLine([]))
    }
}
