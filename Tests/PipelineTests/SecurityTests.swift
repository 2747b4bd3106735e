import DKIM
import EventStore
import Foundation
import MIME
import Mailbox
import PipelineTestSupport
import Reservations
import Testing
import Trust

@testable import Pipeline

/// The trust rules against the forgeries issue "Reliability and security" lists: each case is
/// a message an attacker can send, and none may put an event on the calendar.
@Suite("Forged, altered and ambiguous mail is never trusted")
struct SecurityTests {
    static let policy = TrustPolicy(allowedDomains: ["epicsteak.example"], publicSuffixes: PublicSuffixList.load())

    static func pass(_ domain: String, coversWholeBody: Bool = true, testing: Bool = false) -> DKIMVerification {
        var v = DKIMVerification(result: .pass, reason: "", domain: domain, selector: "s2026", algorithm: "rsa-sha256")
        v.coversWholeBody = coversWholeBody
        v.testing = testing
        return v
    }

    @Test("the baseline: a passing, aligned, allowed signature is trusted")
    func baseline() {
        #expect(Self.policy.decide(signatures: [Self.pass("epicsteak.example")], fromDomains: ["epicsteak.example"]).trusted)
    }

    @Test("markup after l= is not trusted (RFC 6376 §8.2)")
    func partialBody() {
        let d = Self.policy.decide(signatures: [Self.pass("epicsteak.example", coversWholeBody: false)], fromDomains: ["epicsteak.example"])
        #expect(!d.trusted)
        #expect(d.refusal?.code == .partialBody)
    }

    @Test("a testing key (t=y) is never trusted (RFC 6376 §3.6.1)")
    func testingKey() {
        #expect(!Self.policy.decide(signatures: [Self.pass("epicsteak.example", testing: true)], fromDomains: ["epicsteak.example"]).trusted)
    }

    @Test("two From addresses: nothing vouches (RFC 6376 §8.6)")
    func twoFroms() {
        let d = Self.policy.decide(signatures: [Self.pass("epicsteak.example")], fromDomains: ["epicsteak.example", "attacker.example"])
        #expect(!d.trusted)
    }

    @Test(
        "a comment cannot smuggle a domain into From or d=",
        arguments: [
            "From: x@attacker.example(.epicsteak.example)", "From: \"x@epicsteak.example\" <x@attacker.example>",
            "From: x@attacker.example (epicsteak.example)",
        ])
    func commentsInFrom(field: String) {
        let message = Message(bytes: Array((field + "\nSubject: s\n\nbody\n").utf8))
        let domains = message.from.map(\.domain)
        #expect(domains == ["attacker.example"])
        #expect(!Self.policy.decide(signatures: [Self.pass("epicsteak.example")], fromDomains: domains).trusted)
        #expect(!Self.policy.isAligned(signingDomain: "epicsteak.example(.attacker.example", fromDomain: "attacker.example"))
    }

    @Test(
        "look-alike domains are other domains: Cyrillic letters, punycode, a trailing label",
        arguments: ["еpicsteak.example", "xn--picsteak-5fg.example", "epicsteak.example.attacker.example", "epicsteak-example.com"])
    func lookAlikes(domain: String) {
        #expect(!Self.policy.isAllowed(domain: domain))
        #expect(!Self.policy.isAligned(signingDomain: "epicsteak.example", fromDomain: domain))
        #expect(!Self.policy.decide(signatures: [Self.pass(domain)], fromDomains: [domain]).trusted)
        #expect(!Self.policy.decide(signatures: [Self.pass("epicsteak.example")], fromDomains: [domain]).trusted)
    }

    @Test("relaxed alignment stops at the organizational domain (RFC 7489 §3.2)")
    func relaxedAlignment() {
        #expect(Self.policy.isAligned(signingDomain: "mail.epicsteak.example", fromDomain: "epicsteak.example"))
        // A public suffix is nobody's organizational domain.
        #expect(!Self.policy.isAligned(signingDomain: "co.uk", fromDomain: "bank.co.uk"))
        #expect(!Self.policy.isAligned(signingDomain: "attacker.co.uk", fromDomain: "bank.co.uk"))
    }

    @Test("a failing signature next to a passing one from another domain does not help")
    func unalignedPass() {
        var failed = Self.pass("epicsteak.example")
        failed.result = .fail
        #expect(!Self.policy.decide(signatures: [failed, Self.pass("attacker.example")], fromDomains: ["epicsteak.example"]).trusted)
    }
}

/// End to end through the verifier: a real signature with `l=`, markup appended after it.
@Suite("A signature with l= does not vouch for what follows it")
struct PartialSignatureTests {
    static let key = Samples.root.appendingPathComponent("scripts/samples/sample-dkim-key.pem")

    static func signed(signedBody: String, appended: String) throws -> RawMessage {
        let header =
            "From: EPIC Steak <reservations@epicsteak.example>\nTo: jane@example.org\nSubject: Your table\n"
            + "Date: Sat, 21 Nov 2026 10:00:00 -0800\nMessage-ID: <partial@epicsteak.example>\n"
            + "MIME-Version: 1.0\nContent-Type: text/html; charset=utf-8\n\n"
        let unsigned = Array((header + signedBody).utf8)
        let signer = try DKIMSigner(privateKeyPEM: try String(contentsOf: key, encoding: .utf8))
        // Simple body canonicalization: the signed length is the body's length with CRLF line ends.
        let length = signedBody.replacingOccurrences(of: "\n", with: "\r\n").utf8.count
        let field = try signer.sign(
            unsigned, domain: "epicsteak.example", selector: "s2026",
            headers: ["From", "To", "Subject", "Date", "Message-ID", "MIME-Version", "Content-Type"],
            canonicalization: try #require(DKIMCanonicalization(tag: "relaxed/simple")),
            timestamp: Samples.now - 3600, expiration: nil, bodyLength: length)
        return RawMessage(bytes: Array((field + header + signedBody + appended).utf8), origin: MessageOrigin())
    }

    static let markup = """
        <script type="application/ld+json">{"@context":"https://schema.org","@type":"FoodEstablishmentReservation",
        "reservationId":"FORGED1","reservationStatus":"https://schema.org/ReservationConfirmed",
        "startTime":"2031-05-12T19:30:00-07:00","reservationFor":{"@type":"Restaurant","name":"EPIC Steak"}}</script>

        """

    @Test("markup appended after l= is read but not trusted, with untrusted-partial-signature")
    func appendedMarkup() throws {
        let raw = try Self.signed(signedBody: "<html><body><p>Thank you for dining with us.</p>\n", appended: Self.markup + "</body></html>\n")
        let report = try Samples.pipeline().analyze(raw)
        #expect(report.signatures.first?.result == .pass, "the signed part is intact: \(report.signatures)")
        #expect(report.items.map(\.reservation.reservationID) == ["FORGED1"])
        #expect(!report.trust.trusted)
        #expect(report.diagnostics.map(\.code).contains(.untrusted(.partialBody)))
    }

    @Test("the same markup inside the signed length is trusted: l= covering the whole body")
    func wholeBodySigned() throws {
        let raw = try Self.signed(signedBody: "<html><body>\n" + Self.markup + "</body></html>\n", appended: "")
        let report = try Samples.pipeline().analyze(raw)
        #expect(report.trust.trusted, "\(report.trust.reason)")
        #expect(!report.diagnostics.map(\.code).contains(.untrusted(.partialBody)))
    }
}

/// The store orders versions of a booking by when they were sent; only signed evidence counts.
@Suite("An unsigned Date cannot make a replayed message newer")
struct ReplayOrderingTests {
    static func signed(status: String, date: String, timestamp: Int64, headers: [String]) throws -> [UInt8] {
        let header =
            "From: EPIC Steak <reservations@epicsteak.example>\nTo: jane@example.org\nSubject: Your table\n"
            + "Date: \(date)\nMessage-ID: <\(status)@epicsteak.example>\n"
            + "MIME-Version: 1.0\nContent-Type: text/html; charset=utf-8\n\n"
        let body = """
            <html><body><script type="application/ld+json">{"@context":"https://schema.org","@type":"FoodEstablishmentReservation",
            "reservationId":"REPLAY1","reservationStatus":"https://schema.org/\(status)",
            "startTime":"2031-05-12T19:30:00-07:00","reservationFor":{"@type":"Restaurant","name":"EPIC Steak"}}</script></body></html>

            """
        let signer = try DKIMSigner(privateKeyPEM: try String(contentsOf: PartialSignatureTests.key, encoding: .utf8))
        let field = try signer.sign(
            Array((header + body).utf8), domain: "epicsteak.example", selector: "s2026", headers: headers,
            canonicalization: try #require(DKIMCanonicalization(tag: "relaxed/relaxed")),
            timestamp: timestamp, expiration: nil)
        return Array((field + header + body).utf8)
    }

    /// Confirmed on the 18th, cancelled on the 20th; the confirmation replayed with its
    /// unsigned Date moved to the 21st and its unsigned Message-ID changed.
    func replay(headers: [String]) throws -> EventStatus? {
        let confirmed = try Self.signed(
            status: "ReservationConfirmed", date: "Wed, 18 Nov 2026 10:00:00 +0000",
            timestamp: Samples.now - 4 * 86_400, headers: headers)
        let cancelled = try Self.signed(
            status: "ReservationCancelled", date: "Fri, 20 Nov 2026 10:00:00 +0000",
            timestamp: Samples.now - 2 * 86_400, headers: headers)
        let replayed = Array(
            String(decoding: confirmed, as: UTF8.self)
                .replacingOccurrences(of: "Wed, 18 Nov 2026", with: "Sat, 21 Nov 2026")
                .replacingOccurrences(of: "<ReservationConfirmed@", with: "<replayed@").utf8)
        let temporary = TemporaryStore()
        defer { temporary.remove() }
        let store = try temporary.open()
        let pipeline = try Samples.pipeline(store: store)
        for bytes in [confirmed, cancelled, replayed] {
            let report = pipeline.process(RawMessage(bytes: bytes, origin: MessageOrigin()))
            #expect(report.signatures.first?.result == .pass, "\(report.signatures.map(\.reason))")
            #expect(report.trust.trusted, "\(report.trust.reason)")
        }
        return try store.events().first?.event.status
    }

    @Test("Date and Message-ID not in h=: the signature's t= orders the versions, and the booking stays cancelled")
    func unsignedDate() throws {
        #expect(try replay(headers: ["From", "To", "Subject", "MIME-Version", "Content-Type"]) == .cancelled)
    }

    @Test("Date in h=: the replay cannot change it without breaking the signature")
    func signedDate() throws {
        let confirmed = try Self.signed(
            status: "ReservationConfirmed", date: "Wed, 18 Nov 2026 10:00:00 +0000",
            timestamp: Samples.now - 4 * 86_400,
            headers: ["From", "To", "Subject", "Date", "Message-ID", "MIME-Version", "Content-Type"])
        let replayed = Array(
            String(decoding: confirmed, as: UTF8.self)
                .replacingOccurrences(of: "Wed, 18 Nov 2026", with: "Sat, 21 Nov 2026").utf8)
        let report = try Samples.pipeline().analyze(RawMessage(bytes: replayed, origin: MessageOrigin()))
        #expect(report.signatures.first?.result == .fail)
    }
}
