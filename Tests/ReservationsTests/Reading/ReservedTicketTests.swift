import JSON
import Markup
import Testing

@testable import Reservations

/// `reservedTicket` beside a reservation: number, token, seat and holder per ticket.
@Suite("Reserved tickets")
struct ReservedTicketTests {
    /// A concert booking for Jane Appleseed with the given `reservedTicket` JSON.
    static func booking(_ tickets: String, extra: String = "") -> String {
        """
        {"@context": "https://schema.org", "@type": "EventReservation", "reservationNumber": "TX-1",
         "reservationStatus": "https://schema.org/ReservationConfirmed", \(extra)
         "underName": {"@type": "Person", "name": "Jane Appleseed"},
         "reservationFor": {"@type": "MusicEvent", "name": "Harbour Lights", "startDate": "2031-10-03T20:00:00+01:00"},
         "reservedTicket": \(tickets)}
        """
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var tickets: String
        var details: [String]
        var codes: [String] = []
        var testDescription: String { name }
    }

    static let longToken = String(repeating: "A", count: 65)

    static let cases: [Case] = [
        Case(
            name: "a QR code token: its value and kind",
            tickets: #"{"@type": "Ticket", "ticketNumber": "TX-1-1", "ticketToken": "qrCode:AB34"}"#,
            details: ["Ticket number: TX-1-1", "Ticket code: AB34 (QR code)"]),
        Case(
            name: "a barcode 128 token, and plain short text",
            tickets: #"[{"@type": "Ticket", "ticketToken": "barcode128:9912"}, {"@type": "Ticket", "ticketToken": "K7-22"}]"#,
            details: ["Ticket code: 9912 (barcode 128)", "Ticket code: K7-22"]),
        Case(
            name: "an https image of the ticket is kept as its link",
            tickets: #"{"@type": "Ticket", "ticketToken": "https://tix.example/t/1.png"}"#,
            details: ["Ticket code: https://tix.example/t/1.png"]),
        Case(
            name: "a data: image is left out with a note; a long token is left out",
            tickets: """
                [{"@type": "Ticket", "ticketToken": "data:image/png;base64,iVBORw0KGgo"},
                 {"@type": "Ticket", "ticketToken": "\(longToken)"}]
                """,
            details: [], codes: ["unsafe-url"]),
        Case(
            name: "seats of two tickets, each with its holder when not the guest",
            tickets: """
                [{"@type": "Ticket", "underName": {"@type": "Person", "name": "Jane Appleseed"},
                  "ticketedSeat": {"@type": "Seat", "seatNumber": "47", "seatRow": "12", "seatSection": "B"}},
                 {"@type": "Ticket", "underName": "Sam Rivera", "ticketedSeat": {"@type": "Seat", "seatNumber": "48", "seatRow": "12"}}]
                """,
            details: ["Seat: B, Row 12, Seat 47", "Seat: Row 12, Seat 48", "Ticket holder: Sam Rivera"]),
    ]

    @Test("ticket details", arguments: cases)
    func tickets(_ c: Case) throws {
        let extraction = try JSONFixture.read(Self.booking(c.tickets))
        let r = try #require(extraction.reservations.first)
        let shown = r.details.filter { !["Guest", "Booking reference"].contains($0.label) }.map(\.description)
        #expect(shown == c.details)
        #expect(extraction.codes == c.codes)
    }

    @Test("a refused ticket token is taken out of the normalized JSON; the ticket stays")
    func refusedTokenLeavesTheJSON() throws {
        let extraction = try JSONFixture.read(
            Self.booking(#"[{"@type": "Ticket", "ticketNumber": "N1", "ticketToken": "javascript:alert(1)"}]"#))
        let r = try #require(extraction.reservations.first)
        let json = r.json.serialized()
        #expect(!json.contains("javascript"))
        #expect(json.contains("N1"))
        #expect(extraction.codes == ["unsafe-url"])
    }

    @Test("a flight's airplaneSeat is the seat; the ticket's seat is not added")
    func flightSeatOnce() throws {
        let extraction = try JSONFixture.read(
            """
            {"@type": "FlightReservation", "reservationNumber": "Q1", "reservationStatus": "https://schema.org/ReservationConfirmed",
             "airplaneSeat": "14A",
             "reservedTicket": {"@type": "Ticket", "ticketNumber": "016-1", "ticketedSeat": {"@type": "Seat", "seatNumber": "14A"}},
             "reservationFor": {"@type": "Flight", "flightNumber": "7", "airline": {"@type": "Airline", "iataCode": "C7"},
               "departureAirport": {"iataCode": "PDX"}, "arrivalAirport": {"iataCode": "DEN"},
               "departureTime": "2031-10-02T06:05:00-07:00"}}
            """)
        let r = try #require(extraction.reservations.first)
        #expect(r.details.filter { $0.label == "Seat" }.map(\.value) == ["14A"])
        #expect(r.detail("Ticket number") == "016-1")
    }

    @Test("Microdata: a ticket with token and seat")
    func microdata() throws {
        let html = """
            <div itemscope itemtype="http://schema.org/EventReservation">
              <meta itemprop="reservationNumber" content="TX-2">
              <link itemprop="reservationStatus" href="http://schema.org/ReservationConfirmed">
              <div itemprop="reservationFor" itemscope itemtype="http://schema.org/Event">
                <meta itemprop="name" content="Harbour Lights"><meta itemprop="startDate" content="2031-10-03T20:00:00+01:00">
              </div>
              <div itemprop="reservedTicket" itemscope itemtype="http://schema.org/Ticket">
                <meta itemprop="ticketNumber" content="TX-2-1"><meta itemprop="ticketToken" content="qrCode:ZZ9">
                <div itemprop="ticketedSeat" itemscope itemtype="http://schema.org/Seat">
                  <meta itemprop="seatNumber" content="47"><meta itemprop="seatRow" content="12"><meta itemprop="seatSection" content="B">
                </div>
              </div>
            </div>
            """
        let extraction = ReservationReader.read(MarkupExtractor.extract(html: Array(html.utf8)).items, now: nil)
        let r = try #require(extraction.reservations.first)
        #expect(r.detail("Ticket number") == "TX-2-1")
        #expect(r.detail("Ticket code") == "ZZ9 (QR code)")
        #expect(r.detail("Seat") == "B, Row 12, Seat 47")
    }
}
