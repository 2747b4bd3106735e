import Foundation
import TestRequirements
import Testing

@testable import MIME

/// A large message read in pieces must read like the whole message: same header, same tree,
/// same text, whatever the size of the pieces, without keeping the attachments.
@Suite struct MessageSkeletonTests {
    static func skeleton(_ bytes: [UInt8], chunks: [Int]) -> MessageSkeleton {
        var skeleton = MessageSkeleton()
        bytes.withUnsafeBufferPointer { buffer in
            var start = 0
            var turn = 0
            while start < buffer.count {
                let size = max(1, chunks[turn % chunks.count])
                let end = min(buffer.count, start + size)
                skeleton.feed(UnsafeBufferPointer(rebasing: buffer[start..<end]))
                start = end
                turn += 1
            }
        }
        skeleton.finish()
        return skeleton
    }

    /// What the analysis reads from a message: header values, tree shape, text of the text
    /// parts, the HTML parts, and what was noticed about them (offsets aside: the skeleton is shorter).
    struct Reading: Equatable {
        var subject: String?
        var from: [MailboxAddress]
        var tree: [String]
        var texts: [String]
        var html: [String]
        var diagnostics: [String]
    }

    static func reading(_ message: Message) -> Reading {
        let parts = message.root.allParts
        return Reading(
            subject: message.subject, from: message.from,
            tree: parts.map { "\($0.depth) \($0.contentType.mediaType) \($0.transferEncoding) \($0.filename ?? "") \($0.isAttachment)" },
            texts: parts.filter { $0.isLeaf && $0.contentType.type == "text" }.map { message.text(of: $0) },
            html: message.htmlParts.map { message.text(of: $0) },
            diagnostics: message.diagnostics(textPartsOnly: true).map(\.code.rawValue).sorted())
    }

    /// Checks one message read whole against its skeleton read in pieces of several sizes.
    static func expectSameReading(_ bytes: [UInt8], _ label: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let whole = Message(bytes: bytes)
        let expected = reading(whole)
        var first: [UInt8]? = nil
        for chunks in [[1 << 20], [1], [7, 3, 64, 1, 4096], [65_536]] {
            let skeleton = skeleton(bytes, chunks: chunks)
            #expect(skeleton.size == bytes.count, "\(label)", sourceLocation: sourceLocation)
            #expect(skeleton.bodyStart == whole.header.bodyStart, "\(label)", sourceLocation: sourceLocation)
            // The top-level header is kept byte for byte: DKIM reads its fields from here.
            #expect(skeleton.bytes.starts(with: bytes[0..<whole.header.bodyStart]), "\(label)", sourceLocation: sourceLocation)
            #expect(skeleton.bytes.count <= bytes.count, "\(label)", sourceLocation: sourceLocation)
            if let first {
                #expect(skeleton.bytes == first, "\(label): pieces of \(chunks) gave another skeleton", sourceLocation: sourceLocation)
            } else {
                first = skeleton.bytes
                #expect(reading(Message(bytes: skeleton.bytes)) == expected, "\(label)", sourceLocation: sourceLocation)
            }
        }
    }

    @Test(.enabled(if: Requirement.met(CorpusTests.available), "no MIME corpus at ../shared/corpora/mime beside the checkout"))
    func corpusMessagesReadTheSameInPieces() throws {
        let files = CorpusTests.messageFiles()
        #expect(files.count > 100)
        for file in files {
            let bytes = [UInt8](try Data(contentsOf: file))
            Self.expectSameReading(bytes, file.path)
            Self.expectSameReading(CorpusTests.withCRLF(bytes), file.path + " (CRLF)")
        }
    }

    /// The benchmark generator's mix (newsletters, reservations, attachments, nesting, and
    /// malformed mail: bad boundaries, bad encodings, CRLF and mixed line ends, NUL bytes).
    @Test(.enabled(if: Requirement.met(CorpusTests.available), "no MIME corpus at ../shared/corpora/mime beside the checkout"))
    func generatedMessagesReadTheSameInPieces() throws {
        let generator = CorpusTests.corpus.appendingPathComponent("../../bench/gen_maildir.py").standardizedFileURL
        try #require(FileManager.default.fileExists(atPath: generator.path))
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("skeleton-maildir-\(getpid())")
        defer { try? FileManager.default.removeItem(at: out) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [generator.path, "--count", "300", "--seed", "7", "--out", out.path]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0)
        var compared = 0
        for folder in ["cur", "new"] {
            let dir = out.appendingPathComponent(folder)
            for name in try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() {
                Self.expectSameReading([UInt8](try Data(contentsOf: dir.appendingPathComponent(name))), name)
                compared += 1
            }
        }
        #expect(compared == 300)
    }

    static func base64Lines(_ count: Int) -> String {
        String(repeating: "JVBERi0xLjQKJcfsj6IKNSAwIG9iago8PC9MZW5ndGggNiAwIFIvRmlsdGVyIC9GbGF0ZURlY29kZT4+CnN0\n", count: count)
    }

    static let html =
        "<html><body><script type=\"application/ld+json\">{\"@type\":\"FoodEstablishmentReservation\"}</script>Table for two</body></html>"

    @Test func attachmentsAreLeftOutAndTextKept() {
        let text = """
            From: Bookings <b@example.com>
            Subject: =?utf-8?q?R=C3=A9servation?=
            MIME-Version: 1.0
            Content-Type: multipart/mixed; boundary="outer"

            preamble
            --outer
            Content-Type: multipart/alternative; boundary="inner"

            --inner
            Content-Type: text/plain; charset=utf-8

            Table for two.
            --inner
            Content-Type: text/html; charset=utf-8
            Content-Transfer-Encoding: quoted-printable

            \(Self.html)
            --inner--
            --outer
            Content-Type: application/pdf; name="ticket.pdf"
            Content-Disposition: attachment; filename="ticket.pdf"
            Content-Transfer-Encoding: base64

            \(Self.base64Lines(70_000))--outer
            Content-Type: message/rfc822

            From: someone@example.org
            Subject: forwarded
            Content-Type: multipart/mixed; boundary="outer"

            --outer
            Content-Type: text/plain

            inner text, its boundary equal to the enclosing one
            --outer
            Content-Type: image/png
            Content-Transfer-Encoding: base64

            \(Self.base64Lines(1000))--outer--
            epilogue
            --outer--
            the end
            """
        for bytes in [Fixture.lf(text), Fixture.crlf(text)] {
            #expect(bytes.count > 6_000_000)
            Self.expectSameReading(bytes, "mixed")
            let skeleton = Self.skeleton(bytes, chunks: [65_536])
            #expect(skeleton.bytes.count < 4_000, "the attachments are left out: \(skeleton.bytes.count) bytes kept")
            #expect(skeleton.diagnostics.isEmpty)
        }
    }

    @Test func aLongTextPartIsCutAtTheLimitWithADiagnostic() {
        let line = String(repeating: "x", count: 99) + "\n"
        let count = Limits.maxStreamedTextPartBytes / line.utf8.count + 100
        let text =
            "From: a@example.com\nContent-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: text/plain\n\n"
            + String(repeating: line, count: count) + "--b\nContent-Type: text/html\n\n<p>after</p>\n--b--\n"
        let skeleton = Self.skeleton(Fixture.lf(text), chunks: [100_000])
        #expect(skeleton.diagnostics.map(\.code) == [.partTruncated])
        let message = Message(bytes: skeleton.bytes)
        let leaves = Fixture.leaves(message)
        #expect(leaves.map(\.contentType.mediaType) == ["text/plain", "text/html"])
        #expect(message.text(of: leaves[0]).utf8.count <= Limits.maxStreamedTextPartBytes)
        #expect(message.text(of: leaves[0]).utf8.count > Limits.maxStreamedTextPartBytes - 200)
        #expect(message.text(of: leaves[1]) == "<p>after</p>")
    }

    @Test func aTextPartOnOneLongLineIsCutAndTheNextDelimiterStillFound() {
        let text =
            "From: a@example.com\nContent-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: text/html\n\n"
            + String(repeating: "<p>", count: 2_000_000) + "\n--b\nContent-Type: text/plain\n\nlast\n--b--\n"
        let skeleton = Self.skeleton(Fixture.lf(text), chunks: [65_536])
        let message = Message(bytes: skeleton.bytes)
        #expect(Fixture.leaves(message).map(\.contentType.mediaType) == ["text/html", "text/plain"])
        #expect(message.text(of: Fixture.leaves(message)[1]) == "last")
        #expect(skeleton.diagnostics.map(\.code) == [.partTruncated])
    }

    @Test func headerEndedByADelimiterAndMissingSeparators() {
        let cases = [
            // A part header without its empty line, ended by the next delimiter.
            "From: a@example.com\nContent-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: text/plain\n--b\nContent-Type: text/html\n\n<p>x</p>\n--b--\n",
            // A nested multipart whose header is cut by a delimiter equal to its own boundary.
            "From: a@example.com\nContent-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: multipart/alternative; boundary=b\n--b\nContent-Type: text/plain\n\nx\n--b--\n--b--\n",
            // No empty line after the top-level header: a body line ends it.
            "From: a@example.com\nSubject: s\nthis line starts the body\nSubject: not a field any more\n",
            // A non-field line ends the header of a multipart whose boundary holds a colon (its
            // delimiter lines look like header fields); found by fuzz-skeleton.
            "From: a@example.com\nContent-Type: multipart/mixed; boundary=\"a=:b\"\nBad\u{D5}name: x\nTo: b@example.com\n\n--a=:b\nContent-Type: text/plain\n\nfirst\n--a=:b\nContent-Type: text/html\n\n<p>second</p>\n--a=:b--\n",
            "From: a@example.com\nContent-Type: multipart/mixed; boundary=\"a=:b\"\nno colon on this line\n--a=:b\nContent-Type: text/plain\n\nfirst\n--a=:b--\n",
            // An attached message whose header ends at a last line without a line break that is
            // not a field: that line is the inner body (found by fuzz-skeleton).
            "From: a@example.com\nContent-Type: multipart/mixed; boundary=\"=_2d98f6c3ddf4b54299ae2604b2717254\"\n\n--=_2d98f6c3ddf4b54299ae2604b2717254\nContent-Type: message/rfc822\n\nFrom: x@example.org\nReceived: by\n    host\nx-new",
            // A digest part whose header and attached message are one garbage line, ended by a
            // delimiter: both header sections end there (found by fuzz-skeleton).
            "Content-Type:multipart/digest boundary=BOUNDARY\n--BOUNDARY\nC\n--BOUNDARY",
            // An attached message whose multipart uses the enclosing boundary.
            "From: a@example.com\nContent-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: message/rfc822\n\nSubject: inner\nContent-Type: multipart/alternative; boundary=b\n\n--b\nContent-Type: text/plain\n\ninner text\n--b--\n--b\nContent-Type: text/html\n\n<p>outer</p>\n--b--\n",
            // A line that closes the attached message's multipart and opens a part of the
            // enclosing one belongs to the enclosing one (found by fuzz-skeleton).
            "Content-Type:multipart/m boundary=Apple-Mail-6--589811753\n--Apple-Mail-6--589811753\nContent-Type:multipart/digest boundary=BOUNDARY\n--BOUNDARY\n\nContent-Type:multipart/i;boundary=Apple-Mail-6\n--Apple-Mail-6--589811753\nC",
            // A header-less message, and one with a garbage first line.
            "just text\nand more\n",
            " continuation first\nFrom: a@example.com\n\nbody\n",
            // No body at all, and no final line break.
            "From: a@example.com\nSubject: only a header",
            // A multipart that never closes, and one with no delimiter at all.
            "From: a@example.com\nContent-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: text/plain\n\nopen\n",
            "From: a@example.com\nContent-Type: multipart/mixed; boundary=b\n\nno delimiter here\n",
            // Digest children default to message/rfc822.
            "From: a@example.com\nContent-Type: multipart/digest; boundary=d\n\n--d\n\nFrom: x@example.org\nSubject: in digest\n\ndigest body\n--d--\n",
            // A delimiter with transport padding and text after it, and a longer boundary that starts with ours.
            "From: a@example.com\nContent-Type: multipart/mixed; boundary=b\n\n--b  \t junk\nContent-Type: text/plain\n\none\n--bb\nstill one\n--b--\n",
        ]
        for text in cases {
            Self.expectSameReading(Fixture.lf(text), text)
            Self.expectSameReading(Fixture.crlf(text), text + " (CRLF)")
        }
    }

    @Test func deepNestingStopsWhereThePartTreeStops() {
        var text = "From: a@example.com\nContent-Type: multipart/mixed; boundary=b0\n\n"
        for level in 1...(Limits.maxPartDepth + 3) {
            text += "--b\(level - 1)\nContent-Type: multipart/mixed; boundary=b\(level)\n\n"
        }
        text += "--b\(Limits.maxPartDepth + 3)\nContent-Type: text/plain\n\ndeep\n"
        Self.expectSameReading(Fixture.lf(text), "deep")
    }

    @Test func aHugeTopLevelHeaderIsReported() {
        let field = "X-Filler: " + String(repeating: "y", count: 1000) + "\n"
        let text = "From: a@example.com\n" + String(repeating: field, count: Limits.maxStreamedHeaderBytes / 1000 + 10) + "\nbody\n"
        let skeleton = Self.skeleton(Fixture.lf(text), chunks: [1 << 20])
        #expect(skeleton.headerTooLarge)
        #expect(skeleton.bytes.count <= Limits.maxStreamedHeaderBytes + Limits.maxSkeletonBytes)
        let small = Self.skeleton(Fixture.lf("From: a@example.com\n\nbody\n"), chunks: [4])
        #expect(!small.headerTooLarge)
    }

    @Test func readsAFileWithoutMovingItsOffset() throws {
        let text = Fixture.lf("From: a@example.com\nContent-Type: text/plain\n\nhello\n")
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("skeleton-\(getpid()).eml").path
        try #require(FileManager.default.createFile(atPath: path, contents: Data(text)), "cannot write \(path)")
        defer { unlink(path) }
        let fd = open(path, O_RDONLY)
        defer { close(fd) }
        let skeleton = try #require(MessageSkeleton.read(descriptor: fd, chunkSize: 5))
        #expect(skeleton.bytes == text)
        #expect(lseek(fd, 0, SEEK_CUR) == 0)
        #expect(MessageSkeleton.read(descriptor: -1) == nil)
    }
}
