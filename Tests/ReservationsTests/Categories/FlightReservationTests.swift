import Foundation
import Markup
import Testing

@testable import Reservations

@Suite("Flight reservations")
struct FlightReservationTests {
    static func leg(
        seat: String, number: String, from: (String, String), to: (String, String),
        departs: String, arrives: String
    ) -> String {
        """
        {
          "@context": "https://schema.org",
          "@type": "FlightReservation",
          "reservationNumber": "K7Q2PX",
          "reservationStatus": "https://schema.org/ReservationConfirmed",
          "underName": {"@type": "Person", "name": "Jane Appleseed"},
          "checkinUrl": "https://www.cascadia-air.example/checkin?pnr=K7Q2PX",
          "airplaneSeat": "\(seat)",
          "airplaneSeatClass": {"@type": "AirplaneSeatClass", "name": "Economy"},
          "reservationFor": {
            "@type": "Flight",
            "flightNumber": "\(number)",
            "airline": {"@type": "Airline", "name": "Cascadia Air", "iataCode": "C7"},
            "departureAirport": {"@type": "Airport", "name": "\(from.1)", "iataCode": "\(from.0)"},
            "departureTime": "\(departs)",
            "departureTerminal": "2",
            "arrivalAirport": {"@type": "Airport", "name": "\(to.1)", "iataCode": "\(to.0)"},
            "arrivalTime": "\(arrives)"
          }
        }
        """
    }

    static let twoLegs =
        "["
        + leg(
            seat: "14A", number: "412", from: ("SFO", "San Francisco International"),
            to: ("SEA", "Seattle-Tacoma International"),
            departs: "2031-06-03T08:15:00-07:00", arrives: "2031-06-03T10:22:00-07:00")
        + ","
        + leg(
            seat: "9C", number: "88", from: ("SEA", "Seattle-Tacoma International"),
            to: ("ANC", "Ted Stevens Anchorage International"),
            departs: "2031-06-03T11:40:00-07:00", arrives: "2031-06-03T14:38:00-08:00") + "]"

    @Test("a two-leg itinerary: one booking, two items with distinct leg keys")
    func twoLegs() throws {
        let extraction = try JSONFixture.read(Self.twoLegs)
        #expect(extraction.diagnostics.isEmpty)
        #expect(extraction.reservations.count == 2)
        let first = try #require(extraction.reservations.first)
        let second = try #require(extraction.reservations.last)
        #expect(first.reservationID == "K7Q2PX")
        #expect(second.reservationID == "K7Q2PX")
        #expect(first.itemID == "C7412-SFO-2031-06-03")
        #expect(second.itemID == "C788-SEA-2031-06-03")

        #expect(first.category == .flight)
        #expect(first.title == "Cascadia Air C7 412 SFO → SEA")
        #expect(second.title == "Cascadia Air C7 88 SEA → ANC")
        #expect(first.start?.epochSeconds == 1_938_266_100)
        #expect(second.end?.offsetSeconds == -28_800)
        #expect(first.location == "San Francisco International (SFO)")
        #expect(first.detail("Seat") == "14A")
        #expect(second.detail("Seat") == "9C")
        #expect(first.detail("Class") == "Economy")
        #expect(first.detail("Terminal") == "2")
        #expect(first.detail("Arrival") == "Seattle-Tacoma International (SEA)")
        #expect(first.detail("Check-in URL") == "https://www.cascadia-air.example/checkin?pnr=K7Q2PX")
        #expect(first.checkinURL == "https://www.cascadia-air.example/checkin?pnr=K7Q2PX")
    }

    @Test("title without an airline name, and names instead of codes")
    func titleFallbacks() throws {
        let extraction = try JSONFixture.read(
            """
            {"@type": "FlightReservation", "reservationNumber": "Q1",
             "reservationFor": {"@type": "Flight", "flightNumber": "UA110", "airline": {"@type": "Airline", "iataCode": "UA"},
               "departureAirport": {"@type": "Airport", "name": "San Francisco Airport"},
               "arrivalAirport": "JFK",
               "departureTime": "2031-03-04T20:15:00-08:00", "arrivalTime": "2031-03-05T06:30:00-05:00"}}
            """)
        let r = try #require(extraction.reservations.first)
        #expect(r.title == "Flight UA110 San Francisco Airport → JFK")
        #expect(r.itemID == "UA110-SanFranciscoAirport-2031-03-04")
    }

    @Test("a ReservationPackage's legs inherit the booking number and guest")
    func package() throws {
        let extraction = try JSONFixture.read(
            """
            {"@type": "ReservationPackage", "reservationNumber": "PKG9", "underName": {"@type": "Person", "name": "Ada"},
             "subReservation": [
               {"@type": "FlightReservation", "reservationFor": {"@type": "Flight", "flightNumber": "1", "airline": {"iataCode": "LH"},
                  "departureAirport": {"iataCode": "FRA"}, "arrivalAirport": {"iataCode": "JFK"}, "departureTime": "2031-09-01T10:00:00+02:00"}},
               {"@type": "FlightReservation", "reservationFor": {"@type": "Flight", "flightNumber": "2", "airline": {"iataCode": "LH"},
                  "departureAirport": {"iataCode": "JFK"}, "arrivalAirport": {"iataCode": "FRA"}, "departureTime": "2031-09-09T18:00:00-04:00"}}
             ]}
            """)
        #expect(extraction.codes == ["missing-status", "missing-status"])
        #expect(extraction.reservations.map(\.reservationID) == ["PKG9", "PKG9"])
        #expect(extraction.reservations.map(\.itemID) == ["LH1-FRA-2031-09-01", "LH2-JFK-2031-09-09"])
        #expect(extraction.reservations.map { $0.detail("Guest") } == ["Ada", "Ada"])
    }

    @Test("two passengers on one leg: one event listing both")
    func twoPassengers() throws {
        let jane = Self.leg(
            seat: "14A", number: "412", from: ("SFO", "San Francisco International"),
            to: ("SEA", "Seattle-Tacoma International"),
            departs: "2031-06-03T08:15:00-07:00", arrives: "2031-06-03T10:22:00-07:00")
        let john = jane.replacingOccurrences(of: "Jane Appleseed", with: "John Appleseed").replacingOccurrences(of: "14A", with: "14B")
        let extraction = try JSONFixture.read(jane, john)
        #expect(extraction.diagnostics.isEmpty)
        let r = try #require(extraction.reservations.first)
        #expect(extraction.reservations.count == 1)
        #expect(r.details.filter { $0.label == "Guest" }.map(\.value) == ["Jane Appleseed", "John Appleseed"])
        #expect(r.details.filter { $0.label == "Seat" }.map(\.value) == ["14A", "14B"])

        // The very same item again is a duplicate.
        let twice = try JSONFixture.read(jane, jane)
        #expect(twice.reservations.count == 1)
        #expect(twice.codes == ["duplicate-item-reference"])
    }

    @Test("the airline named as provider")
    func providerAsAirline() throws {
        let extraction = try JSONFixture.read(
            """
            {"@type": "FlightReservation", "reservationNumber": "P1", "provider": {"@type": "Airline", "name": "Alpine Air"},
             "reservationFor": {"@type": "Flight", "flightNumber": "AA7",
               "departureAirport": {"iataCode": "ZRH"}, "arrivalAirport": {"iataCode": "VIE"}, "departureTime": "2031-02-02T07:00:00+01:00"}}
            """)
        #expect(extraction.reservations.first?.title == "Alpine Air AA7 ZRH → VIE")
    }

    /// The shape of Gmail's full FlightReservation example: ticket number on the reservation,
    /// actions, membership, boarding time, code share.
    @Test("Gmail's full flight shape: actions, ticket, membership, boarding")
    func gmailFullShape() throws {
        let extraction = try JSONFixture.read(
            """
            {"@context": "http://schema.org", "@type": "FlightReservation", "reservationNumber": "ZZ81QK",
             "reservationStatus": "http://schema.org/Confirmed",
             "underName": {"@type": "Person", "name": "Sam Rivera", "email": "sam@example.com"},
             "programMembership": {"@type": "ProgramMembership", "memberNumber": "CA-55210", "program": "Cascadia Miles"},
             "potentialAction": [
               {"@type": "EditAction", "target": "https://agency.example/edit/ZZ81QK"},
               {"@type": "CheckInAction", "target": {"@type": "EntryPoint", "urlTemplate": "https://cascadia-air.example/ci/ZZ81QK"}}
             ],
             "ticketNumber": "016-2299110032",
             "airplaneSeat": "3C", "boardingGroup": "A",
             "reservationFor": {"@type": "Flight", "flightNumber": "7",
               "airline": {"@type": "Airline", "name": "Cascadia Air", "iataCode": "C7"},
               "operatedBy": {"@type": "Airline", "name": "Northern Sky", "iataCode": "NS"},
               "departureAirport": {"@type": "Airport", "name": "Portland International", "iataCode": "PDX"},
               "departureTime": "2031-10-02T06:05:00-07:00", "departureGate": "C4",
               "boardingTime": "2031-10-02T05:25:00-07:00",
               "arrivalAirport": {"@type": "Airport", "name": "Denver International", "iataCode": "DEN"},
               "arrivalTime": "2031-10-02T09:40:00-06:00"}}
            """)
        let r = try #require(extraction.reservations.first)
        #expect(extraction.diagnostics.isEmpty)
        #expect(r.title == "Cascadia Air C7 7 PDX → DEN")
        #expect(r.url == "https://agency.example/edit/ZZ81QK")
        #expect(r.checkinURL == "https://cascadia-air.example/ci/ZZ81QK")
        #expect(r.detail("Ticket number") == "016-2299110032")
        #expect(r.detail("Frequent flyer") == "Cascadia Miles ****5210")
        #expect(r.detail("Boarding time") == "05:25")
        #expect(r.detail("Boarding group") == "A")
        #expect(r.detail("Gate") == "C4")
        #expect(r.detail("Operated by") == "Northern Sky")
    }
}
