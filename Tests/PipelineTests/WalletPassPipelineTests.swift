import EventStore
import Foundation
import Mailbox
import PassTestSupport
import PipelineTestSupport
import Reservations
import ReservoirBase
import TestRequirements
import Testing
import Trust
import WalletPass

@testable import EventStore
@testable import Pipeline

/// Mail carrying a Wallet pass, through the whole pipeline: a pass of an allowed pass type under
/// the configured CA becomes a trusted event whoever sent the mail; every broken pass is shown,
/// untrusted, with its reason, and stores nothing.
@Suite("Wallet passes in mail", .enabled(if: Requirement.met(PassFactory.available), "openssl is not installed (apt-get install openssl)"))
struct WalletPassPipelineTests {
    static let factory = Result { try PassFactory() }
    static let signer = Result {
        try factory.get().signer(passType: SamplePassJSON.passType, team: SamplePassJSON.team, organization: "Cascadia Air")
    }
    /// The real time: openssl stamps the signing time with it. The reservations lie in 2031.
    static let now = Int64(Date().timeIntervalSince1970)

    static func policy(allowedPassTypes: [String] = ["pass.com.cascadia-air.*"]) throws -> TrustPolicy {
        TrustPolicy(allowedPassTypes: allowedPassTypes, passAnchors: PassTrustAnchors(paths: [try factory.get().caPath]))
    }

    /// An unsigned message from a stranger carrying `pass` as its only attachment.
    static func message(
        _ pass: [UInt8], contentType: String = "application/vnd.apple.pkpass", date: String = "Sun, 22 Nov 2026 06:15:30 +0000"
    ) -> RawMessage {
        AttachmentMail.message(subject: "your pass", date: date, contentType: contentType, filename: "pass.pkpass", body: pass)
    }

    static func process(_ pass: [UInt8], policy: TrustPolicy? = nil, store: (any EventStore)?) throws -> MessageReport {
        try Samples.pipeline(store: store, policy: policy ?? Self.policy(), now: now).process(message(pass))
    }

    /// `message(pass)` with its From replaced, and an `Authentication-Results` field of the
    /// person's own verifier (`mx.home.example`) on top when `verified`.
    static func message(_ pass: [UInt8], from: String, verified: Bool) -> RawMessage {
        AttachmentMail.message(
            from: from, subject: "your pass", date: "Sun, 22 Nov 2026 06:15:30 +0000", contentType: "application/vnd.apple.pkpass",
            filename: "pass.pkpass", body: pass, verified: verified)
    }

    @Test(
        "with recipients bound (--me), a genuine pass in a stranger's mail is not the person's: listed, document-not-addressed, not stored; the person's own mail binds it"
    )
    func strangersPass() throws {
        let pass = try Self.factory.get().pass(json: SamplePassJSON.boarding(), signer: Self.signer.get())
        var policy = try Self.policy()
        policy.recipients = ["jane@home.example"]
        policy.trustedAuthservID = "mx.home.example"
        for (raw, bound) in [
            (Self.message(pass), false),
            // Someone writing the person's address into From, without their verifier's word.
            (Self.message(pass, from: "Jane <jane@home.example>", verified: false), false),
            (Self.message(pass, from: "Jane <jane@home.example>", verified: true), true),
        ] {
            let tmp = TemporaryStore()
            defer { tmp.remove() }
            let store = try tmp.open()
            let report = try Samples.pipeline(store: store, policy: policy, now: Self.now).process(raw)
            let item = try #require(report.items.first)
            guard case .document(let decision) = item.source, decision.kind == .walletPass else {
                Issue.record("not a pass item")
                return
            }
            #expect(decision.trusted == bound)
            #expect(decision.signer != nil, "the pass's proof stays")
            #expect(decision.refusal == (bound ? nil : TrustRefusal.documentNotAddressed))
            #expect(report.verdict(of: item).refusal?.code.rawValue == (bound ? nil : "document-not-addressed"))
            #expect(try store.events().count == (bound ? 1 : 0))
            #expect(report.diagnostics.map(\.code.description).contains("untrusted-document-not-addressed") == !bound)
        }
        // The control: without recipient binding the stranger's mail carries it, as before.
        let open = try Samples.pipeline(store: nil, policy: try Self.policy(), now: Self.now).analyze(Self.message(pass))
        #expect(open.items.first.map(open.isTrusted) == true)
    }

    @Test("a pass of an allowed type under the configured CA: a trusted flight in the store, owned by its pass type")
    func trustedFlight() throws {
        let tmp = TemporaryStore()
        defer { tmp.remove() }
        let store = try tmp.open()
        let report = try Self.process(try Self.factory.get().pass(json: SamplePassJSON.boarding(), signer: Self.signer.get()), store: store)
        #expect(!report.trust.trusted)  // the message itself vouches for nothing
        let item = try #require(report.items.first)
        guard case .document(let decision) = item.source, decision.kind == .walletPass else {
            Issue.record("not a pass item")
            return
        }
        #expect(decision.trusted)
        #expect(decision.passSigner?.teamIdentifier == SamplePassJSON.team)
        #expect(report.hasTrustedReservations)
        #expect(item.reservation.category == .flight)
        #expect(item.reservation.reservationID == "7Q2XKD")
        #expect(item.reservation.start?.local == "2031-03-14T08:40:00")
        #expect(item.change?.kind == "created")
        let stored = try store.events()
        #expect(stored.count == 1)
        #expect(stored.first?.owner == .walletPass(passType: SamplePassJSON.passType))
        // Vouched for by the pass's signature, not by the mail carrying it (which vouches for nothing).
        #expect(stored.first?.proof == .signedPass(passType: SamplePassJSON.passType))
        #expect(!report.diagnostics.contains { $0.stage == .trust })
    }

    @Test("a voided pass of the same type cancels the event")
    func voided() throws {
        let tmp = TemporaryStore()
        defer { tmp.remove() }
        let store = try tmp.open()
        let factory = try Self.factory.get()
        _ = try Self.process(try factory.pass(json: SamplePassJSON.boarding(), signer: Self.signer.get()), store: store)
        let report = try Self.process(try factory.pass(json: SamplePassJSON.boarding(voided: true), signer: Self.signer.get()), store: store)
        #expect(report.items.first?.change?.kind == "cancelled")
    }

    @Test(
        "broken passes are shown, untrusted, with their refusal code, and store nothing",
        arguments: ["tampered", "other CA", "unknown type", "team mismatch", "zip bomb"])
    func refused(_ kind: String) throws {
        let factory = try Self.factory.get()
        let signer = try Self.signer.get()
        var policy = try Self.policy()
        let bytes: [UInt8]
        let expected: String
        switch kind {
        case "tampered":
            bytes = try factory.pass(json: SamplePassJSON.boarding(), signer: signer) { files in
                files["pass.json"] = Array(SamplePassJSON.boarding(relevantDate: "2031-03-15T08:40:00-07:00").utf8)
            }
            expected = "untrusted-pass-manifest-mismatch"
        case "other CA":
            let other = try PassFactory(caName: "Another CA")
            bytes = try other.pass(
                json: SamplePassJSON.boarding(),
                signer: try other.signer(passType: SamplePassJSON.passType, team: SamplePassJSON.team, organization: "X"))
            expected = "untrusted-pass-chain-not-trusted"
        case "unknown type":
            bytes = try factory.pass(json: SamplePassJSON.boarding(), signer: signer)
            policy = try Self.policy(allowedPassTypes: ["pass.com.cascadia-air.boarding.*", "pass.com.other"])
            expected = "untrusted-pass-type-not-allowed"
        case "team mismatch":
            bytes = try factory.pass(json: SamplePassJSON.boarding(team: "OTHERTEAM1"), signer: signer)
            expected = "untrusted-pass-identity-mismatch"
        default:
            bytes = try factory.pass(json: SamplePassJSON.boarding(), signer: signer, files: ["strip.png": [UInt8](repeating: 0, count: 4 << 20)])
            expected = "untrusted-pass-unreadable"
        }
        let tmp = TemporaryStore()
        defer { tmp.remove() }
        let store = try tmp.open()
        let report = try Self.process(bytes, policy: policy, store: store)
        #expect(report.items.count == 1)
        #expect(!report.hasTrustedReservations)
        #expect(report.items.allSatisfy { $0.change == nil })
        #expect(report.diagnostics.map(\.code.description).contains(expected), "\(report.diagnostics.map(\.code.description))")
        #expect(try store.events().isEmpty)
    }

    @Test("a truncated pass: notes, no reservation, no trap")
    func truncated() throws {
        let bytes = try Self.factory.get().pass(json: SamplePassJSON.boarding(), signer: Self.signer.get())
        let report = try Self.process(Array(bytes.prefix(bytes.count / 2)), store: nil)
        #expect(report.items.isEmpty)
        #expect(report.diagnostics.map(\.code.description).contains("zip-no-directory"))
        #expect(report.diagnostics.map(\.code.description).contains("pass-unreadable"))
    }

    @Test("a .pkpass file name on application/octet-stream is a pass; another file name is not")
    func octetStream() throws {
        let bytes = try Self.factory.get().pass(json: SamplePassJSON.boarding(), signer: Self.signer.get())
        let pipeline = try Samples.pipeline(store: nil, policy: Self.policy(), now: Self.now)
        #expect(pipeline.process(Self.message(bytes, contentType: "application/octet-stream")).items.count == 1)
        let renamed = Self.message(bytes, contentType: "application/octet-stream")
        let other = RawMessage(
            bytes: Array(String(decoding: renamed.bytes, as: UTF8.self).replacingOccurrences(of: "pass.pkpass", with: "pass.zip").utf8),
            origin: renamed.origin)
        #expect(pipeline.process(other).items.isEmpty)
    }

    @Test("the sample boarding pass mail: trusted by its pass, stored")
    func sample() throws {
        let tmp = TemporaryStore()
        defer { tmp.remove() }
        let policy = TrustPolicy(
            allowedDomains: ["cascadia-air.example"], allowedPassTypes: ["pass.example.cascadia-air.*"],
            passAnchors: PassTrustAnchors(paths: [Samples.maildir.appendingPathComponent("pass-ca.pem").path]))
        let report = try Samples.pipeline(store: try tmp.open(), policy: policy).process(try Samples.message(9))
        let item = try #require(report.items.first)
        #expect(report.isTrusted(item))
        #expect(item.reservation.reservationID == "M4XT9B")
        #expect(item.reservation.start?.local == "2031-06-10T17:05:00")
        #expect(item.change?.kind == "created")
    }

    // MARK: The year of a bar code: signed evidence only (docs/SECURITY.md, "Wallet passes")

    /// The message's `Date:` as the genuine mail has it, then rewritten far ahead and far back:
    /// nothing signs it, so anyone holding the pass can send it with any of them.
    static let replayDates = ["Sun, 22 Nov 2026 06:15:30 +0000", "Tue, 14 Mar 2056 08:00:00 +0000", "Wed, 14 Mar 2001 08:00:00 +0000"]

    /// `raw` with its `Date:` field's value replaced.
    static func redated(_ raw: RawMessage, _ date: String) throws -> RawMessage {
        var lines = String(decoding: raw.bytes, as: UTF8.self).components(separatedBy: "\n")
        let index = try #require(lines.firstIndex { $0.hasPrefix("Date:") })
        lines[index] = "Date: " + date + (lines[index].hasSuffix("\r") ? "\r" : "")
        return RawMessage(bytes: Array(lines.joined(separator: "\n").utf8), origin: raw.origin)
    }

    @Test("the sample pass mailed again with a Date in 2056 or 2001: the same flight, one event in the store")
    func sampleRedated() throws {
        let tmp = TemporaryStore()
        defer { tmp.remove() }
        let store = try tmp.open()
        let policy = TrustPolicy(
            allowedPassTypes: ["pass.example.cascadia-air.*"],
            passAnchors: PassTrustAnchors(paths: [Samples.maildir.appendingPathComponent("pass-ca.pem").path]))
        let pipeline = try Samples.pipeline(store: store, policy: policy)
        for date in Self.replayDates {
            let report = pipeline.process(try Self.redated(try Samples.message(9), date))
            let item = try #require(report.items.first, "\(date)")
            #expect(report.isTrusted(item))
            #expect(item.reservation.start?.local == "2031-06-10T17:05:00", "\(date)")
            #expect(report.diagnostics.first { $0.code == .pass(.bcbpYear) }?.detail == "relevant-date")
        }
        #expect(try store.events().count == 1)
    }

    /// The day of the year `days` after the clock, as the bar code writes it, and its date.
    static func dayAhead(_ days: Int64) -> (dayOfYear: Int, date: String) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? .current
        let day = Date(timeIntervalSince1970: TimeInterval(now + days * 86_400))
        let parts = calendar.dateComponents([.year, .month, .day], from: day)
        let text = String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
        return (calendar.ordinality(of: .day, in: .year, for: day) ?? 0, text)
    }

    @Test("a pass without relevant date: its year from the signing time, whatever Date the mail carries; one event")
    func signingTimeYear() throws {
        let tmp = TemporaryStore()
        defer { tmp.remove() }
        let store = try tmp.open()
        // Signed now (openssl stamps the signing time), flying in three weeks.
        let flight = Self.dayAhead(21)
        let bytes = try Self.factory.get().pass(
            json: SamplePassJSON.boarding(relevantDate: nil, dayOfYear: flight.dayOfYear), signer: Self.signer.get())
        let pipeline = try Samples.pipeline(store: store, policy: Self.policy(), now: Self.now)
        for date in Self.replayDates {
            let report = pipeline.process(Self.message(bytes, date: date))
            let item = try #require(report.items.first, "\(date)")
            #expect(report.isTrusted(item))
            #expect(item.reservation.start?.date == flight.date, "\(date)")
            #expect(report.diagnostics.first { $0.code == .pass(.bcbpYear) }?.detail == "signing-time")
        }
        #expect(try store.events().count == 1)
        #expect(try store.events().first?.event.start?.local.hasPrefix(flight.date) == true)
    }

    @Test("a pass nothing signed dates (no relevant date, no signing time): its year by the clock, listed but never stored")
    func unsignedYear() throws {
        let tmp = TemporaryStore()
        defer { tmp.remove() }
        let store = try tmp.open()
        let flight = Self.dayAhead(21)
        let bytes = try Self.factory.get().pass(
            json: SamplePassJSON.boarding(relevantDate: nil, dayOfYear: flight.dayOfYear), signer: Self.signer.get(), attributes: false)
        let pipeline = try Samples.pipeline(store: store, policy: Self.policy(), now: Self.now)
        for date in Self.replayDates {
            let report = pipeline.process(Self.message(bytes, date: date))
            #expect(report.items.isEmpty, "\(date)")
            #expect(report.diagnostics.first { $0.code == .pass(.bcbpYear) }?.detail == "clock")
            let listed = pipeline.extract(Self.message(bytes, date: date)).items
            #expect(listed.map(\.reservation.marks) == [[.yearUnsigned]], "\(date)")
            #expect(listed.first?.reservation.start?.date == flight.date)
        }
        #expect(try store.events().isEmpty)
    }
}
