import DKIM
import DNS
import EventStore
import Foundation
import MIME
import Mailbox
import PipelineTestSupport
import Testing
import Trust

@testable import Pipeline

/// A confirmation forwarded as an attachment (`message/rfc822`): trusted only when the inner
/// message passes on its own and the forward comes from the user, proven.
@Suite("Forwarded confirmations")
struct ForwardedMessageTests {
    static let key = Samples.root.appendingPathComponent("scripts/samples/sample-dkim-key.pem")

    static func signer() throws -> DKIMSigner {
        try DKIMSigner(privateKeyPEM: try String(contentsOf: key, encoding: .utf8))
    }

    /// The samples' keys, and the same key published for the user's domain.
    static func keys() throws -> KeysFile {
        let samples = try String(contentsOfFile: Samples.keysZone, encoding: .utf8)
        return KeysFile(text: samples + "\ns2026._domainkey.home.example TXT \"\(try signer().publicKeyRecord())\"\n")
    }

    static func sign(_ header: String, _ body: String, domain: String) throws -> String {
        let field = try signer().sign(
            Array((header + body).utf8), domain: domain, selector: "s2026",
            headers: ["From", "To", "Subject", "Date", "Message-ID", "MIME-Version", "Content-Type"],
            canonicalization: try #require(DKIMCanonicalization(tag: "relaxed/relaxed")), timestamp: Samples.now - 7200,
            expiration: nil)
        return field + header + body
    }

    /// The confirmation EPIC Steak sent the user, signed with the samples' key.
    static func confirmation(id: String = "FWD1") throws -> String {
        let header =
            "From: EPIC Steak <reservations@epicsteak.example>\nTo: jane@home.example\nSubject: Your table\n"
            + "Date: Sat, 21 Nov 2026 10:00:00 -0800\nMessage-ID: <\(id)@epicsteak.example>\n"
            + "MIME-Version: 1.0\nContent-Type: text/html; charset=utf-8\n\n"
        let body = """
            <html><body><script type="application/ld+json">{"@context":"https://schema.org","@type":"FoodEstablishmentReservation",
            "reservationId":"\(id)","reservationStatus":"https://schema.org/ReservationConfirmed",
            "startTime":"2031-05-12T19:30:00-07:00","reservationFor":{"@type":"Restaurant","name":"EPIC Steak"}}</script></body></html>

            """
        return try sign(header, body, domain: "epicsteak.example")
    }

    /// The forward: `from` attaches `inner` (base64 when asked); signed by `signedBy` when given,
    /// with `fields` on top (the fields the receiving side adds).
    static func forward(
        _ inner: String, from: String = "Jane <jane@home.example>", signedBy: String? = nil, fields: [String] = [],
        base64: Bool = false, boundary: String = "fwd-boundary"
    ) throws -> RawMessage {
        let header =
            "From: \(from)\nTo: trips@home.example\nSubject: Fwd: Your table\nDate: Sun, 22 Nov 2026 09:00:00 +0100\n"
            + "Message-ID: <fwd-\(UUID().uuidString)@home.example>\nMIME-Version: 1.0\n"
            + "Content-Type: multipart/mixed; boundary=\"\(boundary)\"\n\n"
        let part =
            base64
            ? "Content-Type: message/rfc822\nContent-Transfer-Encoding: base64\n\n"
                + Data(inner.utf8).base64EncodedString(options: [.lineLength76Characters, .endLineWithLineFeed]) + "\n"
            : "Content-Type: message/rfc822\nContent-Disposition: attachment; filename=\"booking.eml\"\n\n" + inner
        let body =
            "--\(boundary)\nContent-Type: text/plain; charset=utf-8\n\nMy table, for the calendar.\n\n--\(boundary)\n"
            + part + "\n--\(boundary)--\n"
        let message = try signedBy.map { try sign(header, body, domain: $0) } ?? header + body
        return RawMessage(bytes: Array((fields.map { $0 + "\n" }.joined() + message).utf8), origin: MessageOrigin())
    }

    static func pipeline(store: (any EventStore)? = nil, me: [String] = ["jane@home.example"], ownID: String = "reservoir.home.example")
        throws -> ReservationPipeline
    {
        ReservationPipeline(
            resolver: try keys(),
            policy: TrustPolicy(
                allowedDomains: ["epicsteak.example"], publicSuffixes: PublicSuffixList.load(), recipients: me,
                trustedAuthservID: "mx.home.example", ownAuthservID: ownID),
            store: store, now: Samples.now)
    }

    @Test("forwarded by the user, the forward signed by the user's domain: a trusted event in the store")
    func forwardedByUserSigned() throws {
        let temporary = TemporaryStore()
        defer { temporary.remove() }
        let store = try temporary.open()
        let report = try Self.pipeline(store: store).process(try Self.forward(try Self.confirmation(), signedBy: "home.example"))
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
        #expect(stored.first?.ownerDomain == "epicsteak.example", "owned by the inner vouching domain, as direct mail")
    }

    @Test("forwarded by the user, vouched by the user's own verifier's Authentication-Results")
    func forwardedByUserAuthenticationResults() throws {
        let raw = try Self.forward(
            try Self.confirmation(),
            fields: ["Authentication-Results: mx.home.example; dkim=pass header.d=home.example header.s=s2026"])
        let forwarded = try #require(try Self.pipeline().analyze(raw).forwarded.first)
        #expect(forwarded.forwarder.vouch == .authenticationResults(authservID: "mx.home.example", domain: "home.example"))
        #expect(forwarded.report.trust.trusted, "\(forwarded.report.trust.reason)")
    }

    @Test("an attached message in base64 is decoded and read")
    func base64Attachment() throws {
        let raw = try Self.forward(try Self.confirmation(), signedBy: "home.example", base64: true)
        let forwarded = try #require(try Self.pipeline().analyze(raw).forwarded.first)
        #expect(forwarded.report.trust.trusted, "\(forwarded.report.trust.reason)")
        #expect(forwarded.report.items.count == 1)
    }

    @Test("forwarded by a stranger: shown, never trusted, forward-not-from-me")
    func forwardedByStranger() throws {
        let raw = try Self.forward(try Self.confirmation(), from: "Mallory <mallory@home.example.net>")
        let report = try Self.pipeline().analyze(raw)
        let forwarded = try #require(report.forwarded.first)
        #expect(forwarded.innerTrusted, "the inner message passes on its own")
        #expect(!forwarded.report.trust.trusted)
        #expect(forwarded.report.trust.refusal?.code == .forwardNotFromMe)
        #expect(forwarded.report.items.map(\.reservation.reservationID) == ["FWD1"], "shown")
        #expect(forwarded.report.diagnostics.map(\.code).contains(.untrusted(.forwardNotFromMe)))
        #expect(!report.hasTrustedReservations)
        // Without --me nobody is known to be the user.
        let anyone = try #require(
            try Self.pipeline(me: []).analyze(try Self.forward(try Self.confirmation(), signedBy: "home.example")).forwarded.first)
        #expect(!anyone.report.trust.trusted)
        #expect(anyone.report.trust.refusal?.code == .forwardNotFromMe)
    }

    @Test("the user's From without proof: forwarder-not-verified")
    func unprovenUser() throws {
        let forwarded = try #require(try Self.pipeline().analyze(try Self.forward(try Self.confirmation())).forwarded.first)
        #expect(!forwarded.report.trust.trusted)
        #expect(forwarded.report.trust.refusal?.code == .forwarderNotVerified)
    }

    @Test("the inner message altered: not trusted, however it was forwarded")
    func alteredInner() throws {
        let altered = try Self.confirmation().replacingOccurrences(of: "19:30:00", with: "21:30:00")
        let forwarded = try #require(try Self.pipeline().analyze(try Self.forward(altered, signedBy: "home.example")).forwarded.first)
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
        let forwarded = try #require(try Self.pipeline().analyze(try Self.forward(try Self.confirmation(), fields: fields)).forwarded.first)
        #expect(!forwarded.report.trust.trusted)
        #expect(forwarded.report.trust.refusal?.code == .forwarderNotVerified)
    }

    @Test("the trusted id being the filter's own: every such field is one the filter strips as forged")
    func ownIDNeverTrusted() throws {
        let raw = try Self.forward(try Self.confirmation(), fields: ["Authentication-Results: mx.home.example; dkim=pass header.d=home.example"])
        let forwarded = try #require(try Self.pipeline(ownID: "MX.home.example").analyze(raw).forwarded.first)
        #expect(!forwarded.report.trust.trusted)
        #expect(forwarded.report.trust.refusal?.code == .forwarderNotVerified)
    }

    @Test("a message attached inside a forwarded one is noted, not read")
    func nestedTooDeep() throws {
        let inner = try Self.forward(try Self.confirmation(), signedBy: "home.example")
        let twice = try Self.forward(String(decoding: inner.bytes, as: UTF8.self), signedBy: "home.example", boundary: "outer-boundary")
        let report = try Self.pipeline().analyze(twice)
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
