import Markup
import Testing

@testable import Reservations

/// `programMembershipUsed`: the program and a masked number, a frequent flyer on a flight.
@Suite("Program memberships")
struct ProgramMembershipTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var type: String
        var membership: String
        var label: String
        var value: String
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "a flight: programName, number masked",
            type: "FlightReservation",
            membership: #"{"@type": "ProgramMembership", "membershipNumber": "99201234", "programName": "Miles&More"}"#,
            label: "Frequent flyer", value: "Miles&More ****1234"),
        Case(
            name: "a hotel: the hosting organization's name, a short number as it is",
            type: "LodgingReservation",
            membership: """
                {"@type": "ProgramMembership", "membershipNumber": "881234",
                 "hostingOrganization": {"@type": "Organization", "name": "Harbor Rewards"}}
                """,
            label: "Membership", value: "Harbor Rewards 881234"),
        Case(
            name: "no program: the masked number alone",
            type: "FoodEstablishmentReservation",
            membership: #"{"@type": "ProgramMembership", "membershipNumber": "1234567"}"#,
            label: "Membership", value: "***4567"),
    ]

    static func booking(type: String, membership: String) -> String {
        let reservationFor =
            switch type {
            case "FlightReservation":
                #""reservationFor": {"@type": "Flight", "flightNumber": "7", "airline": {"iataCode": "LH"}, "departureAirport": {"iataCode": "FRA"}, "departureTime": "2031-10-02T06:05:00+02:00"}"#
            case "LodgingReservation":
                #""checkinTime": "2031-09-02T15:00:00+02:00", "reservationFor": {"@type": "Hotel", "name": "Harbor"}"#
            default:
                #""startTime": "2031-09-02T19:00:00+02:00", "reservationFor": {"@type": "Restaurant", "name": "Lupine"}"#
            }
        return """
            {"@type": "\(type)", "reservationNumber": "M-1", "reservationStatus": "https://schema.org/ReservationConfirmed",
             "programMembershipUsed": \(membership), \(reservationFor)}
            """
    }

    @Test("membership details", arguments: cases)
    func membership(_ c: Case) throws {
        let extraction = try JSONFixture.read(Self.booking(type: c.type, membership: c.membership))
        let r = try #require(extraction.reservations.first)
        #expect(r.detail(c.label) == c.value)
        #expect(extraction.diagnostics.isEmpty)
    }

    @Test("Microdata: a frequent flyer number")
    func microdata() throws {
        let html = """
            <div itemscope itemtype="http://schema.org/FlightReservation">
              <meta itemprop="reservationNumber" content="M-2">
              <link itemprop="reservationStatus" href="http://schema.org/ReservationConfirmed">
              <div itemprop="programMembershipUsed" itemscope itemtype="http://schema.org/ProgramMembership">
                <meta itemprop="membershipNumber" content="99201234"><meta itemprop="programName" content="Miles&amp;More">
              </div>
              <div itemprop="reservationFor" itemscope itemtype="http://schema.org/Flight">
                <meta itemprop="flightNumber" content="7">
                <div itemprop="departureAirport" itemscope itemtype="http://schema.org/Airport"><meta itemprop="iataCode" content="FRA"></div>
                <meta itemprop="departureTime" content="2031-10-02T06:05:00+02:00">
              </div>
            </div>
            """
        let extraction = ReservationReader.read(MarkupExtractor.extract(html: Array(html.utf8)).items, now: nil)
        let r = try #require(extraction.reservations.first)
        #expect(r.detail("Frequent flyer") == "Miles&More ****1234")
    }
}
