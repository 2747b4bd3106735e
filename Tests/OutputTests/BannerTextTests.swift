import JSON
import Markup
import Reservations
import Testing

@testable import Output

/// How a banner shows a time: its offset, and for a time read in a zone the zone and why.
@Suite("Banner times")
struct BannerTextTests {
    static func flight(departs: String) throws -> Reservation {
        let text = """
            {"@context": "https://schema.org", "@type": "FlightReservation", "reservationNumber": "TZ1",
             "reservationStatus": "https://schema.org/ReservationConfirmed",
             "reservationFor": {"@type": "Flight", "flightNumber": "7",
               "departureAirport": {"@type": "Airport", "iataCode": "SFO"}, "departureTime": "\(departs)"}}
            """
        let value = try #require(TolerantJSONReader.read(Array(text.utf8)).values.first)
        return try #require(ReservationReader.read([StructuredItem(value: value, source: .jsonLD)], now: nil).reservations.first)
    }

    @Test("a time read in the airport's zone shows the zone, its offset and the evidence")
    func zoned() throws {
        let start = try #require(try Self.flight(departs: "2031-06-03T08:15:00").start)
        #expect(BannerText.time(start) == "Tue 3 Jun 2031 08:15 America/Los_Angeles (UTC−07:00, from airport SFO)")
        let json = try #require(BannerRenderer.placementJSON(start))
        #expect(
            json.serialized()
                == #"{"name":"America/Los_Angeles","evidence":"airport","from":"airport SFO","utcOffsetSeconds":-25200,"instant":"2031-06-03T15:15:00Z"}"#
        )
    }

    @Test("a time with its own offset shows the offset alone, and carries no zone in JSON")
    func offsetOnly() throws {
        let start = try #require(try Self.flight(departs: "2031-06-03T08:15:00-07:00").start)
        #expect(BannerText.time(start) == "Tue 3 Jun 2031 08:15 (UTC−07:00)")
        #expect(BannerRenderer.placementJSON(start) == nil)
    }
}
