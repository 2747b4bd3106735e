import DKIM
import Documents
import EventStore
import Foundation
import Mailbox
import PipelineTestSupport
import RailTicket
import Testing
import Trust

@testable import Pipeline

/// Rail tickets in mail through the whole pipeline, the bar code reader replaced by one that
/// hands over the payloads of scripts/make-rail-tickets: a ticket vouches for itself only with a
/// key of the list that may vouch for it (its validity, its product owners, the clock), and,
/// with recipients bound, only in mail bound to the person (docs/SECURITY.md).
@Suite("Rail tickets in mail")
struct RailTicketPipelineTests {
    static let corpus = Samples.root.appendingPathComponent("Tests/RailTicketTests")
    /// 2026-03-16T12:00:00Z: after the corpus's DB and SNCF tickets were issued (15 March), before
    /// their journeys.
    static let now: Int64 = 1_773_662_400

    static func payload(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: corpus.appendingPathComponent("Tickets/\(name).bin")))
    }

    /// An unsigned message from `from` with one PDF attachment, and the person's own verifier's
    /// `Authentication-Results` on top when `verified`.
    static func message(from: String = "Someone <someone@elsewhere.example>", verified: Bool = false) -> RawMessage {
        // The reader is replaced: the PDF's bytes only need to be one (`%PDF-1.4`).
        AttachmentMail.message(
            from: from, subject: "your ticket", date: "Mon, 16 Mar 2026 10:00:00 +0000", contentType: "application/pdf",
            filename: "ticket.pdf", body: Array("%PDF-1.4\n".utf8), verified: verified)
    }

    static func pipeline(_ ticket: String, store: (any EventStore)?, recipients: [String] = [], now: Int64 = now) throws -> ReservationPipeline {
        let policy = TrustPolicy(recipients: recipients, trustedAuthservID: "mx.home.example")
        let pipeline = try Samples.pipeline(store: store, policy: policy, now: now)
        pipeline.railKeys = RailKeySource(path: corpus.appendingPathComponent("Keys/keys.xml").path)
        let bytes = try payload(ticket)
        pipeline.documentReader = { _, _, _ in DocumentReading(barcodes: [DocumentBarcode(format: "Aztec", page: 1, bytes: bytes)]) }
        return pipeline
    }

    struct Outcome {
        var trusted: Bool
        var refusal: String?
        var stored: Int
    }

    static func run(_ ticket: String, message raw: RawMessage = message(), recipients: [String] = [], now: Int64 = now) throws -> Outcome {
        let tmp = TemporaryStore()
        defer { tmp.remove() }
        let store = try tmp.open()
        let report = try pipeline(ticket, store: store, recipients: recipients, now: now).process(raw)
        let item = try #require(report.items.first, "\(ticket): no reservation")
        let verdict = report.verdict(of: item)
        return Outcome(trusted: verdict.trusted, refusal: verdict.refusal?.code.rawValue, stored: try store.events().count)
    }

    @Test(
        "a key outside its validity or its owners vouches for nothing: the ticket is the unsigned message's, refused and not stored; each beside its control",
        arguments: [
            ("db-v2-layout", nil), ("attack-retired-key", "rail-key-not-valid"), ("attack-issued-in-future", "rail-key-not-valid"),
            ("key-for-owner", nil), ("attack-key-not-for-owner", "rail-key-not-for-owner"),
        ] as [(String, String?)])
    func keyUse(_ ticket: String, refusal: String?) throws {
        let outcome = try Self.run(ticket)
        #expect(outcome.trusted == (refusal == nil), "\(ticket)")
        #expect(outcome.stored == (refusal == nil ? 1 : 0), "\(ticket)")
        if let refusal {
            // The message, unsigned, cannot vouch instead; the ticket's own rule is said.
            let report = try Self.pipeline(ticket, store: nil).analyze(Self.message())
            #expect(report.diagnostics.contains { $0.code.description == "untrusted-" + refusal }, "\(ticket): \(report.diagnostics)")
        }
    }

    @Test("the ticket issued in the future is the railway's once the clock has passed its issuing time")
    func futureTicketLater() throws {
        // 2029-01-02: after the ticket's issuing (1 January 2029), within the key's validity.
        #expect(try Self.run("attack-issued-in-future", now: 1_861_920_000).trusted)
    }

    /// `message()` from the railway's own domain, signed by it (every sample domain publishes
    /// the sample key), its To naming the person.
    static func signedByRailway() throws -> RawMessage {
        let text = String(decoding: message(from: "Rail Alpina <tickets@railalpina.example>").bytes, as: UTF8.self)
        let key = try String(contentsOf: Samples.root.appendingPathComponent("scripts/samples/sample-dkim-key.pem"), encoding: .utf8)
        let field = try DKIMSigner(privateKeyPEM: key).sign(
            Array(text.utf8), domain: "railalpina.example", selector: "s2026",
            headers: ["From", "To", "Subject", "Date", "MIME-Version", "Content-Type"],
            canonicalization: try #require(DKIMCanonicalization(tag: "relaxed/relaxed")), timestamp: now - 3600, expiration: nil)
        return RawMessage(bytes: Array((field + text).utf8), origin: MessageOrigin(path: nil))
    }

    @Test(
        "with recipients bound, a genuine railway's signed mail to the person, its domain not allowed yet: the ticket waits as pending, and allowing the domain stores it"
    )
    func pendingUntilAllowed() throws {
        let tmp = TemporaryStore()
        defer { tmp.remove() }
        let store = try tmp.open()
        let pipeline = try Self.pipeline("db-v2-layout", store: store, recipients: ["jane@home.example"])
        let raw = try Self.signedByRailway()
        let report = pipeline.process(raw)
        #expect(report.trust.refusals.map(\.code) == [.domainNotAllowed], "\(report.trust.reason)")
        #expect(report.pendingSenderDomain == "railalpina.example")
        #expect(report.diagnostics.contains { $0.code.description == "sender-pending" }, "\(report.diagnostics)")
        let senders = try #require(store.senders)
        #expect(try senders.pendingReservations(receivedSince: 0).count == 1)
        #expect(try store.events().isEmpty)
        // The person allows the railway's domain: the mail read again binds the ticket.
        try senders.decideSender(SenderDecision(domain: "railalpina.example", choice: .allow, decidedAt: Self.now, decidedBy: "jane"))
        var again = pipeline.deciding(under: pipeline.policy.allowing(["railalpina.example"])).analyze(raw)
        pipeline.record(&again)
        #expect(again.items.first.map(again.isTrusted) == true)
        #expect(try store.events().count == 1)
    }

    @Test(
        "with recipients bound, a stranger's genuine rail ticket is not the person's (document-not-addressed); the person's own verified mail binds it"
    )
    func binding() throws {
        let me = ["jane@home.example"]
        #expect(try Self.run("db-v2-layout", recipients: me).refusal == "document-not-addressed")
        #expect(try Self.run("db-v2-layout", recipients: me).stored == 0)
        #expect(try Self.run("db-v2-layout", message: Self.message(from: "Jane <jane@home.example>"), recipients: me).stored == 0)
        let own = try Self.run("db-v2-layout", message: Self.message(from: "Jane <jane@home.example>", verified: true), recipients: me)
        #expect(own.trusted && own.stored == 1)
        // Without binding, as before: the railway vouches whoever mailed it.
        #expect(try Self.run("db-v2-layout").trusted)
    }
}
