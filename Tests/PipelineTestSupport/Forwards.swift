public import DKIM
public import DNS
public import EventStore
public import Foundation
public import Mailbox
public import Pipeline
import Trust

/// Forwarded confirmations for tests: a confirmation EPIC Steak signed with the samples' key,
/// attached to a forward from the samples' user (jane@home.example), whose domain publishes
/// the same key.
public enum Forwards {
    public static let key = Samples.root.appendingPathComponent("scripts/samples/sample-dkim-key.pem")

    public static func signer() throws -> DKIMSigner {
        try DKIMSigner(privateKeyPEM: try String(contentsOf: key, encoding: .utf8))
    }

    /// The samples' keys, and the same key published for the user's domain.
    public static func keys() throws -> KeysFile {
        let samples = try String(contentsOfFile: Samples.keysZone, encoding: .utf8)
        return KeysFile(text: samples + "\ns2026._domainkey.home.example TXT \"\(try signer().publicKeyRecord())\"\n")
    }

    public static func sign(_ header: String, _ body: String, domain: String) throws -> String {
        let field = try signer().sign(
            Array((header + body).utf8), domain: domain, selector: "s2026",
            headers: ["From", "To", "Subject", "Date", "Message-ID", "MIME-Version", "Content-Type"],
            canonicalization: DKIMCanonicalization.relaxedRelaxed, timestamp: Samples.now - 7200,
            expiration: nil)
        return field + header + body
    }

    /// The confirmation EPIC Steak sent the user, signed with the samples' key.
    public static func confirmation(id: String = "FWD1") throws -> String {
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
    public static func forward(
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

    public static func pipeline(store: (any EventStore)? = nil, me: [String] = ["jane@home.example"], ownID: String = "reservoir.home.example")
        throws -> ReservationPipeline
    {
        ReservationPipeline(
            resolver: try keys(),
            policy: TrustPolicy(
                allowedDomains: ["epicsteak.example"], publicSuffixes: PublicSuffixList.load(), recipients: me,
                trustedAuthservID: "mx.home.example", ownAuthservID: ownID),
            store: store, now: Samples.now)
    }
}
