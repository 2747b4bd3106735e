import Foundation
import MIME
import Mailbox
import Pipeline
import PipelineTestSupport
import Testing

@testable import Output

@Suite("What the filter adds to a message")
struct FilterHeadersTests {
    @Test("the original follows the added fields byte for byte", arguments: [1, 4, 7, 8])
    func byteExact(number: Int) throws {
        let raw = try Samples.message(number)
        let report = try Samples.pipeline().process(raw)
        let out = FilterHeaders.rewrite(raw.bytes, report: report, authservID: "mx.home.example")
        #expect(out.count > raw.bytes.count)
        #expect(Array(out.suffix(raw.bytes.count)) == raw.bytes)
        let added = String(decoding: out.prefix(out.count - raw.bytes.count), as: UTF8.self)
        #expect(added.hasPrefix("Authentication-Results: mx.home.example;"))
        #expect(added.components(separatedBy: "X-Reservation:").count - 1 == report.items.count)
        // Maildir files use LF: the added fields do too.
        #expect(!added.contains("\r"))
    }

    @Test("forged Authentication-Results with our authserv-id and X-Reservation fields are removed")
    func forged() throws {
        let raw = try Samples.message(1)
        let forged =
            Array(
                "Authentication-Results: MX.home.example; dkim=pass header.d=bank.example\nX-Reservation: Flight fake\nAuthentication-Results: other.example; dkim=pass\n"
                    .utf8) + raw.bytes
        let report = try Samples.pipeline().process(RawMessage(bytes: forged, origin: MessageOrigin(path: nil)))
        let out = String(decoding: FilterHeaders.rewrite(forged, report: report, authservID: "mx.home.example"), as: UTF8.self)
        #expect(!out.contains("bank.example"))
        #expect(!out.contains("Flight fake"))
        #expect(out.contains("Authentication-Results: other.example; dkim=pass"))
    }

    @Test("forged fields after a line without a colon or after 10,000 fields are removed too")
    func forgedFarDown() throws {
        let raw = try Samples.message(1)
        var prefix =
            "Received: from a by b\nX-Garbage line without a colon\nAuthentication-Results: mx.home.example; dkim=pass header.d=bank.example\n"
        for i in 0..<10_001 { prefix += "X-Filler-\(i): \(i)\n" }
        prefix += "x-reservation : Flight fake\n"
        let forged = Array(prefix.utf8) + raw.bytes
        let report = try Samples.pipeline().process(RawMessage(bytes: forged, origin: MessageOrigin(path: nil)))
        let out = String(decoding: FilterHeaders.rewrite(forged, report: report, authservID: "mx.home.example"), as: UTF8.self)
        #expect(!out.contains("bank.example") && !out.contains("Flight fake"))
        #expect(out.contains("X-Garbage line without a colon\nX-Filler-0: 0\n"))
    }

    @Test("a first line that is a folded obsolete From field (RFC 5322 §4.5.1) is a field, not an envelope line")
    func obsoleteFromFirst() throws {
        let bytes = Array("From : Jane <jane@example.com>\n (folded) Tue Nov 17 07:21:50 2026\nSubject: s\n\nbody\n".utf8)
        let report = try Samples.pipeline().process(RawMessage(bytes: bytes, origin: MessageOrigin(path: nil)))
        let out = FilterHeaders.rewrite(bytes, report: report, authservID: "mx.home.example")
        // Our fields go first, before the whole From field, which stays intact.
        #expect(String(decoding: out, as: UTF8.self).hasPrefix("Authentication-Results: mx.home.example;"))
        #expect(Array(out.suffix(bytes.count)) == bytes)
    }

    @Test(
        "input with no header field is not a message and passes through untouched",
        arguments: ["no header at all", "\u{0}\u{FF}binary\n\u{1B}\n", "\n\nbody after an empty header", ""])
    func notAMessage(text: String) throws {
        let bytes = Array(text.utf8)
        let report = try Samples.pipeline().process(RawMessage(bytes: bytes, origin: MessageOrigin(path: nil)))
        #expect(FilterHeaders.rewrite(bytes, report: report, authservID: "mx.home.example") == bytes)
    }

    @Test("a one-line message without a line break gets LF-terminated fields")
    func noLineBreak() throws {
        let bytes = Array("Subject: only a subject".utf8)
        let report = try Samples.pipeline().process(RawMessage(bytes: bytes, origin: MessageOrigin(path: nil)))
        let out = FilterHeaders.rewrite(bytes, report: report, authservID: "mx.home.example")
        #expect(Array(out.suffix(bytes.count)) == bytes)
        let added = String(decoding: out.prefix(out.count - bytes.count), as: UTF8.self)
        #expect(added.hasPrefix("Authentication-Results: mx.home.example;"))
        #expect(added.hasSuffix("\n") && !added.contains("\r"))
    }

    @Test("the summary reads category, title, local time, offset and status")
    func summaryLine() throws {
        let report = try Samples.pipeline().process(try Samples.message(1))
        let item = try #require(report.items.first)
        #expect(FilterHeaders.summary(item.reservation, trusted: true) == "Restaurant EPIC Steak 2031-05-12 19:30 -07:00 confirmed #IWDSCA")
        #expect(FilterHeaders.summary(item.reservation, trusted: false).hasSuffix("(untrusted)"))
    }

    @Test("non-ASCII summaries are RFC 2047 words of at most 75 characters, lines of at most 78")
    func encodedWords() {
        let field = FilterHeaders.fold(
            "X-Reservation", "Train EC 15 Zürich HB → Milano Centrale 2031-07-14 09:33 +02:00 confirmed #RA-9F3Z7K", lineEnding: "\r\n")
        let lines = field.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        #expect(lines.count > 1)
        #expect(lines.allSatisfy { $0.utf8.count <= 78 })
        #expect(field.utf8.allSatisfy { $0 < 0x80 })
        #expect(field.contains("=?UTF-8?Q?"))
    }
}
