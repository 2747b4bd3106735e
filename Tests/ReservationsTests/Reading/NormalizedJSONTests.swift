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
}
