import JSON
import Markup
import Testing

@testable import Reservations

/// `potentialAction` as Gmail and schema.org write it: each action's web link a detail, a
/// `CheckInAction` the check-in link, and no link of another scheme in the calendar.
@Suite("Actions beside a reservation")
struct PotentialActionTests {
    /// A table booking with the given `potentialAction` JSON and extra properties.
    static func booking(_ actions: String, extra: String = "") -> String {
        """
        {"@context": "https://schema.org", "@type": "FoodEstablishmentReservation", "reservationNumber": "T-1",
         "reservationStatus": "https://schema.org/ReservationConfirmed", \(extra)
         "startTime": "2031-07-14T19:00:00-07:00",
         "reservationFor": {"@type": "Restaurant", "name": "Lupine Kitchen"},
         "potentialAction": \(actions)}
        """
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var actions: String
        var details: [String]
        var checkin: String?
        var codes: [String] = []
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "CheckInAction with a target URL",
            actions: #"{"@type": "CheckInAction", "target": "https://air.example/ci"}"#,
            details: ["Check-in URL: https://air.example/ci"], checkin: "https://air.example/ci"),
        Case(
            name: "an EntryPoint with urlTemplate, and the action's own url",
            actions: """
                [{"@type": "CancelAction", "target": {"@type": "EntryPoint", "urlTemplate": "https://r.example/cancel"}},
                 {"@type": "ViewAction", "url": "https://r.example/view"},
                 {"@type": "ConfirmAction", "target": {"@type": "EntryPoint", "url": "https://r.example/ok"}},
                 {"@type": "http://schema.org/EditAction", "target": "https://r.example/edit"}]
                """,
            details: [
                "Cancel booking: https://r.example/cancel", "View: https://r.example/view",
                "Confirm booking: https://r.example/ok", "Manage booking: https://r.example/edit",
            ],
            checkin: nil),
        Case(
            name: "several targets: the http(s) one is kept",
            actions: #"{"@type": "ViewAction", "target": ["android-app://com.r/x", "https://r.example/v"]}"#,
            details: ["View: https://r.example/v"], checkin: nil),
        Case(
            name: "javascript: and data: links are dropped with a note",
            actions: """
                [{"@type": "CancelAction", "target": "javascript:alert(1)"},
                 {"@type": "CheckInAction", "target": {"@type": "EntryPoint", "urlTemplate": "data:text/html,<b>x</b>"}}]
                """,
            details: [], checkin: nil, codes: ["unsafe-url", "unsafe-url"]),
        Case(
            name: "the same link twice is one detail; unknown action types are ignored",
            actions: """
                [{"@type": "ViewAction", "url": "https://r.example/v"}, {"@type": "ViewAction", "url": "https://r.example/v"},
                 {"@type": "RsvpAction", "target": "https://r.example/rsvp"}]
                """,
            details: ["View: https://r.example/v"], checkin: nil),
    ]

    @Test("action links become details", arguments: cases)
    func actions(_ c: Case) throws {
        let extraction = try JSONFixture.read(Self.booking(c.actions))
        let r = try #require(extraction.reservations.first)
        let links = r.details.filter { $0.label != "Booking reference" }.map(\.description)
        #expect(links == c.details)
        #expect(r.checkinURL == c.checkin)
        #expect(extraction.codes == c.codes)
    }

    @Test("checkinUrl wins over a CheckInAction, without a second check-in detail")
    func checkinUrlWins() throws {
        let extraction = try JSONFixture.read(
            Self.booking(
                #"{"@type": "CheckInAction", "target": "https://air.example/action"}"#,
                extra: #""checkinUrl": "https://air.example/property","#))
        let r = try #require(extraction.reservations.first)
        #expect(r.checkinURL == "https://air.example/property")
        #expect(r.details.filter { $0.label == "Check-in URL" }.map(\.value) == ["https://air.example/property"])
    }

    @Test("a javascript: checkinUrl or url is dropped; the action's check-in link is used")
    func unsafeProperties() throws {
        let extraction = try JSONFixture.read(
            Self.booking(
                #"{"@type": "CheckInAction", "target": "https://air.example/action"}"#,
                extra: #""checkinUrl": "JavaScript:alert(1)", "url": "data:text/html,x","#))
        let r = try #require(extraction.reservations.first)
        #expect(r.checkinURL == "https://air.example/action")
        #expect(r.url == nil)
        #expect(extraction.codes == ["unsafe-url", "unsafe-url"])
        #expect(extraction.diagnostics.map(\.detail) == ["javascript", "data"])
    }

    @Test("a refused link is taken out of the normalized JSON; the rest stays")
    func refusedLinksLeaveTheJSON() throws {
        let extraction = try JSONFixture.read(
            Self.booking(
                """
                [{"@type": "CancelAction", "target": "javascript:alert(1)"},
                 {"@type": "ViewAction", "url": "https://r.example/v"}]
                """,
                extra: #""checkinUrl": "javascript:alert(2)", "modifyReservationUrl": "https://r.example/m", "url": "vbscript:x","#))
        let r = try #require(extraction.reservations.first)
        let json = r.json.serialized()
        #expect(!json.contains("javascript"))
        #expect(json.contains("https://r.example/v"))
        #expect(!json.contains("checkinUrl"))
        #expect(!json.contains("vbscript"))
        #expect(r.url == "https://r.example/m")
        #expect(extraction.codes == ["unsafe-url", "unsafe-url", "unsafe-url"])
    }

    @Test("Microdata: actions read from the markup stage's items")
    func microdata() throws {
        let html = """
            <div itemscope itemtype="http://schema.org/FoodEstablishmentReservation">
              <meta itemprop="reservationNumber" content="T-2">
              <link itemprop="reservationStatus" href="http://schema.org/ReservationConfirmed">
              <meta itemprop="startTime" content="2031-07-14T19:00:00-07:00">
              <div itemprop="reservationFor" itemscope itemtype="http://schema.org/Restaurant"><meta itemprop="name" content="Lupine Kitchen"></div>
              <div itemprop="potentialAction" itemscope itemtype="http://schema.org/CheckInAction">
                <link itemprop="target" href="https://air.example/ci">
              </div>
              <div itemprop="potentialAction" itemscope itemtype="http://schema.org/CancelAction">
                <div itemprop="target" itemscope itemtype="http://schema.org/EntryPoint"><link itemprop="urlTemplate" href="https://r.example/cancel"></div>
              </div>
              <div itemprop="potentialAction" itemscope itemtype="http://schema.org/ViewAction">
                <link itemprop="target" href="javascript:alert(1)">
              </div>
            </div>
            """
        let items = MarkupExtractor.extract(html: Array(html.utf8)).items
        let extraction = ReservationReader.read(items, now: nil)
        let r = try #require(extraction.reservations.first)
        #expect(r.checkinURL == "https://air.example/ci")
        #expect(r.detail("Cancel booking") == "https://r.example/cancel")
        #expect(r.detail("View") == nil)
        #expect(extraction.codes == ["unsafe-url"])
    }
}
