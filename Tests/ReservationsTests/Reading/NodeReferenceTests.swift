import JSON
import Markup
import Testing

@testable import Reservations

/// JSON-LD `@id` references, `@graph`, `subjectOf`, and one item told both in JSON-LD and
/// in Microdata.
@Suite("node references, subjectOf and merged descriptions")
struct NodeReferenceTests {
    static let flight = """
        {"@type": "Flight", "@id": "#leg1", "flightNumber": "412", "airline": {"@type": "Airline", "iataCode": "C7", "name": "Cascadia Air"},
         "departureAirport": {"@type": "Airport", "iataCode": "SFO"}, "arrivalAirport": {"@type": "Airport", "iataCode": "SEA"},
         "departureTime": "2031-06-03T08:05:00-07:00", "arrivalTime": "2031-06-03T10:10:00-07:00"}
        """
    static let reservation = """
        {"@type": "FlightReservation", "reservationNumber": "K7Q2PX", "reservationStatus": "ReservationConfirmed",
         "reservationFor": {"@id": "#leg1"}}
        """

    @Test("a reservation whose reservationFor is an @id of a node in @graph reads that node")
    func graphReference() throws {
        let extraction = try JSONFixture.read(#"{"@context": "https://schema.org", "@graph": ["# + Self.reservation + "," + Self.flight + "]}")
        let r = try #require(extraction.reservations.first)
        #expect(extraction.reservations.count == 1)
        #expect(r.start?.epochSeconds == 1_938_265_500)
        #expect(r.title.contains("SFO"))
        #expect(extraction.codes.isEmpty, "\(extraction.diagnostics)")
    }

    @Test("the node may be described in another script; it is not reported as an unsupported item")
    func referenceAcrossScripts() throws {
        let extraction = try JSONFixture.read(Self.reservation, Self.flight)
        #expect(extraction.reservations.count == 1)
        #expect(extraction.reservations.first?.end?.epochSeconds == 1_938_273_000)
        #expect(!extraction.codes.contains("unsupported-type"))
    }

    @Test("without a description the reference stays unresolved and the item has no start")
    func unresolvedReference() throws {
        let extraction = try JSONFixture.read(Self.reservation)
        #expect(extraction.reservations.isEmpty)
        #expect(extraction.codes.contains("missing-required-property"))
    }

    @Test("a reservation referenced from a wrapper and listed in @graph is one reservation, with no duplicate note")
    func reservationReachedTwice() throws {
        let numbered = """
            {"@type": "FlightReservation", "@id": "#booking", "reservationNumber": "K7Q2PX", "reservationStatus": "ReservationConfirmed", "reservationFor": {"@id": "#leg1"}}
            """
        let text = ##"{"@graph": [{"@type": "EmailMessage", "about": {"@id": "#booking"}}, "## + numbered + "," + Self.flight + "]}"
        let extraction = try JSONFixture.read(text)
        #expect(extraction.reservations.count == 1)
        #expect(extraction.codes.isEmpty, "\(extraction.diagnostics)")
    }

    @Test("references that form a cycle end; nothing loops")
    func cycle() throws {
        let text = """
            {"@graph": [{"@type": "FoodEstablishmentReservation", "@id": "#a", "reservationNumber": "C1", "reservationStatus": "ReservationConfirmed", "startTime": "2031-05-12T19:30:00-07:00",
              "reservationFor": {"@id": "#r"}},
             {"@type": "Restaurant", "@id": "#r", "name": "EPIC Steak", "subjectOf": {"@id": "#a"}}]}
            """
        let extraction = try JSONFixture.read(text)
        #expect(extraction.reservations.count == 1)
        #expect(extraction.reservations.first?.title == "EPIC Steak")
    }

    @Test("a Thing with its reservation nested in subjectOf: the reservation is for that Thing")
    func subjectOf() throws {
        let text = """
            {"@context": "https://schema.org", "@type": "Event", "name": "Spring Gala", "startDate": "2031-04-18T19:00:00+01:00",
             "location": {"@type": "Place", "name": "Old Hall"},
             "subjectOf": {"@type": "EventReservation", "reservationNumber": "GALA-7", "reservationStatus": "ReservationConfirmed"}}
            """
        let extraction = try JSONFixture.read(text)
        let r = try #require(extraction.reservations.first)
        #expect(r.reservationID == "GALA-7")
        #expect(r.title == "Spring Gala")
        #expect(r.start?.epochSeconds == 1_934_301_600)
    }

    static func dinner(start: String, source: StructuredItem.Source, number: String? = "IWDSCA", extra: String = "") throws -> StructuredItem {
        let numberMember = number.map { "\"reservationNumber\": \"\($0)\"," } ?? ""
        let text = """
            {"@type": "FoodEstablishmentReservation", \(numberMember) "reservationStatus": "ReservationConfirmed", "startTime": "\(start)", \(extra)
             "reservationFor": {"@type": "Restaurant", "name": "EPIC Steak"}}
            """
        return StructuredItem(value: try JSONFixture.parse(text), source: source)
    }

    @Test("JSON-LD and Microdata of one booking disagreeing on the start: one item, the JSON-LD start, a note naming start")
    func disagreeingStart() throws {
        let items = [
            try Self.dinner(start: "2031-05-12T20:30:00-07:00", source: .microdata, extra: #""partySize": "4","#),
            try Self.dinner(start: "2031-05-12T19:30:00-07:00", source: .jsonLD),
        ]
        let extraction = ReservationReader.read(items, now: nil)
        let r = try #require(extraction.reservations.first)
        #expect(extraction.reservations.count == 1)
        #expect(r.start?.text == "2031-05-12T19:30:00-07:00")
        let note = try #require(extraction.diagnostics.first { $0.code == .descriptionsMerged })
        #expect(note.detail == "start")
        // What only the Microdata said is kept.
        #expect(r.details.contains { $0.value == "4" })
    }

    @Test("a floating JSON-LD time takes the zone the Microdata gives for the same wall time")
    func zoneFromTheOther() throws {
        let items = [
            try Self.dinner(start: "2031-05-12T19:30:00", source: .jsonLD),
            try Self.dinner(start: "2031-05-12T19:30:00-07:00", source: .microdata),
        ]
        let extraction = ReservationReader.read(items, now: nil)
        #expect(extraction.reservations.count == 1)
        #expect(extraction.reservations.first?.start?.epochSeconds == 1_936_405_800)
        #expect(extraction.diagnostics.first { $0.code == .descriptionsMerged }?.detail == nil)
    }

    @Test("a Microdata copy without the booking number is folded into its numbered JSON-LD twin")
    func unnumberedCopy() throws {
        let items = [
            try Self.dinner(start: "2031-05-12T19:30:00-07:00", source: .microdata, number: nil),
            try Self.dinner(start: "2031-05-12T19:30:00-07:00", source: .jsonLD),
        ]
        let extraction = ReservationReader.read(items, now: nil)
        #expect(extraction.reservations.map(\.reservationID) == ["IWDSCA"])
        #expect(extraction.codes == ["descriptions-merged"])
    }

    @Test("two JSON-LD items with one key stay a duplicate: the first is kept")
    func sameSyntaxRepeat() throws {
        let items = [
            try Self.dinner(start: "2031-05-12T19:30:00-07:00", source: .jsonLD),
            try Self.dinner(start: "2031-05-12T21:30:00-07:00", source: .jsonLD),
        ]
        let extraction = ReservationReader.read(items, now: nil)
        #expect(extraction.reservations.count == 1)
        #expect(extraction.reservations.first?.start?.text == "2031-05-12T19:30:00-07:00")
        #expect(extraction.codes == ["duplicate-item-reference"])
    }
}
