import Markup
import Testing

@testable import Reservations

@Suite("Event reservations")
struct EventReservationTests {
    @Test("a concert ticket")
    func concert() throws {
        let extraction = try JSONFixture.read(
            """
            {"@context": "http://schema.org", "@type": "EventReservation", "reservationNumber": "IO12345",
             "underName": "John Smith",
             "reservedTicket": {"@type": "Ticket", "ticketNumber": "abc123",
               "ticketedSeat": {"@type": "Seat", "seatSection": "Balcony", "seatRow": "C", "seatNumber": "12"}},
             "reservationFor": {"@type": "MusicEvent", "name": "Foo Fighters Concert",
               "startDate": "2031-03-06T19:30:00-08:00", "endDate": "2031-03-06T23:00:00-08:00",
               "performer": {"@type": "MusicGroup", "name": "Foo Fighters"},
               "location": {"@type": "Place", "name": "AT&T Park",
                 "address": {"@type": "PostalAddress", "streetAddress": "24 Willie Mays Plaza", "addressLocality": "San Francisco",
                             "addressRegion": "CA", "postalCode": "94107", "addressCountry": "US"}}}}
            """)
        let r = try #require(extraction.reservations.first)
        #expect(extraction.codes == ["missing-status"])
        #expect(r.category == .event)
        #expect(r.title == "Foo Fighters Concert")
        #expect(r.start?.text == "2031-03-06T19:30:00-08:00")
        #expect(r.end?.text == "2031-03-06T23:00:00-08:00")
        #expect(r.location == "AT&T Park, 24 Willie Mays Plaza, San Francisco, CA 94107, US")
        #expect(r.detail("Guest") == "John Smith")
        #expect(r.detail("Seat") == "Balcony, Row C, Seat 12")
        #expect(r.detail("Ticket number") == "abc123")
        #expect(r.detail("Performer") == "Foo Fighters")
    }

    @Test("a movie: a ScreeningEvent named after the film it presents")
    func movie() throws {
        let extraction = try JSONFixture.read(
            """
            {"@type": "EventReservation", "reservationId": "CIN-42", "numSeats": "2",
             "reservationFor": {"@type": "ScreeningEvent", "workPresented": {"@type": "Movie", "name": "The Matrix"},
               "startDate": "2031-04-01T20:00:00+01:00",
               "location": {"@type": "MovieTheater", "name": "Odeon Leicester Square"}}}
            """)
        let r = try #require(extraction.reservations.first)
        #expect(r.title == "The Matrix")
        #expect(r.location == "Odeon Leicester Square")
        #expect(r.detail("Seats") == "2")
        #expect(r.detail("Movie") == nil)
    }
}
