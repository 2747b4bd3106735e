import EventStore
import JSON
import Markup
import Reservations
import ReservoirBase
import Testing

@testable import Pipeline

@Suite("CalendarEvent from a Reservation")
struct CalendarEventReservationTests {
    static func flight(status: ReservationStatus, checkin: Bool = true) -> Reservation {
        let json = JSONValue.object(
            JSONObject(pairs: [
                ("@context", .string("https://schema.org")),
                ("@type", .string("FlightReservation")),
                ("reservationNumber", .string("K7Q2PX")),
                (
                    "reservationFor",
                    .object(
                        JSONObject(pairs: [
                            ("@type", .string("Flight")),
                            ("webCheckinTime", .string("2031-06-02T08:15:00-07:00")),
                        ]))
                ),
            ]))
        return Reservation(
            category: .flight, schemaType: "FlightReservation", reservationID: "K7Q2PX", itemID: "C7412-SFO-2031-06-03",
            status: status, title: "Cascadia Air C7 412 SFO → SEA",
            start: DateTimeValue(parsing: "2031-06-03T08:15:00-07:00"),
            end: DateTimeValue(parsing: "2031-06-03T10:22:00-07:00"),
            location: "San Francisco International (SFO)",
            details: [ReservationDetail(label: "Guest", value: "Jane Appleseed"), ReservationDetail(label: "Seat", value: "14A")],
            url: nil, checkinURL: checkin ? "https://cascadia-air.example/checkin" : nil, json: json)
    }

    @Test("key, category, title, times, location, notes, JSON")
    func mapping() throws {
        let reservation = Self.flight(status: .confirmed)
        let event = CalendarEvent(reservation)
        #expect(event.key == EventKey(owner: .unproven, container: "K7Q2PX", item: "C7412-SFO-2031-06-03"))
        #expect(event.category == .flight)
        // The markup names no flight number: the reader's title after the category word.
        #expect(event.title == "Flight: Cascadia Air C7 412 SFO → SEA")
        #expect(
            event.start
                == EventTime(
                    text: "2031-06-03T08:15:00-07:00", local: "2031-06-03T08:15:00",
                    offsetSeconds: -25_200, epochSeconds: 1_938_266_100))
        #expect(event.end?.epochSeconds == Int64(1_938_273_720))
        #expect(event.location == "San Francisco International (SFO)")
        #expect(event.notes == "Guest: Jane Appleseed\nSeat: 14A")
        #expect(event.status == .confirmed)
        #expect(event.url == "https://cascadia-air.example/checkin")
        #expect(event.checkinOpens == Int64(1_938_179_700))
        #expect(event.checkinCloses == 1_938_266_100)
        #expect(event.reservationJSON.hasPrefix(#"{"@context":"https://schema.org","@type":"FlightReservation""#))
    }

    @Test(
        "status mapping: pending and hold are tentative",
        arguments: [
            (ReservationStatus.confirmed, EventStatus.confirmed),
            (.pending, .tentative),
            (.hold, .tentative),
            (.cancelled, .cancelled),
        ])
    func status(_ status: ReservationStatus, _ expected: EventStatus) {
        #expect(CalendarEvent(Self.flight(status: status)).status == expected)
    }

    @Test("no check-in link, no check-in window")
    func noCheckin() {
        let event = CalendarEvent(Self.flight(status: .confirmed, checkin: false))
        #expect(event.checkinOpens == nil)
        #expect(event.checkinCloses == nil)
        #expect(event.url == nil)
    }

    @Test("a floating time stays floating; a date becomes floating midnight")
    func floating() throws {
        let time = EventTime(try #require(DateTimeValue(parsing: "2031-08-01")))
        #expect(time.local == "2031-08-01T00:00:00")
        #expect(time.offsetSeconds == nil)
        #expect(time.epochSeconds == nil)
        #expect(time.text == "2031-08-01")
    }

    @Test("the reader's output maps end to end", arguments: ["2031-05-12T19:30:00-07:00"])
    func endToEnd(_ start: String) throws {
        let item = StructuredItem(
            value: .object(
                JSONObject(pairs: [
                    ("@type", .string("FoodEstablishmentReservation")),
                    ("reservationId", .string("IWDSCA")),
                    ("partySize", .number(2)),
                    ("startTime", .string(start)),
                    ("reservationFor", .object(JSONObject(pairs: [("@type", .string("Restaurant")), ("name", .string("EPIC Steak"))]))),
                ])), source: .jsonLD)
        let reservation = try #require(ReservationReader.read([item], now: nil).reservations.first)
        let event = CalendarEvent(reservation)
        #expect(event.key.description == "IWDSCA/1")
        #expect(event.notes == "Party size: 2\nBooking reference: IWDSCA")
        #expect(event.start?.epochSeconds == 1_936_405_800)
    }
}
