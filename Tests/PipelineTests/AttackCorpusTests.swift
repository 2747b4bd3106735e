import Foundation
import Testing
import DNS
import DKIM
import MIME
import EventStore
@testable import Pipeline
import Trust

/// The attack corpus (`Attacks/`, written by scripts/make-attacks): genuine confirmations signed
/// by dkimpy, changed as an attacker holding them can change them. Each case says what must be
/// concluded; each attack names the genuine control it was made from.
@Suite("Attack corpus: every attack refused or neutralised, every control trusted")
struct AttackCorpusTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Attacks")

    struct Expectation: Decodable {
        let `class`: Int
        let description: String
        let dkim: String
        let trusted: Bool
        let refusal: String?
        let reservations: [String]
        let forbidden: [String]
        let control: String?
        let me: [String]
    }

    static func names() -> [String] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return files.filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }.sorted()
    }

    static func load(_ name: String) throws -> (RawMessage, Expectation) {
        let json = try Data(contentsOf: folder.appendingPathComponent(name + ".json"))
        let path = folder.appendingPathComponent(name + ".eml").path
        return (try MessageSource.file(path), try JSONDecoder().decode(Expectation.self, from: json))
    }

    static func pipeline(_ expected: Expectation, store: (any EventStore)? = nil) throws -> ReservationPipeline {
        let policy = TrustPolicy(allowedDomains: ["epicsteak.example"], publicSuffixes: PublicSuffixList.load(), recipients: expected.me)
        return try Samples.pipeline(store: store, policy: policy)
    }

    @Test("the corpus holds every class, each attack beside an existing control")
    func corpusIsComplete() throws {
        let names = Self.names()
        #expect(names.count >= 25, "scripts/make-attacks writes the corpus")
        let expectations = try names.map { try Self.load($0).1 }
        #expect(Set(expectations.map(\.class)).isSuperset(of: [0, 1, 2, 6, 7, 8]))
        for (name, expected) in zip(names, expectations) {
            if let control = expected.control { #expect(names.contains(control), "\(name): control \(control) missing") }
            if !expected.trusted { #expect(expected.refusal != nil, "\(name): a refused case names its refusal") }
        }
    }

    @Test("verdict, refusal and trusted reservations", arguments: names())
    func verdict(_ name: String) throws {
        let (raw, expected) = try Self.load(name)
        let report = try Self.pipeline(expected).analyze(raw)
        #expect(report.signatures.first?.result.rawValue == expected.dkim, "\(name): \(report.signatures.map(\.reason))")
        #expect(report.trust.trusted == expected.trusted, "\(name): \(report.trust.reason)")
        #expect(report.trust.refusal?.code == (expected.trusted ? nil : expected.refusal), "\(name): \(report.trust.reason)")
        let trusted = report.trust.trusted ? report.items.map(\.reservation.reservationID) : []
        #expect(trusted == expected.reservations, "\(name)")
        for id in expected.forbidden { #expect(!trusted.contains(id), "\(name): \(id) trusted") }
    }

    @Test("nothing forbidden reaches the store", arguments: names())
    func store(_ name: String) throws {
        let (raw, expected) = try Self.load(name)
        let temporary = TemporaryStore()
        defer { temporary.remove() }
        let store = try temporary.open()
        _ = try Self.pipeline(expected, store: store).process(raw)
        let stored = try store.events().map(\.event.key.container)
        for id in expected.forbidden { #expect(!stored.contains(id), "\(name): \(id) stored") }
        #expect(Set(stored) == Set(expected.reservations), "\(name)")
    }
}
