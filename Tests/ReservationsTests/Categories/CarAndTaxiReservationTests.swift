import Markup
import Testing

@testable import Reservations

@Suite("Rental car and taxi reservations")
struct CarAndTaxiReservationTests {
    @Test("a rental car: company and pickup place in the title, pickup to drop-off")
    func rentalCar() throws {
        let extraction = try JSONFixture.read(
            """
            {"@context": "http://schema.org", "@type": "RentalCarReservation", "reservationNumber": "546323",
             "underName": {"@type": "Person", "name": "John Smith"},
             "reservationFor": {"@type": "Car", "name": "Economy Class Car", "model": "Civic", "brand": {"@type": "Brand", "name": "Honda"},
               "rentalCompany": {"@type": "Organization", "name": "Hertz"}},
             "pickupLocation": {"@type": "Place", "name": "Hertz San Diego Airport",
               "address": {"@type": "PostalAddress", "streetAddress": "1500 Orange Avenue", "addressLocality": "San Diego",
                           "addressRegion": "CA", "postalCode": "94043", "addressCountry": "US"}},
             "pickupTime": "2031-08-05T16:00:00-07:00",
             "dropoffLocation": {"@type": "Place", "name": "Hertz LAX"},
             "dropoffTime": "2031-08-06T20:00:00-07:00"}
            """)
        let r = try #require(extraction.reservations.first)
        #expect(extraction.codes == ["missing-status"])
        #expect(r.category == .rentalCar)
        #expect(r.title == "Hertz car rental at Hertz San Diego Airport")
        #expect(r.start?.text == "2031-08-05T16:00:00-07:00")
        #expect(r.end?.text == "2031-08-06T20:00:00-07:00")
        #expect(r.location == "Hertz San Diego Airport, 1500 Orange Avenue, San Diego, CA 94043, US")
        #expect(r.detail("Car") == "Economy Class Car")
        #expect(r.detail("Drop-off") == "Hertz LAX")
    }

    @Test("a taxi: provider and pickup place")
    func taxi() throws {
        let extraction = try JSONFixture.read(
            """
            {"@type": "TaxiReservation", "reservationId": "T-77", "partySize": 3,
             "reservationFor": {"@type": "TaxiService", "provider": {"@type": "Organization", "name": "Checker Cab"}},
             "pickupLocation": {"@type": "Place", "name": "Harborview Hotel Boston", "address": "70 Rowes Wharf, Boston"},
             "pickupTime": "2031-06-06T11:30:00-04:00"}
            """)
        let r = try #require(extraction.reservations.first)
        #expect(r.category == .taxi)
        #expect(r.title == "Checker Cab taxi from Harborview Hotel Boston")
        #expect(r.location == "Harborview Hotel Boston, 70 Rowes Wharf, Boston")
        #expect(r.end == nil)
        #expect(r.detail("Party size") == "3")
    }
}
