import Markup
import Testing

@testable import Reservations

/// `modifiedTime`: when the sender last changed the booking, read like the item's times.
@Suite("Modified time")
struct ModifiedTimeTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        /// The `modifiedTime` member, or an empty string for none.
        var member: String
        var local: String?
        var epoch: Int64?
        var codes: [String] = []
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "ISO 8601 with an offset", member: #""modifiedTime": "2031-06-01T09:30:00+02:00","#,
            local: "2031-06-01T09:30:00", epoch: 1_938_065_400),
        Case(name: "absent", member: "", local: nil, epoch: nil),
        Case(
            name: "unreadable: a note, nil", member: #""modifiedTime": "last Tuesday","#, local: nil, epoch: nil,
            codes: ["invalid-value"]),
        Case(
            name: "a repaired form is read with its note", member: #""modifiedTime": "2031-06-01 09:30:00Z","#,
            local: "2031-06-01T09:30:00", epoch: 1_938_072_600, codes: ["date-repaired"]),
    ]

    @Test("modifiedTime is read", arguments: cases)
    func modified(_ c: Case) throws {
        let extraction = try JSONFixture.read(
            """
            {"@type": "FoodEstablishmentReservation", "reservationNumber": "T-1", \(c.member)
             "reservationStatus": "https://schema.org/ReservationConfirmed", "startTime": "2031-07-14T19:00:00-07:00",
             "reservationFor": {"@type": "Restaurant", "name": "Lupine Kitchen"}}
            """)
        let r = try #require(extraction.reservations.first)
        #expect(r.modifiedTime?.local == c.local)
        #expect(r.modifiedTime?.epochSeconds == c.epoch)
        #expect(extraction.codes == c.codes)
        #expect(!r.details.contains { $0.description.contains("2031-06-01") })
    }

    @Test("Microdata: modifiedTime from a meta element")
    func microdata() throws {
        let html = """
            <div itemscope itemtype="http://schema.org/FoodEstablishmentReservation">
              <meta itemprop="reservationNumber" content="T-2">
              <link itemprop="reservationStatus" href="http://schema.org/ReservationConfirmed">
              <meta itemprop="modifiedTime" content="2031-06-01T09:30:00+02:00">
              <meta itemprop="startTime" content="2031-07-14T19:00:00-07:00">
              <div itemprop="reservationFor" itemscope itemtype="http://schema.org/Restaurant"><meta itemprop="name" content="Lupine Kitchen"></div>
            </div>
            """
        let extraction = ReservationReader.read(MarkupExtractor.extract(html: Array(html.utf8)).items, now: nil)
        let r = try #require(extraction.reservations.first)
        #expect(r.modifiedTime?.epochSeconds == 1_938_065_400)
    }
}
