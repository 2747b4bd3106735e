import DKIM
import DNS
import Documents
import Foundation
import Mailbox
import PipelineTestSupport
import Synchronization
import Testing
import Trust

@testable import Pipeline

/// A message is analysed once and decided under as many policies as judge it: the milter's
/// accounts, a sender the person just allowed. No policy enters the analysis, and a second
/// decision looks up no key and reads no document again.
@Suite("One analysis, a decision per policy")
struct MessageAnalysisTests {
    /// The sample keys, counting the lookups of each name.
    final class CountingResolver: TXTResolver, @unchecked Sendable {
        let keys: KeysFile
        var lookups: [String: Int] = [:]
        init() throws { keys = try KeysFile(path: Samples.keysZone) }
        func lookupTXT(_ name: String) -> TXTLookupResult {
            lookups[name, default: 0] += 1
            return keys.lookupTXT(name)
        }
    }

    @Test("one message decided under three policies: one key lookup, each policy's own verdict")
    func threePolicies() throws {
        let resolver = try CountingResolver()
        let site = ReservationPipeline(resolver: resolver, policy: TrustPolicy(), store: nil, now: Samples.now)
        let analysis = site.analysis(try Samples.message(1))
        let allowed = site.deciding(under: TrustPolicy(allowedDomains: ["epicsteak.example"], recipients: ["jane@home.example"]))
        let otherPerson = site.deciding(under: TrustPolicy(allowedDomains: ["epicsteak.example"], recipients: ["joe@home.example"]))

        let refused = site.decide(analysis)
        #expect(!refused.trust.trusted)
        #expect(refused.trust.refusals.map(\.code) == [.domainNotAllowed], "\(refused.trust.reason)")
        let trusted = allowed.decide(analysis)
        #expect(trusted.trust.trusted, "\(trusted.trust.reason)")
        #expect(trusted.items.contains { trusted.isTrusted($0) })
        let notJoes = otherPerson.decide(analysis)
        #expect(notJoes.trust.refusals.map(\.code) == [.recipientNotListed], "\(notJoes.trust.reason)")
        #expect(resolver.lookups == ["s2026._domainkey.epicsteak.example": 1], "\(resolver.lookups)")
        // The control: deciding by analysing again looks the key up again.
        _ = allowed.analyze(try Samples.message(1))
        #expect(resolver.lookups["s2026._domainkey.epicsteak.example"] == 2)
    }

    @Test("a document is read once for every decision of its message")
    func documentReadOnce() throws {
        let reads = Mutex(0)
        let pipeline = try Samples.pipeline()
        pipeline.documentReader = { _, _, _ in
            reads.withLock { $0 += 1 }
            return DocumentReading(barcodes: [])
        }
        let mail = AttachmentMail.message(
            subject: "Your ticket", date: "Sun, 22 Nov 2026 10:00:00 +0000", contentType: "application/pdf", filename: "ticket.pdf",
            body: Array("%PDF-1.4 not really".utf8))
        let analysis = pipeline.analysis(mail)
        _ = pipeline.decide(analysis)
        _ = pipeline.deciding(under: TrustPolicy(recipients: ["jane@home.example"])).decide(analysis)
        #expect(reads.withLock { $0 } == 1)
        // The control: a second analysis reads it again.
        _ = pipeline.analyze(mail)
        #expect(reads.withLock { $0 } == 2)
    }

    @Test("a part labelled PDF that holds no PDF is unreadable without a reader; one that opens as a PDF goes to the reader")
    func notADocumentIsNotRead() throws {
        let reads = Mutex(0)
        let pipeline = try Samples.pipeline()
        pipeline.documentReader = { _, _, _ in
            reads.withLock { $0 += 1 }
            return DocumentReading(barcodes: [])
        }
        let random = (0..<60_000).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 7) }
        let garbage = AttachmentMail.message(
            subject: "Your invoice", date: "Sun, 22 Nov 2026 10:00:00 +0000", contentType: "application/pdf", filename: "invoice.pdf",
            body: random)
        let report = pipeline.analyze(garbage)
        #expect(reads.withLock { $0 } == 0)
        #expect(report.diagnostics.contains { $0.code == .document(.unreadable) }, "\(report.diagnostics.map(\.code))")
        // The control: the same bytes after a PDF header (within its first 1,024 bytes) are read.
        let pdf = AttachmentMail.message(
            subject: "Your invoice", date: "Sun, 22 Nov 2026 10:00:00 +0000", contentType: "application/pdf", filename: "invoice.pdf",
            body: Array(random.prefix(900)) + Array("%PDF-1.7\n".utf8) + random)
        _ = pipeline.analyze(pdf)
        #expect(reads.withLock { $0 } == 1)
    }

    @Test("a sender the person allows is decided again from the kept analysis, its key not looked up again")
    func allowedSender() throws {
        let resolver = try CountingResolver()
        let pipeline = ReservationPipeline(resolver: resolver, policy: TrustPolicy(), store: nil, now: Samples.now)
        let report = pipeline.analyze(try Samples.message(1))
        #expect(report.pendingSenderDomain == "epicsteak.example")
        let analysis = try #require(report.analysis)
        let again = pipeline.deciding(under: pipeline.policy.allowing(["epicsteak.example"])).decide(analysis)
        #expect(again.trust.trusted, "\(again.trust.reason)")
        #expect(resolver.lookups.values.reduce(0, +) == 1, "\(resolver.lookups)")
    }
}
