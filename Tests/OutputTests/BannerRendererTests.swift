import Foundation
import Pipeline
import PipelineTestSupport
import Testing
import Trust

@testable import Output

@Suite("How a banner names its message")
struct BannerRendererTests {
    @Test(
        "a file is named by its folder and name, however its path is written",
        arguments: [
            ("/home/jane/Maildir/cur/1795.M1P2.host:2,S", "cur/1795.M1P2.host:2,S"),
            ("message.eml", "message.eml"),
            ("/m//new///x/", "new/x"),
            ("/", ""),
            ("", ""),
            ("/é/ü", "é/ü"),
        ])
    func fileName(path: String, name: String) {
        #expect(BannerRenderer.fileName(path) == name)
        // What the former String operations made of it.
        #expect(BannerRenderer.fileName(path) == path.split(separator: "/").suffix(2).joined(separator: "/"))
    }
}

/// A reservation refused on its own in a trusted message (an invitation whose ORGANIZER is
/// another domain's): shown, marked untrusted, not counted as trusted.
@Suite("A reservation refused on its own")
struct ItemRefusalTests {
    static func report() throws -> MessageReport {
        var report = try Samples.pipeline().analyze(try Samples.message(1))
        report.items[0].refusal = .organizerNotAligned(organizer: "events@attacker.example", fromDomain: "epicsteak.example")
        return report
    }

    @Test("the banner says why it is not recorded, JSON names the refusal, the summary does not count it trusted")
    func shown() throws {
        let report = try Self.report()
        #expect(report.trust.trusted && !report.hasTrustedReservations)
        let text = BannerRenderer(style: .plain).render(report)
        #expect(text.contains("not recorded (not trusted: the invitation's ORGANIZER events@attacker.example"))
        // The item's own verdict: refused, with its code and sentence, and the message's proof.
        let json = try #require(try JSONSerialization.jsonObject(with: Data(BannerRenderer.json(report).utf8)) as? [String: Any])
        let item = try #require((json["reservations"] as? [[String: Any]])?.first)
        #expect(item["trusted"] as? Bool == false)
        let refusal = try #require(item["refusal"] as? [String: Any])
        #expect(refusal["code"] as? String == "organizer-not-aligned")
        #expect((refusal["reason"] as? String)?.hasPrefix("the invitation's ORGANIZER events@attacker.example") == true)
        #expect(item["proof"] as? [String: String] == ["kind": "dkim", "domain": "epicsteak.example"])
        #expect((json["trust"] as? [String: Any])?["trusted"] as? Bool == true)
        var summary = ScanSummary()
        summary.add(report)
        #expect(summary.withReservations == 1 && summary.trusted == 0)
        let fields = FilterHeaders.fields(report: report, authservID: "mx.test", lineEnding: "\n")
        #expect(fields.contains("X-Reservation:") && fields.contains("(untrusted)"))
    }
}
