import JSON
import Markup
import Testing

@testable import Reservations

/// Every property of every fixture replaced by every kind of JSON value: the reader keeps
/// what it can and never traps.
@Suite("Robustness")
struct RobustnessTests {
    static let fixtures = [
        FoodReservationTests.trattoria, FoodReservationTests.appleExample, LodgingReservationTests.harborview,
        GroundTripReservationTests.train, FlightReservationTests.twoLegs,
    ]
    static let replacements: [JSONValue] = [
        .null, .bool(true), .number(-1e308), .string(""), .string("2031-13-45T99:99"), .array([]),
        .array([.null, .string("x")]), .object(JSONObject()),
    ]

    static func mutations(of value: JSONValue) -> [JSONValue] {
        guard case .object(let object) = value else {
            if case .array(let items) = value, let first = items.first { return mutations(of: first) }
            return []
        }
        var out: [JSONValue] = []
        for member in object.members {
            for replacement in replacements {
                var copy = object
                copy[member.key] = replacement
                out.append(.object(copy))
            }
            if case .object = member.value {
                for inner in mutations(of: member.value) {
                    var copy = object
                    copy[member.key] = inner
                    out.append(.object(copy))
                }
            }
        }
        return out
    }

    @Test("mutated fixtures yield at most their reservations, with reasons for the rest", arguments: 0..<fixtures.count)
    func mutated(_ index: Int) throws {
        let original = try JSONFixture.parse(Self.fixtures[index])
        let mutations = Self.mutations(of: original)
        #expect(mutations.count > 50)
        for mutation in mutations {
            let extraction = ReservationReader.read([StructuredItem(value: mutation, source: .jsonLD)], now: 0)
            #expect(extraction.reservations.count <= 1)
            if extraction.reservations.isEmpty {
                #expect(!extraction.diagnostics.isEmpty)
            }
            for reservation in extraction.reservations {
                #expect(!reservation.title.isEmpty)
                #expect(!reservation.reservationID.isEmpty)
                #expect(!reservation.itemID.isEmpty)
            }
        }
    }
}
