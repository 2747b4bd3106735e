import JSON
import Markup
import Testing

@testable import Reservations

@Suite("Train, bus and boat reservations")
struct GroundTripReservationTests {
    /// Rail Alpina's Microdata, as the markup stage converts it (full type URLs, text values).
    static let train = """
        {
          "@type": "http://schema.org/TrainReservation",
          "reservationNumber": "RA-9F3Z7K",
          "reservationStatus": "http://schema.org/ReservationConfirmed",
          "underName": {"@type": "http://schema.org/Person", "name": "Jane Appleseed"},
          "reservedTicket": {
            "@type": "http://schema.org/Ticket",
            "ticketNumber": "1180-4471-2093",
            "ticketedSeat": {"@type": "http://schema.org/Seat", "seatNumber": "47", "seatingType": "1. Klasse", "seatSection": "Wagen 12"}
          },
          "reservationFor": {
            "@type": "http://schema.org/TrainTrip",
            "trainNumber": "EC 15",
            "provider": {"@type": "http://schema.org/Organization", "name": "Rail Alpina"},
            "departureStation": {"@type": "http://schema.org/TrainStation", "name": "Zürich HB"},
            "departureTime": "2031-07-14T09:33:00+02:00",
            "departurePlatform": "8",
            "arrivalStation": {"@type": "http://schema.org/TrainStation", "name": "Milano Centrale"},
            "arrivalTime": "2031-07-14T12:50:00+02:00"
          }
        }
        """

    @Test("a train leg: company, number, stations, seat and ticket")
    func train() throws {
        let extraction = try JSONFixture.read(Self.train)
        let r = try #require(extraction.reservations.first)
        #expect(extraction.diagnostics.isEmpty)
        #expect(r.category == .train)
        #expect(r.schemaType == "TrainReservation")
        #expect(r.title == "Rail Alpina EC 15 Zürich HB → Milano Centrale")
        #expect(r.reservationID == "RA-9F3Z7K")
        #expect(r.itemID == "EC15-ZürichHB-2031-07-14")
        #expect(r.start?.offsetSeconds == 7200)
        #expect(r.end?.local == "2031-07-14T12:50:00")
        #expect(r.location == "Zürich HB")
        #expect(r.detail("Seat") == "Wagen 12, Seat 47, 1. Klasse")
        #expect(r.detail("Ticket number") == "1180-4471-2093")
        #expect(r.detail("Platform") == "8")
        #expect(r.detail("Arrival") == "Milano Centrale")
        // Output JSON names types bare.
        let json = try #require(r.json.objectValue)
        #expect(json["@type"] == .string("TrainReservation"))
        #expect(json["reservationFor"]?.objectValue?["@type"] == .string("TrainTrip"))
    }

    @Test("a bus trip")
    func bus() throws {
        let extraction = try JSONFixture.read(
            """
            {"@context": "http://schema.org", "@type": "BusReservation", "reservationNumber": "BX-11",
             "underName": {"@type": "Person", "name": "Eva Green"},
             "reservationFor": {"@type": "BusTrip", "busNumber": "2105", "busName": "Express",
               "busCompany": {"@type": "Organization", "name": "Greyhound"},
               "departureBusStop": {"@type": "BusStation", "name": "San Francisco Transbay",
                 "address": {"@type": "PostalAddress", "streetAddress": "425 Mission St", "addressLocality": "San Francisco", "addressRegion": "CA"}},
               "departureTime": "2031-03-04T20:15:00-08:00",
               "arrivalBusStop": {"@type": "BusStation", "name": "Los Angeles Union Station"},
               "arrivalTime": "2031-03-05T06:30:00-08:00"}}
            """)
        let r = try #require(extraction.reservations.first)
        #expect(extraction.codes == ["missing-status"])
        #expect(r.category == .bus)
        #expect(r.title == "Greyhound Express San Francisco Transbay → Los Angeles Union Station")
        #expect(r.itemID == "2105-SanFranciscoTransbay-2031-03-04")
        #expect(r.location == "San Francisco Transbay, 425 Mission St, San Francisco, CA")
    }

    @Test("a boat trip")
    func boat() throws {
        let extraction = try JSONFixture.read(
            """
            {"@type": "BoatReservation", "reservationNumber": "FERRY-5",
             "reservationFor": {"@type": "BoatTrip", "provider": {"@type": "Organization", "name": "Blue Star Ferries"},
               "departureBoatTerminal": {"@type": "BoatTerminal", "name": "Piraeus"},
               "arrivalBoatTerminal": {"@type": "BoatTerminal", "name": "Naxos"},
               "departureTime": "2031-08-10T07:25:00+03:00", "arrivalTime": "2031-08-10T13:05:00+03:00"}}
            """)
        let r = try #require(extraction.reservations.first)
        #expect(r.category == .boat)
        #expect(r.title == "Blue Star Ferries Boat Piraeus → Naxos")
        #expect(r.itemID == "Piraeus-2031-08-10")
        #expect(r.end?.epochSeconds == r.start.map { ($0.epochSeconds ?? 0) + 5 * 3600 + 40 * 60 })
    }

    @Test("times wrapped in {@value} objects; a floating arrival is reported")
    func wrappedTimes() throws {
        let extraction = try JSONFixture.read(
            """
            {"@type": "TrainReservation", "reservationNumber": "XJ7",
             "reservationFor": {"@type": "TrainTrip", "trainNumber": "ICE 123",
               "departureStation": {"@type": "TrainStation", "name": "Berlin Hbf"},
               "departureTime": {"@type": "DateTime", "@value": "2031-01-24T07:46:00+01:00"},
               "arrivalStation": {"@type": "TrainStation", "name": "Köln Hbf"},
               "arrivalTime": "2031-01-24T12:09:00"}}
            """)
        let r = try #require(extraction.reservations.first)
        #expect(r.start?.offsetSeconds == 3600)
        #expect(r.end?.offsetSeconds == nil)
        #expect(r.title == "ICE 123 Berlin Hbf → Köln Hbf")
        #expect(extraction.codes == ["missing-timezone", "missing-status"])
        #expect(extraction.diagnostics.first?.message.contains("reservationFor.arrivalTime") == true)
    }
}
