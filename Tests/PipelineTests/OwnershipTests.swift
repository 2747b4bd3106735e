import DKIM
import EventStorePostgres
import Foundation
import ICalendar
import JSON
import Mailbox
import PassTestSupport
import PipelineTestSupport
import PostgresTestSupport
import Reservations
import ReservoirBase
import TestRequirements
import Testing
import Trust
import WalletPass

@testable import EventStore
@testable import Pipeline

/// Bookings are keyed per owner (docs/SECURITY.md, "Ownership of a booking"), through the whole
/// pipeline and on both store backends: signed mail of one allowed domain cannot squat, move or
/// cancel another's booking number; the airline's signed mail and its Wallet pass for one flight
/// are one event only when the configuration links the pass type to the domain, in either order.
@Suite("Ownership of a booking", .serialized)
struct OwnershipTests {
    enum Backend: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case sqlite, postgres
        static var available: [Backend] { PostgresServer.isAvailable ? allCases : [.sqlite] }
        var testDescription: String { rawValue }

        /// A fresh store and what removes it.
        func open() throws -> (store: any EventStore, remove: () -> Void) {
            switch self {
            case .sqlite:
                let temporary = TemporaryStore()
                return (try temporary.open(), temporary.remove)
            case .postgres:
                return (try PostgresEventStore(url: try PostgresServer.shared.get().makeDatabase()), {})
            }
        }
    }

    static let key = Result {
        try String(contentsOf: Samples.root.appendingPathComponent("scripts/samples/sample-dkim-key.pem"), encoding: .utf8)
    }

    /// A confirmation signed by `domain` (every sample domain publishes the sample key) whose
    /// HTML carries `markup` as JSON-LD; `date` orders it.
    static func signed(_ markup: String, from domain: String, date: String, id: String) throws -> RawMessage {
        let header =
            "From: Bookings <bookings@\(domain)>\r\nTo: jane@home.example\r\nSubject: Your booking\r\n"
            + "Date: \(date)\r\nMessage-ID: <\(id)@\(domain)>\r\nMIME-Version: 1.0\r\n"
            + "Content-Type: text/html; charset=utf-8\r\n\r\n"
        let body = "<html><body><script type=\"application/ld+json\">\(markup)</script></body></html>\r\n"
        let signer = try DKIMSigner(privateKeyPEM: try key.get())
        let field = try signer.sign(
            Array((header + body).utf8), domain: domain, selector: "s2026",
            headers: ["From", "To", "Subject", "Date", "Message-ID", "MIME-Version", "Content-Type"],
            canonicalization: try #require(DKIMCanonicalization(tag: "relaxed/relaxed")), timestamp: Samples.now - 3600,
            expiration: nil)
        return RawMessage(bytes: Array((field + header + body).utf8), origin: MessageOrigin())
    }

    static func dinner(status: String = "ReservationConfirmed", at time: String = "2031-05-12T19:30:00-07:00") -> String {
        """
        {"@context":"https://schema.org","@type":"FoodEstablishmentReservation","reservationNumber":"IWDSCA",
        "reservationStatus":"https://schema.org/\(status)","startTime":"\(time)","partySize":2,
        "reservationFor":{"@type":"FoodEstablishment","name":"EPIC Steak"}}
        """
    }

    static func pipeline(_ store: any EventStore, passTypes: [String] = []) throws -> ReservationPipeline {
        var anchors: [String] = []
        if !passTypes.isEmpty { anchors = [try WalletPassFixtures.factory.get().caPath] }
        return try Samples.pipeline(
            store: store,
            policy: TrustPolicy(
                allowedDomains: ["epicsteak.example", "trattorialucca.example", "cascadia-air.example"],
                publicSuffixes: PublicSuffixList.load(), allowedPassTypes: passTypes,
                passAnchors: PassTrustAnchors(paths: anchors)),
            now: WalletPassFixtures.now)
    }

    @Test("another allowed sender squatting a booking number first does not block the owner's", arguments: Backend.available)
    func squatting(_ backend: Backend) throws {
        let (store, remove) = try backend.open()
        defer { remove() }
        let pipeline = try Self.pipeline(store)
        let squat = pipeline.process(
            try Self.signed(
                Self.dinner(at: "2031-06-01T20:00:00-07:00"), from: "trattorialucca.example", date: "Fri, 20 Nov 2026 10:00:00 +0000", id: "s"))
        #expect(squat.items.first?.change?.kind == "created")
        let genuine = pipeline.process(
            try Self.signed(Self.dinner(), from: "epicsteak.example", date: "Sat, 21 Nov 2026 10:00:00 +0000", id: "g"))
        #expect(genuine.items.first?.change?.kind == "created", "not refused as another owner's")
        let events = try store.events()
        #expect(Set(events.map(\.event.key.owner)) == [.domain("trattorialucca.example"), .domain("epicsteak.example")])
        #expect(events.first { $0.event.key.owner == .domain("epicsteak.example") }?.event.start?.local == "2031-05-12T19:30:00")
    }

    @Test("a cancellation signed by another allowed domain cancels nothing of the owner's", arguments: Backend.available)
    func crossOwnerCancel(_ backend: Backend) throws {
        let (store, remove) = try backend.open()
        defer { remove() }
        let pipeline = try Self.pipeline(store)
        _ = pipeline.process(try Self.signed(Self.dinner(), from: "epicsteak.example", date: "Sat, 21 Nov 2026 10:00:00 +0000", id: "g"))
        let cancel = pipeline.process(
            try Self.signed(
                Self.dinner(status: "ReservationCancelled"), from: "trattorialucca.example", date: "Sun, 22 Nov 2026 10:00:00 +0000", id: "c"))
        #expect(cancel.items.first?.event.key.owner == .domain("trattorialucca.example"))
        let owners = try store.events().filter { $0.event.key.owner == .domain("epicsteak.example") }
        #expect(owners.map(\.event.status) == [.confirmed])
        // No cancelled twin beside the genuine booking: what the other owner never booked is
        // kept without times, which no calendar, feed or page receives, and the banner says so.
        #expect(cancel.diagnostics.map(\.code.description).contains("cancel-not-booked"))
        let twin = try #require(try store.events().first { $0.event.key.owner == .domain("trattorialucca.example") })
        #expect(twin.event.status == .cancelled)
        #expect(twin.event.start == nil && twin.event.end == nil && twin.event.location == nil)
        // What the feed, the vdir and CalDAV are written from: the genuine event only.
        let exported = ICalendarWriter().write(try store.events())
        #expect(exported.components(separatedBy: "BEGIN:VEVENT").count == 2, "\(exported)")
        #expect(!exported.contains("STATUS:CANCELLED"), "\(exported)")
        // The owner's confirmation sent after that cancellation is still older than it: it is
        // not taken as a new booking of the canceller's.
        let late = pipeline.process(
            try Self.signed(Self.dinner(), from: "trattorialucca.example", date: "Sat, 21 Nov 2026 11:00:00 +0000", id: "l"))
        #expect(late.items.first?.change?.kind == "older-than-stored")
        // The owner's own cancellation still works.
        let own = pipeline.process(
            try Self.signed(Self.dinner(status: "ReservationCancelled"), from: "epicsteak.example", date: "Mon, 23 Nov 2026 10:00:00 +0000", id: "o"))
        #expect(own.items.first?.change?.kind == "cancelled")
        #expect(!own.diagnostics.map(\.code.description).contains("cancel-not-booked"))
        #expect(try store.events().first { $0.event.key.owner == .domain("epicsteak.example") }?.event.start?.local == "2031-05-12T19:30:00")
    }

    /// The airline's signed mail for the flight a pass describes: the pass's own reservation
    /// (its normalized schema.org JSON) as markup, so both describe one booking item.
    static func markupTwin(of pass: [UInt8], status: String? = nil) throws -> String {
        let report = try Samples.pipeline(store: nil, policy: Self.passPolicy(["pass.com.cascadia-air.*"]), now: WalletPassFixtures.now)
            .analyze(WalletPassPipelineTests.message(pass))
        let reservation = try #require(report.items.first?.reservation)
        var json = reservation.json
        if let status, case .object(var object) = json {
            object["reservationStatus"] = .string("https://schema.org/" + status)
            json = .object(object)
        }
        return json.serialized()
    }

    /// An RFC 5322 date `seconds` after `base` (the tests' clock unless given).
    static func mailDate(_ seconds: Int64, after base: Int64 = WalletPassFixtures.now) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss Z"
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(base + seconds)))
    }

    static func passPolicy(_ types: [String]) throws -> TrustPolicy {
        TrustPolicy(allowedPassTypes: types, passAnchors: PassTrustAnchors(paths: [try WalletPassFixtures.factory.get().caPath]))
    }

    @Test(
        "markup and a pass for one flight: two owners' events unless the pass type is linked, then one, in both orders",
        .enabled(if: Requirement.met(PassFactory.available), "openssl is not installed (apt-get install openssl)"), arguments: Backend.available,
        [false, true])
    func markupAndPass(_ backend: Backend, passFirst: Bool) throws {
        let pass = try WalletPassFixtures.factory.get().pass(json: SamplePassJSON.boarding(), signer: WalletPassFixtures.signer.get())
        let markup = try Self.markupTwin(of: pass)
        let cancelled = try Self.markupTwin(of: pass, status: "ReservationCancelled")
        let signedAt = max(WalletPassFixtures.now, Int64(Date().timeIntervalSince1970))
        for linked in [false, true] {
            let (store, remove) = try backend.open()
            defer { remove() }
            let types = linked ? ["pass.com.cascadia-air.*=cascadia-air.example"] : ["pass.com.cascadia-air.*"]
            let pipeline = try Self.pipeline(store, passTypes: types)
            // The pass is signed now (openssl stamps the real time): the mail comes after it,
            // however long a loaded machine took to get here since the fixtures' clock.
            let mail = try Self.signed(markup, from: "cascadia-air.example", date: Self.mailDate(60, after: signedAt), id: "m")
            let steps = passFirst ? [WalletPassPipelineTests.message(pass), mail] : [mail, WalletPassPipelineTests.message(pass)]
            let reports = steps.map { pipeline.process($0) }
            #expect(reports.allSatisfy { $0.items.first.map { $0.change?.kind != nil } ?? false }, "both trusted and recorded")
            let owners = try store.events().map(\.event.key.owner).sorted()
            if linked {
                #expect(owners == [.domain("cascadia-air.example")], "one event, updated by either proof")
                // The second proof reached the first one's event (applied, or older by its signed time).
                #expect(["unchanged", "updated", "older-than-stored"].contains(reports.last?.items.first?.change?.kind ?? ""))
            } else {
                #expect(owners == [.domain("cascadia-air.example"), .walletPass(passType: SamplePassJSON.passType)])
            }
            // The airline's later signed cancellation reaches the pass's event only when linked.
            _ = pipeline.process(
                try Self.signed(cancelled, from: "cascadia-air.example", date: Self.mailDate(120, after: signedAt), id: "x"))
            let statuses = try store.events().map(\.event.status)
            #expect(statuses.filter { $0 == .confirmed }.count == (linked ? 0 : 1))
        }
    }

    @Test("a pass type linked to a domain that is not a domain name is a usage error")
    func linkValidation() {
        #expect(TrustPolicy.passTypeEntryProblem("pass.x=airline.example") == nil)
        #expect(TrustPolicy.passTypeEntryProblem("pass.x.*=Airline.Example") == nil)
        #expect(TrustPolicy.passTypeEntryProblem("pass.x") == nil)
        #expect(TrustPolicy.passTypeEntryProblem("pass.x=") != nil)
        #expect(TrustPolicy.passTypeEntryProblem("pass.x=not a domain") != nil)
        #expect(TrustPolicy.passTypeEntryProblem("=airline.example") != nil)
        let policy = TrustPolicy(allowedPassTypes: ["pass.x.*=Airline.Example", "pass.y"])
        #expect(policy.passOwner("pass.x.boarding") == .domain("airline.example"))
        #expect(policy.passOwner("pass.y") == .walletPass(passType: "pass.y"))
        #expect(policy.isAllowed(passType: "pass.x.boarding"))
        #expect(!policy.isAllowed(passType: "pass.x"))
    }
}

/// The pass factory and signer of the Wallet pass tests, shared.
enum WalletPassFixtures {
    static let factory = WalletPassPipelineTests.factory
    static let signer = WalletPassPipelineTests.signer
    static let now = WalletPassPipelineTests.now
}
