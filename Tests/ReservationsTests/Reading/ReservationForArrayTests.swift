import JSON
import Testing

@testable import Reservations

/// One reservation for several flights, trips or events (`reservationFor` an array): every
/// element is an item of the same booking, none vanishes, none is given twice.
@Suite("reservationFor as an array")
struct ReservationForArrayTests {
    static func flight(_ number: String, from: String, to: String, departs: String) -> String {
        """
        {"@type": "Flight", "flightNumber": "\(number)", "airline": {"@type": "Airline", "name": "Cascadia Air", "iataCode": "C7"},
         "departureAirport": {"@type": "Airport", "iataCode": "\(from)"}, "arrivalAirport": {"@type": "Airport", "iataCode": "\(to)"},
         "departureTime": "\(departs)"}
        """
    }

    static func booking(_ things: [String], type: String = "FlightReservation") -> String {
        """
        {"@type": "\(type)", "reservationNumber": "RT-808", "reservationStatus": "ReservationConfirmed",
         "underName": {"@type": "Person", "name": "Jane Doe"}, "reservationFor": [\(things.joined(separator: ", "))]}
        """
    }

    static let outbound = flight("808", from: "SFO", to: "SEA", departs: "2031-06-03T08:15:00-07:00")
    static let inbound = flight("809", from: "SEA", to: "SFO", departs: "2031-06-10T18:05:00-07:00")

    @Test("two flights: two items of one booking, keyed per leg like separate legs are")
    func twoFlights() throws {
        let extraction = try JSONFixture.read(Self.booking([Self.outbound, Self.inbound]))
        #expect(extraction.reservations.map(\.reservationID) == ["RT-808", "RT-808"])
        #expect(extraction.reservations.map(\.itemID) == ["C7808-SFO-2031-06-03", "C7809-SEA-2031-06-10"])
        #expect(extraction.reservations.map(\.title) == ["Cascadia Air C7 808 SFO → SEA", "Cascadia Air C7 809 SEA → SFO"])
        #expect(extraction.reservations.allSatisfy { $0.detail("Guest") == "Jane Doe" })
        #expect(extraction.codes.isEmpty)
    }

    @Test("each item's JSON holds its own flight, not the array")
    func jsonPerItem() throws {
        let extraction = try JSONFixture.read(Self.booking([Self.outbound, Self.inbound]))
        let numbers = extraction.reservations.map { $0.json.objectValue?["reservationFor"]?.objectValue?["flightNumber"]?.stringValue }
        #expect(numbers == ["808", "809"])
    }

    @Test("the same flight twice in the array: one item and a note")
    func sameFlightTwice() throws {
        let extraction = try JSONFixture.read(Self.booking([Self.outbound, Self.outbound]))
        #expect(extraction.reservations.count == 1)
        #expect(extraction.codes == ["duplicate-item-reference"])
    }

    @Test("two events booked at once get distinct items; a generic Reservation takes each element's category")
    func events() throws {
        let concert = #"{"@type": "MusicEvent", "name": "Night Concert", "startDate": "2031-07-01T20:00:00+02:00"}"#
        let matinee = #"{"@type": "MusicEvent", "name": "Matinee", "startDate": "2031-07-02T15:00:00+02:00"}"#
        for type in ["EventReservation", "Reservation"] {
            let extraction = try JSONFixture.read(Self.booking([concert, matinee], type: type))
            #expect(extraction.reservations.map(\.itemID) == ["NightConcert-2031-07-01", "Matinee-2031-07-02"])
            #expect(extraction.reservations.allSatisfy { $0.category == .event })
        }
    }

    @Test("a one-element array is the reservation itself, item 1")
    func oneElement() throws {
        let concert = #"{"@type": "MusicEvent", "name": "Night Concert", "startDate": "2031-07-01T20:00:00+02:00"}"#
        let extraction = try JSONFixture.read(Self.booking([concert], type: "EventReservation"))
        #expect(extraction.reservations.map(\.itemID) == ["1"])
    }

    @Test("an array past the limit is read up to it, with limit-exceeded")
    func limit() throws {
        let many = (0..<(ReservationLimits.reservationsPerMessage + 5)).map {
            Self.flight("\($0)", from: "SFO", to: "SEA", departs: "2031-06-03T08:15:00-07:00")
        }
        let extraction = try JSONFixture.read(Self.booking(many))
        #expect(extraction.reservations.count == ReservationLimits.reservationsPerMessage)
        #expect(extraction.codes.first == "limit-exceeded")
    }
}
