import Markup
import Testing

@testable import Reservations

@Suite("Lodging reservations")
struct LodgingReservationTests {
    static let harborview = """
        {
          "@context": "http://schema.org",
          "@type": "LodgingReservation",
          "reservationNumber": "HV-20310603-5521",
          "reservationStatus": "http://schema.org/Confirmed",
          "underName": {"@type": "Person", "name": "Jane Appleseed"},
          "reservationFor": {
            "@type": "Hotel",
            "name": "Harborview Hotel Boston",
            "address": {
              "@type": "PostalAddress",
              "streetAddress": "70 Rowes Wharf",
              "addressLocality": "Boston",
              "addressRegion": "MA",
              "postalCode": "02110",
              "addressCountry": "US"
            },
            "telephone": "+1-617-555-0142"
          },
          "checkinDate": "2031-06-03T15:00:00-04:00",
          "checkoutDate": "2031-06-06T11:00:00-04:00",
          "numAdults": 2,
          "lodgingUnitDescription": "1 King Bed, Harbor View",
          "modifyReservationUrl": "https://www.harborview-hotels.example/manage/HV-20310603-5521"
        }
        """

    @Test("a hotel stay: check-in to check-out, room, guests")
    func hotel() throws {
        let extraction = try JSONFixture.read(Self.harborview)
        let r = try #require(extraction.reservations.first)
        #expect(extraction.diagnostics.isEmpty)
        #expect(r.category == .lodging)
        #expect(r.title == "Harborview Hotel Boston")
        #expect(r.reservationID == "HV-20310603-5521")
        #expect(r.itemID == "1")
        #expect(r.start?.text == "2031-06-03T15:00:00-04:00")
        #expect(r.start?.offsetSeconds == -14_400)
        #expect(r.end?.local == "2031-06-06T11:00:00")
        #expect(r.location == "Harborview Hotel Boston, 70 Rowes Wharf, Boston, MA 02110, US")
        #expect(r.detail("Room") == "1 King Bed, Harbor View")
        #expect(r.detail("Guests") == "2 adults")
        #expect(r.detail("Booking reference") == "HV-20310603-5521")
        #expect(r.url == "https://www.harborview-hotels.example/manage/HV-20310603-5521")
    }

    @Test("older checkinTime/checkoutTime names and date-only values")
    func olderNamesAndDates() throws {
        let extraction = try JSONFixture.read(
            """
            {"@type": "LodgingReservation", "reservationNumber": "B-7",
             "reservationFor": {"@type": "BedAndBreakfast", "name": "Rose Cottage", "address": "3 Mill Lane, Bath, UK"},
             "checkinTime": "2031-08-01", "checkoutTime": "2031-08-03"}
            """)
        let r = try #require(extraction.reservations.first)
        #expect(extraction.codes == ["missing-status"])
        #expect(r.start?.isDateOnly == true)
        #expect(r.start?.local == "2031-08-01T00:00:00")
        #expect(r.end?.local == "2031-08-03T00:00:00")
        #expect(r.location == "Rose Cottage, 3 Mill Lane, Bath, UK")
    }

    @Test("a check-out before check-in is ignored with invalid-value")
    func endBeforeStart() throws {
        let extraction = try JSONFixture.read(
            """
            {"@type": "LodgingReservation", "reservationNumber": "B-8", "reservationFor": {"@type": "Hotel", "name": "Backwards Inn"},
             "checkinDate": "2031-08-03T15:00:00+02:00", "checkoutDate": "2031-08-01T11:00:00+02:00"}
            """)
        let r = try #require(extraction.reservations.first)
        #expect(r.end == nil)
        #expect(extraction.codes == ["missing-status", "invalid-value"])
    }
}
