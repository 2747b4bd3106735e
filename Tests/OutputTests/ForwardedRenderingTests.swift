import Foundation
import JSON
import Pipeline
import PipelineTestSupport
import Testing
import Trust

@testable import Output

/// A forward's banner and JSON say that the reservation came forwarded, by whom, and who
/// vouched for the attached message.
@Suite("Forwarded messages in banners and JSON")
struct ForwardedRenderingTests {
    /// The member at `path` of nested objects.
    func at(_ value: JSONValue?, _ path: String...) -> JSONValue? {
        path.reduce(value) { $0?.objectValue?[$1] }
    }

    @Test("by the user: the banner names the forwarder and both vouching domains; JSON has forwarded[]")
    func byUser() throws {
        let report = try Forwards.pipeline().analyze(try Forwards.forward(try Forwards.confirmation(), signedBy: "home.example"))
        let banner = BannerRenderer(style: .plain).render(report)
        #expect(banner.contains("no reservation · 1 forwarded"), "\(banner)")
        #expect(banner.contains("Forwarded  by jane@home.example, you (DKIM signature by home.example)"), "\(banner)")
        #expect(banner.contains("vouched by epicsteak.example"), "\(banner)")
        #expect(banner.contains("#FWD1"), "\(banner)")
        let json = BannerRenderer.jsonValue(report)
        let forwarded = try #require(at(json, "forwarded")?.listValue.first)
        #expect(at(forwarded, "forwarder", "address")?.stringValue == "jane@home.example")
        #expect(at(forwarded, "forwarder", "vouched") == .bool(true))
        #expect(at(forwarded, "forwarder", "via", "method")?.stringValue == "dkim")
        #expect(at(forwarded, "message", "trust", "trusted") == .bool(true))
        #expect(at(forwarded, "message", "trust", "vouchingDomain")?.stringValue == "epicsteak.example")
        #expect(at(json, "trust", "path", "method")?.stringValue == "dkim")
    }

    @Test("by a stranger: the refusal is in the banner and in JSON")
    func byStranger() throws {
        let raw = try Forwards.forward(try Forwards.confirmation(), from: "mallory@elsewhere.example")
        let report = try Forwards.pipeline().analyze(raw)
        let banner = BannerRenderer(style: .plain).render(report)
        #expect(banner.contains("forwarded by someone other than you"), "\(banner)")
        let json = BannerRenderer.jsonValue(report)
        let forwarded = try #require(at(json, "forwarded")?.listValue.first)
        #expect(at(forwarded, "forwarder", "refusal")?.stringValue == "forward-not-from-me")
        #expect((at(forwarded, "message", "trust", "refusals")?.listValue ?? []).first?.stringValue == "forward-not-from-me")
    }
}
