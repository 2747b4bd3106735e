import EventStore
import Foundation
import JSON
import Mailbox
import PipelineTestSupport
import Reservations
import ReservoirBase
import Testing
import Trust

@testable import Pipeline

/// The attack corpus's invitations (scripts/make-attacks, "invitations: cancel and organizer"):
/// the ORGANIZER each event is refused for, and what one store holds after a case and the cases
/// it follows (`invitation.after`) are processed in order.
@Suite("Attack corpus: invitations, their ORGANIZER and their cancellations")
struct InvitationCorpusTests {
    struct Case: Decodable {
        struct Stored: Decodable, Equatable, CustomStringConvertible {
            let item: String
            let status: String
            let title: String
            let start: String?
            let location: String?
            let sequence: Int

            var description: String { "\(item) \(status) “\(title)” \(start ?? "no start") \(location ?? "nowhere") #\(sequence)" }
        }

        /// Another instance of the UID a cancellation of the whole series changed.
        struct Instance: Decodable, Equatable {
            let item: String
            let change: String
        }

        struct Details: Decodable {
            let after: [String]?
            let change: String?
            let instances: [Instance]?
            let itemRefusal: String?
            let stored: [Stored]?

            enum CodingKeys: String, CodingKey {
                case after, change, instances, stored
                case itemRefusal = "item_refusal"
            }
        }

        let invitation: Details?
        let reservations: [String]
        let forbidden: [String]
    }

    static func names() -> [String] {
        AttackCorpusTests.names().filter { (try? load($0).invitation) != nil }
    }

    static func load(_ name: String) throws -> Case {
        try JSONDecoder().decode(Case.self, from: Data(contentsOf: AttackCorpusTests.folder.appendingPathComponent(name + ".json")))
    }

    static func message(_ name: String) throws -> RawMessage {
        try MessageSource.file(AttackCorpusTests.folder.appendingPathComponent(name + ".eml").path)
    }

    static func pipeline(store: (any EventStore)?) throws -> ReservationPipeline {
        try Samples.pipeline(store: store, policy: TrustPolicy(allowedDomains: ["epicsteak.example"], publicSuffixes: PublicSuffixList.load()))
    }

    @Test("the section is there: organizer tricks beside controls, cancellations beside the invitations they cancel")
    func complete() throws {
        let names = Self.names()
        #expect(names.filter { $0.hasPrefix("ics-organizer-") }.count >= 10)
        #expect(names.filter { $0.hasPrefix("ics-cancel-") }.count >= 8)
        for name in names {
            for before in try Self.load(name).invitation?.after ?? [] { #expect(names.contains(before), "\(name): \(before)") }
        }
    }

    @Test("each event is refused for its ORGANIZER with the stated code, each control trusted", arguments: names())
    func organizer(_ name: String) throws {
        let expected = try Self.load(name)
        let report = try Self.pipeline(store: nil).analyze(try Self.message(name))
        #expect(report.trust.trusted, "\(name): the message is vouched for")
        #expect(!report.items.isEmpty, "\(name)")
        for item in report.items {
            #expect(item.refusal?.code.rawValue == expected.invitation?.itemRefusal, "\(name): \(item.refusal.map(\.sentence) ?? "trusted")")
        }
        if expected.invitation?.itemRefusal != nil {
            #expect(report.diagnostics.map(\.code).contains { if case .untrusted = $0 { true } else { false } }, "\(name)")
        }
    }

    @Test("after the cases it follows, the store holds what the case states", arguments: names().filter { (try? load($0).invitation?.stored) != nil })
    func store(_ name: String) throws {
        let expected = try Self.load(name)
        let details = try #require(expected.invitation)
        let temporary = TemporaryStore()
        defer { temporary.remove() }
        let store = try temporary.open()
        let pipeline = try Self.pipeline(store: store)
        for before in details.after ?? [] { _ = pipeline.process(try Self.message(before)) }
        let report = pipeline.process(try Self.message(name))
        if let change = details.change { #expect(report.items.first?.change?.kind == change, "\(name)") }
        let instances = report.items.flatMap(\.instanceChanges).map { Case.Instance(item: $0.stored.event.key.item, change: $0.kind) }
        #expect(instances == details.instances ?? [], "\(name)")
        let uid = try #require(expected.reservations.first)
        let stored = try store.events(inBooking: uid, ownedBy: .domain("epicsteak.example")).map { stored in
            Case.Stored(
                item: stored.event.key.item, status: stored.event.status.rawValue, title: stored.event.title, start: stored.event.start?.text,
                location: stored.event.location, sequence: stored.sequence)
        }
        #expect(stored == details.stored, "\(name)")
        for event in try store.events(inBooking: uid, ownedBy: .domain("epicsteak.example")) {
            // The stored JSON-LD says the same status, and keeps what the invitation said.
            let json = try #require(TolerantJSONReader.read(Array(event.event.reservationJSON.utf8)).values.first?.objectValue)
            #expect(json["reservationStatus"]?.stringValue?.hasSuffix(event.event.status == .cancelled ? "Cancelled" : "Confirmed") == true)
            let trip = json["reservationFor"]?.objectValue
            #expect(trip?["startDate"]?.stringValue == event.event.start?.text, "\(name) \(event.event.key)")
        }
    }
}
