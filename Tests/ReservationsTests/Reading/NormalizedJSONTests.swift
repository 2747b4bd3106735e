import JSON
import Markup
import Testing

@testable import Reservations

@Suite("NormalizedJSON")
struct NormalizedJSONTests {
    @Test("context first, bare type names, nested contexts dropped, canonical status")
    func normalizes() throws {
        let input = try #require(
            try JSONFixture.parse(
                """
                {"reservationId": "X", "@type": "http://schema.org/FoodEstablishmentReservation", "@context": "http://schema.org",
                 "reservationStatus": "Cancelled",
                 "reservationFor": {"@context": "http://schema.org", "@type": ["schema:Restaurant", "https://schema.org/LocalBusiness/"], "name": "A"}}
                """
            ).objectValue)
        let output = NormalizedJSON.reservation(input, status: .cancelled)
        #expect(
            output.serialized()
                == #"{"@context":"https://schema.org","@type":"FoodEstablishmentReservation","reservationId":"X","reservationStatus":"https://schema.org/ReservationCancelled","reservationFor":{"@type":["Restaurant","LocalBusiness"],"name":"A"}}"#
        )
    }

    @Test("nesting deeper than the limit becomes null")
    func depthLimit() {
        var value = JSONValue.string("deep")
        for _ in 0..<(ReservationLimits.jsonDepth + 10) {
            value = .object(JSONObject(pairs: [("x", value)]))
        }
        let output = NormalizedJSON.reservation(JSONObject(pairs: [("x", value)]), status: .confirmed)
        #expect(!output.serialized().contains("deep"))
        #expect(output.serialized().contains("null"))
    }

    /// The reservation `json` (JSON-LD) describes, read as a reservation.
    static func read(_ json: String) throws -> Reservation {
        let html = #"<script type="application/ld+json">"# + json + "</script>"
        let items = MarkupExtractor.extract(html: Array(html.utf8)).items
        return try #require(ReservationReader.read(items, now: nil).reservations.first)
    }

    @Test(
        "dates read become ISO 8601 with their offset, the sender's text kept beside them; strict ISO 8601 is left as written",
        arguments: [
            // Day-first with dashes at a Zürich restaurant: the country's zone gives the offset.
            (
                #""startTime": "15-06-2031 20:00", "reservationFor": {"@type": "Restaurant", "name": "Hirschen", "address": {"@type": "PostalAddress", "addressCountry": "CH"}}"#,
                "startTime", "2031-06-15T20:00:00+02:00", "15-06-2031 20:00"
            ),
            // No zone anywhere: wall-clock time, ISO 8601 without an offset.
            (
                #""startTime": "06/15/2031 20:00", "reservationFor": {"@type": "Restaurant", "name": "Nowhere"}"#, "startTime", "2031-06-15T20:00:00",
                "06/15/2031 20:00"
            ),
            // Strict ISO 8601 with its offset: unchanged, nothing beside it.
            (
                #""startTime": "2031-06-15T20:00-07:00", "reservationFor": {"@type": "Restaurant", "name": "Lupine"}"#, "startTime",
                "2031-06-15T20:00-07:00", nil
            ),
        ])
    func datesNormalized(members: String, key: String, normalized: String, original: String?) throws {
        let r = try Self.read(
            #"{"@context": "https://schema.org", "@type": "FoodEstablishmentReservation", "reservationNumber": "N1", "# + members + "}")
        let json = try #require(r.json.objectValue)
        #expect(json[key] == .string(normalized))
        #expect(json["reservoir:originalStartTime"] == original.map(JSONValue.string))
    }

    @Test("a flight's local departure read at its airport gets the airport's offset, in reservationFor")
    func nestedDate() throws {
        let r = try Self.read(
            """
            {"@context": "https://schema.org", "@type": "FlightReservation", "reservationNumber": "F1",
             "reservationFor": {"@type": "Flight", "flightNumber": "412", "airline": {"@type": "Airline", "iataCode": "C7"},
               "departureAirport": {"@type": "Airport", "iataCode": "SFO"}, "arrivalAirport": {"@type": "Airport", "iataCode": "SEA"},
               "departureTime": "2031-06-03T08:15:00", "arrivalTime": "2031-06-03T10:20:00-07:00"}}
            """)
        let flight = try #require(r.json.objectValue?["reservationFor"]?.objectValue)
        #expect(flight["departureTime"] == .string("2031-06-03T08:15:00-07:00"))
        #expect(flight["reservoir:originalDepartureTime"] == .string("2031-06-03T08:15:00"))
        #expect(flight["arrivalTime"] == .string("2031-06-03T10:20:00-07:00"))
        #expect(flight["reservoir:originalArrivalTime"] == nil)
    }
}
