import DKIM
import DNS
import EventStore
import Foundation
import MIME
import Mailbox
import PipelineTestSupport
import Reservations
import ReservoirBase
import Testing
import Trust

@testable import Pipeline

/// A confirmation forwarded as an attachment (`message/rfc822`): trusted only when the inner
/// message passes on its own and the forward comes from the user, proven.
@Suite("Forwarded confirmations")
struct ForwardedMessageTests {
    @Test("forwarded by the user, the forward signed by the user's domain: a trusted event in the store")
    func forwardedByUserSigned() throws {
        let temporary = TemporaryStore()
        defer { temporary.remove() }
        let store = try temporary.open()
        let report = try Forwards.pipeline(store: store).process(try Forwards.forward(try Forwards.confirmation(), signedBy: "home.example"))
        #expect(report.items.isEmpty, "the forward itself carries no markup")
        let forwarded = try #require(report.forwarded.first)
        #expect(forwarded.forwarder == ForwarderCheck(forwarder: "jane@home.example", vouch: .dkim(domain: "home.example"), refusal: nil))
        #expect(forwarded.report.trust.trusted, "\(forwarded.report.trust.reason)")
        #expect(forwarded.report.trust.vouchingDomain == "epicsteak.example")
        #expect(forwarded.report.items.map(\.reservation.reservationID) == ["FWD1"])
        #expect(forwarded.report.items.first?.change?.changeKind == .created)
        #expect(report.hasTrustedReservations)
        let stored = try store.events()
        #expect(stored.count == 1)
        #expect(stored.first?.owner == .domain("epicsteak.example"), "owned by the inner vouching domain, as direct mail")
    }

    @Test("forwarded by the user, vouched by the user's own verifier's Authentication-Results")
    func forwardedByUserAuthenticationResults() throws {
        let raw = try Forwards.forward(
            try Forwards.confirmation(),
            fields: ["Authentication-Results: mx.home.example; dkim=pass header.d=home.example header.s=s2026"])
        let forwarded = try #require(try Forwards.pipeline().analyze(raw).forwarded.first)
        #expect(forwarded.forwarder.vouch == .authenticationResults(authservID: "mx.home.example", domain: "home.example"))
        #expect(forwarded.report.trust.trusted, "\(forwarded.report.trust.reason)")
    }

    @Test("an attached message in base64 is decoded and read")
    func base64Attachment() throws {
        let raw = try Forwards.forward(try Forwards.confirmation(), signedBy: "home.example", base64: true)
        let forwarded = try #require(try Forwards.pipeline().analyze(raw).forwarded.first)
        #expect(forwarded.report.trust.trusted, "\(forwarded.report.trust.reason)")
        #expect(forwarded.report.items.count == 1)
    }

    @Test("forwarded by a stranger: shown, never trusted, forward-not-from-me")
    func forwardedByStranger() throws {
        let raw = try Forwards.forward(try Forwards.confirmation(), from: "Mallory <mallory@home.example.net>")
        let report = try Forwards.pipeline().analyze(raw)
        let forwarded = try #require(report.forwarded.first)
        #expect(forwarded.innerTrusted, "the inner message passes on its own")
        #expect(!forwarded.report.trust.trusted)
        #expect(forwarded.report.trust.refusal?.code == .forwardNotFromMe)
        #expect(forwarded.report.items.map(\.reservation.reservationID) == ["FWD1"], "shown")
        #expect(forwarded.report.diagnostics.map(\.code).contains(.untrusted(.forwardNotFromMe)))
        #expect(!report.hasTrustedReservations)
        // Without --me nobody is known to be the user.
        let anyone = try #require(
            try Forwards.pipeline(me: []).analyze(try Forwards.forward(try Forwards.confirmation(), signedBy: "home.example")).forwarded.first)
        #expect(!anyone.report.trust.trusted)
        #expect(anyone.report.trust.refusal?.code == .forwardNotFromMe)
    }

    @Test("the user's From without proof: forwarder-not-verified")
    func unprovenUser() throws {
        let forwarded = try #require(try Forwards.pipeline().analyze(try Forwards.forward(try Forwards.confirmation())).forwarded.first)
        #expect(!forwarded.report.trust.trusted)
        #expect(forwarded.report.trust.refusal?.code == .forwarderNotVerified)
    }

    @Test("the inner message altered: not trusted, however it was forwarded")
    func alteredInner() throws {
        let altered = try Forwards.confirmation().replacingOccurrences(of: "19:30:00", with: "21:30:00")
        let forwarded = try #require(try Forwards.pipeline().analyze(try Forwards.forward(altered, signedBy: "home.example")).forwarded.first)
        #expect(forwarded.forwarder.isUser)
        #expect(!forwarded.innerTrusted)
        #expect(!forwarded.report.trust.trusted)
        #expect(forwarded.report.trust.refusal?.code == .signatureNotValid)
    }

    @Test(
        "forged Authentication-Results are not honoured",
        arguments: [
            // The sender's pass below the user's verifier's own fail: only the topmost counts.
            [
                "Authentication-Results: mx.home.example; dkim=fail header.d=home.example",
                "Authentication-Results: mx.home.example; dkim=pass header.d=home.example",
            ],
            // A pass under another id, and the trusted id's pass for a domain not aligned with From.
            ["Authentication-Results: mx.elsewhere.example; dkim=pass header.d=home.example"],
            ["Authentication-Results: mx.home.example; dkim=pass header.d=evil.example"],
            // A value that does not read, topmost.
            [
                "Authentication-Results: mx.home.example; dkim=pass (header.d=home.example",
                "Authentication-Results: mx.home.example; dkim=pass header.d=home.example",
            ],
        ])
    func forgedResults(fields: [String]) throws {
        let forwarded = try #require(
            try Forwards.pipeline().analyze(try Forwards.forward(try Forwards.confirmation(), fields: fields)).forwarded.first)
        #expect(!forwarded.report.trust.trusted)
        #expect(forwarded.report.trust.refusal?.code == .forwarderNotVerified)
    }

    @Test("the trusted id being the filter's own: every such field is one the filter strips as forged")
    func ownIDNeverTrusted() throws {
        let raw = try Forwards.forward(
            try Forwards.confirmation(), fields: ["Authentication-Results: mx.home.example; dkim=pass header.d=home.example"])
        let forwarded = try #require(try Forwards.pipeline(ownID: "MX.home.example").analyze(raw).forwarded.first)
        #expect(!forwarded.report.trust.trusted)
        #expect(forwarded.report.trust.refusal?.code == .forwarderNotVerified)
    }

    @Test("a message attached inside a forwarded one is noted, not read")
    func nestedTooDeep() throws {
        let inner = try Forwards.forward(try Forwards.confirmation(), signedBy: "home.example")
        let twice = try Forwards.forward(String(decoding: inner.bytes, as: UTF8.self), signedBy: "home.example", boundary: "outer-boundary")
        let report = try Forwards.pipeline().analyze(twice)
        let forwarded = try #require(report.forwarded.first)
        #expect(forwarded.report.forwarded.isEmpty)
        #expect(forwarded.report.diagnostics.map(\.code).contains(.forwardTooDeep))
    }

    @Test("mail without attached messages has no forwarded reports")
    func plainMail() throws {
        let report = try Samples.pipeline().analyze(try Samples.message(1))
        #expect(report.forwarded.isEmpty)
    }
}
