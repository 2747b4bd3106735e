import JSON
import Markup
import Testing

@testable import Reservations

@Suite("Food establishment reservations")
struct FoodReservationTests {
    static let trattoria = """
        {
          "@context": "https://schema.org",
          "@type": "FoodEstablishmentReservation",
          "reservationId": "TL-88213",
          "reservationStatus": "https://schema.org/ReservationConfirmed",
          "partySize": 2,
          "startTime": "2031-06-21T20:00:00-07:00",
          "endTime": "2031-06-21T22:00:00-07:00",
          "underName": {"@type": "Person", "name": "Jane Appleseed"},
          "modifyReservationUrl": "https://trattoria-lucca.example/r/TL-88213",
          "reservationFor": {
            "@type": "Restaurant",
            "name": "Trattoria Lucca",
            "telephone": "+1-415-555-0199",
            "address": {
              "@type": "PostalAddress",
              "streetAddress": "1290 Valencia Street",
              "addressLocality": "San Francisco",
              "addressRegion": "CA",
              "postalCode": "94110",
              "addressCountry": "US"
            }
          }
        }
        """

    @Test("a restaurant booking becomes one event with party size and guest")
    func restaurant() throws {
        let extraction = try JSONFixture.read(Self.trattoria)
        let r = try #require(extraction.reservations.first)
        #expect(extraction.reservations.count == 1)
        #expect(extraction.diagnostics.isEmpty)
        #expect(r.category == .food)
        #expect(r.schemaType == "FoodEstablishmentReservation")
        #expect(r.title == "Trattoria Lucca")
        #expect(r.reservationID == "TL-88213")
        #expect(r.itemID == "1")
        #expect(r.status == .confirmed)
        #expect(r.start?.epochSeconds == 1_939_863_600)
        #expect(r.start?.offsetSeconds == -25_200)
        #expect(r.end?.local == "2031-06-21T22:00:00")
        #expect(r.location == "Trattoria Lucca, 1290 Valencia Street, San Francisco, CA 94110, US")
        #expect(r.detail("Party size") == "2")
        #expect(r.detail("Guest") == "Jane Appleseed")
        #expect(r.detail("Phone") == "+1-415-555-0199")
        #expect(r.url == "https://trattoria-lucca.example/r/TL-88213")
        #expect(r.checkinURL == nil)
    }

    /// Apple's WWDC 2020 "Schema markup in Mail" example: the time is `startDate` on the
    /// FoodEstablishment, not `startTime` on the reservation.
    static let appleExample = """
        {
          "@context": "http://schema.org",
          "@type": "FoodEstablishmentReservation",
          "reservationId": "IWDSCA",
          "reservationStatus": "ReservationConfirmed",
          "partySize": "2",
          "underName": {"@type": "Person", "name": "Jane Appleseed"},
          "reservationFor": {
            "@type": "FoodEstablishment",
            "name": "EPIC Steak",
            "startDate": "2031-05-12T19:30:00-07:00",
            "address": {
              "@type": "PostalAddress",
              "streetAddress": "369 The Embarcadero",
              "addressLocality": "San Francisco",
              "addressRegion": "CA",
              "postalCode": "94105",
              "addressCountry": "US"
            },
            "telephone": "+1-415-369-9955"
          }
        }
        """

    @Test("Apple's example shape: startDate on the restaurant is recovered and reported")
    func appleShapeRecovered() throws {
        let extraction = try JSONFixture.read(Self.appleExample)
        let r = try #require(extraction.reservations.first)
        #expect(r.title == "EPIC Steak")
        #expect(r.start?.text == "2031-05-12T19:30:00-07:00")
        #expect(r.start?.epochSeconds == 1_936_405_800)
        #expect(r.end == nil)
        #expect(extraction.codes == ["repaired"])
        #expect(extraction.diagnostics.first?.message.contains("reservationFor.startDate") == true)

        // The normalized JSON carries the repair: startTime on the reservation, not on the place.
        let json = try #require(r.json.objectValue)
        #expect(json["@context"] == .string("https://schema.org"))
        #expect(json["startTime"] == .string("2031-05-12T19:30:00-07:00"))
        #expect(json["reservationFor"]?.objectValue?["startDate"] == nil)
        #expect(json["reservationStatus"] == .string("https://schema.org/ReservationConfirmed"))
    }

    @Test("without any start the reservation is dropped with missing-field")
    func missingStart() throws {
        let extraction = try JSONFixture.read(
            """
            {"@type": "FoodEstablishmentReservation", "reservationId": "X1",
             "reservationFor": {"@type": "Restaurant", "name": "Nowhere"}}
            """)
        #expect(extraction.reservations.isEmpty)
        #expect(extraction.codes == ["missing-status", "missing-required-property"])
        #expect(extraction.diagnostics.last?.message.contains("startTime") == true)
    }

    @Test("without reservationFor the reservation is dropped with missing-field")
    func missingReservationFor() throws {
        let extraction = try JSONFixture.read(
            """
            {"@type": "FoodEstablishmentReservation", "reservationId": "X2", "startTime": "2031-06-21T20:00:00-07:00"}
            """)
        #expect(extraction.reservations.isEmpty)
        #expect(extraction.codes == ["missing-required-property"])
        #expect(extraction.diagnostics.first?.message.contains("reservationFor") == true)
    }

    @Test("a time without offset is kept as floating time with no-time-zone")
    func floatingTime() throws {
        let extraction = try JSONFixture.read(
            """
            {"@type": "FoodEstablishmentReservation", "reservationId": "F1", "startTime": "2031-06-21T20:00:00",
             "reservationFor": {"@type": "Restaurant", "name": "Floating Fish"}}
            """)
        let r = try #require(extraction.reservations.first)
        #expect(r.start?.offsetSeconds == nil)
        #expect(r.start?.epochSeconds == nil)
        #expect(r.start?.local == "2031-06-21T20:00:00")
        #expect(extraction.codes == ["missing-timezone", "missing-status"])
    }

    @Test("an unreadable startTime is invalid-value, then missing-field")
    func unreadableTime() throws {
        let extraction = try JSONFixture.read(
            """
            {"@type": "FoodEstablishmentReservation", "reservationId": "F2", "startTime": "Saturday 8pm",
             "reservationFor": {"@type": "Restaurant", "name": "Vague Place"}}
            """)
        #expect(extraction.reservations.isEmpty)
        #expect(extraction.codes == ["invalid-value", "missing-status", "missing-required-property"])
    }

    @Test("reservationFor written as text is read as the restaurant's name, with repaired")
    func reservationForText() throws {
        let extraction = try JSONFixture.read(
            """
            {"@type": "FoodEstablishmentReservation", "reservationId": "T9", "startTime": "2031-06-21T20:00:00-07:00",
             "reservationFor": "Chez Panisse"}
            """)
        #expect(extraction.reservations.first?.title == "Chez Panisse")
        #expect(extraction.codes == ["repaired", "missing-status"])
    }
}
