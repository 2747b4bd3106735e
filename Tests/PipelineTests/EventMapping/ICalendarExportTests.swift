import EventStore
import Foundation
import ICalendar
import JSON
import Markup
import Reservations
import Testing

@testable import Pipeline

/// A reservation's JSON-LD through the reader, the mapping and the iCalendar writer: each
/// category's VEVENT as Siri Event Suggestions describe it.
@Suite("iCalendar export of each category")
struct ICalendarExportTests {
    /// The VEVENT of one JSON-LD reservation, unfolded, without the STRUCTURED-DATA line.
    static func vevent(_ jsonLD: String, sequence: Int = 0) throws -> [String] {
        let reading = TolerantJSONReader.read(Array(jsonLD.utf8))
        let value = try #require(reading.values.first)
        let reservation = try #require(
            ReservationReader.read([StructuredItem(value: value, source: .jsonLD)], now: nil).reservations.first)
        let stored = StoredEvent(
            event: CalendarEvent(reservation), sequence: sequence,
            createdAt: 1_900_000_000, updatedAt: 1_900_000_100)
        // Reminders are left out here: ICalendarWriterTests and the corpus cover them.
        let ics = ICalendarWriter(reminders: .off).write([stored]).replacingOccurrences(of: "\r\n ", with: "")
        let lines = ics.split(separator: "\r\n").map(String.init)
        let begin = try #require(lines.firstIndex(of: "BEGIN:VEVENT"))
        let end = try #require(lines.lastIndex(of: "END:VEVENT"))
        return lines[begin...end].filter { !$0.hasPrefix("STRUCTURED-DATA") }
    }

    static let stamps = ["LAST-MODIFIED:20300317T174820Z", "CREATED:20300317T174640Z"]

    @Test("restaurant: Reservation: name, party size, two hours by default")
    func food() throws {
        let lines = try Self.vevent(
            """
            {"@context":"https://schema.org","@type":"FoodEstablishmentReservation","reservationNumber":"IWDSCA",
             "reservationStatus":"https://schema.org/ReservationConfirmed","underName":{"@type":"Person","name":"John Smith"},
             "reservationFor":{"@type":"FoodEstablishment","name":"EPIC Steak",
               "address":{"@type":"PostalAddress","streetAddress":"369 The Embarcadero","addressLocality":"San Francisco","addressRegion":"CA","postalCode":"94105","addressCountry":"US"},
               "geo":{"@type":"GeoCoordinates","latitude":37.7907,"longitude":-122.3889}},
             "startTime":"2031-05-12T19:30:00-07:00","partySize":"2","url":"https://epicsteak.example/r/IWDSCA"}
            """)
        #expect(lines.first == "BEGIN:VEVENT")
        #expect(lines.contains("SUMMARY:Reservation: EPIC Steak"))
        // 19:30-07:00, which San Francisco's clocks show then (coordinates near SFO): on its clock.
        #expect(lines.contains("DTSTART;TZID=America/Los_Angeles:20310512T193000"))
        #expect(lines.contains("DTEND;TZID=America/Los_Angeles:20310512T213000"))
        #expect(lines.contains { $0.hasPrefix("LOCATION:EPIC Steak\\, 369 The Embarcadero") })
        #expect(lines.contains("GEO:37.7907;-122.3889"))
        #expect(lines.contains { $0.hasPrefix("DESCRIPTION:") && $0.contains("Party size: 2") && $0.contains("IWDSCA") })
        #expect(lines.contains("URL:https://epicsteak.example/r/IWDSCA"))
        #expect(lines.contains("DTSTAMP:20300317T174820Z"))
        #expect(!lines.contains("BEGIN:VALARM"))
    }

    static let fixtures: [String: String] = [
        "flight": """
        {"@context":"https://schema.org","@type":"FlightReservation","reservationNumber":"RXJ34P","underName":{"@type":"Person","name":"Eva Green"},
         "airplaneSeat":"9A","checkinUrl":"https://united.example/checkin?RXJ34P",
         "reservationFor":{"@type":"Flight","flightNumber":"123","airline":{"@type":"Airline","name":"United","iataCode":"UA"},
           "departureAirport":{"@type":"Airport","name":"San Francisco Airport","iataCode":"SFO"},"departureTime":"2031-03-04T20:15:00-08:00",
           "arrivalAirport":{"@type":"Airport","name":"John F. Kennedy International Airport","iataCode":"EWR"},"arrivalTime":"2031-03-05T06:30:00-05:00",
           "webCheckinTime":"2031-03-03T20:15:00-08:00"}}
        """,
        "flight-no-checkin-time": """
        {"@context":"https://schema.org","@type":"FlightReservation","reservationNumber":"RXJ35P","checkinUrl":"https://united.example/checkin?RXJ35P",
         "reservationFor":{"@type":"Flight","flightNumber":"UA124","airline":{"@type":"Airline","name":"United","iataCode":"UA"},
           "departureAirport":{"@type":"Airport","iataCode":"EWR"},"departureTime":"2031-03-10T09:00:00-05:00",
           "arrivalAirport":{"@type":"Airport","iataCode":"SFO"}}}
        """,
        "train": """
        {"@context":"https://schema.org","@type":"TrainReservation","reservationNumber":"SBB2031","reservedTicket":{"@type":"Ticket","ticketNumber":"T-77","ticketedSeat":{"@type":"Seat","seatNumber":"45"}},
         "reservationFor":{"@type":"TrainTrip","trainNumber":"EC 15","provider":{"@type":"Organization","name":"SBB"},
           "departureStation":{"@type":"TrainStation","name":"Zürich HB"},"departureTime":"2031-07-14T09:33:00+02:00",
           "arrivalStation":{"@type":"TrainStation","name":"Milano Centrale"},"arrivalTime":"2031-07-14T12:50:00+02:00"}}
        """,
        "bus": """
        {"@context":"https://schema.org","@type":"BusReservation","reservationNumber":"BUS9","reservationFor":{"@type":"BusTrip","busNumber":"F 1402",
           "departureBusStop":{"@type":"BusStation","name":"Berlin ZOB"},"departureTime":"2031-08-01T08:00:00",
           "arrivalBusStop":{"@type":"BusStation","name":"Hamburg ZOB"}}}
        """,
        "boat": """
        {"@context":"https://schema.org","@type":"BoatReservation","reservationNumber":"FERRY1","reservationFor":{"@type":"BoatTrip","provider":{"@type":"Organization","name":"Blue Ferries"},
           "departureBoatTerminal":{"@type":"BoatTerminal","name":"Piraeus"},"departureTime":"2031-08-10T07:00:00+03:00",
           "arrivalBoatTerminal":{"@type":"BoatTerminal","name":"Naxos"},"arrivalTime":"2031-08-10T12:45:00+03:00"}}
        """,
        "hotel": """
        {"@context":"https://schema.org","@type":"LodgingReservation","reservationNumber":"HB-5521","underName":{"@type":"Person","name":"Jane Appleseed"},
         "reservationFor":{"@type":"LodgingBusiness","name":"Harborview Hotel Boston","address":{"@type":"PostalAddress","streetAddress":"70 Rowes Wharf","addressLocality":"Boston","addressRegion":"MA"}},
         "checkinTime":"2031-06-03T15:00:00-04:00","checkoutTime":"2031-06-06T11:00:00-04:00"}
        """,
        "car": """
        {"@context":"https://schema.org","@type":"RentalCarReservation","reservationNumber":"CAR42","reservationFor":{"@type":"RentalCar","name":"Economy","rentalCompany":{"@type":"Organization","name":"Hertz"}},
         "pickupLocation":{"@type":"Place","name":"SFO Rental Car Center"},"pickupTime":"2031-03-04T10:00:00-08:00",
         "dropoffLocation":{"@type":"Place","name":"SFO Rental Car Center"},"dropoffTime":"2031-03-08T10:00:00-08:00"}
        """,
        "taxi": """
        {"@context":"https://schema.org","@type":"TaxiReservation","reservationNumber":"TX1","provider":{"@type":"Organization","name":"Yellow Cab"},
         "pickupLocation":{"@type":"Place","name":"Harborview Hotel Boston"},"pickupTime":"2031-06-06T12:00:00-04:00"}
        """,
        "event": """
        {"@context":"https://schema.org","@type":"EventReservation","reservationNumber":"E123","reservedTicket":{"@type":"Ticket","ticketNumber":"TK-1"},
         "reservationFor":{"@type":"Event","name":"Taylor Swift","startDate":"2031-09-20T19:00:00-07:00",
           "location":{"@type":"Place","name":"AT&T Park","address":{"@type":"PostalAddress","addressLocality":"San Francisco"}}}}
        """,
        "movie": """
        {"@context":"https://schema.org","@type":"EventReservation","reservationNumber":"M77","reservationFor":{"@type":"ScreeningEvent","name":"Screening 7","workPresented":{"@type":"Movie","name":"Arrival"},
           "startDate":"2031-09-21T20:00:00","location":{"@type":"MovieTheater","name":"Roxie"}}}
        """,
        "flight-local-times": """
        {"@context":"https://schema.org","@type":"FlightReservation","reservationNumber":"LT7Q2P","underName":{"@type":"Person","name":"Eva Green"},
         "checkinUrl":"https://united.example/checkin?LT7Q2P",
         "reservationFor":{"@type":"Flight","flightNumber":"1702","airline":{"@type":"Airline","name":"United","iataCode":"UA"},
           "departureAirport":{"@type":"Airport","name":"San Francisco International","iataCode":"SFO"},"departureTime":"2031-06-03T08:15:00",
           "arrivalAirport":{"@type":"Airport","name":"John F. Kennedy International","iataCode":"JFK"},"arrivalTime":"2031-06-03T16:45:00"}}
        """,
        "train-local-times": """
        {"@context":"https://schema.org","@type":"TrainReservation","reservationNumber":"SBB714",
         "reservationFor":{"@type":"TrainTrip","trainNumber":"EC 15","provider":{"@type":"Organization","name":"SBB"},
           "departureStation":{"@type":"TrainStation","name":"Zürich HB","address":{"@type":"PostalAddress","addressCountry":"CH"}},"departureTime":"2031-07-14T09:33:00",
           "arrivalStation":{"@type":"TrainStation","name":"Milano Centrale","address":{"@type":"PostalAddress","addressCountry":"IT"}},"arrivalTime":"2031-07-14T13:50:00"}}
        """,
    ]

    static let goldens: [String: [String]] = [
        // The airports' wall times in their zones (TZID), and so a check-in alarm, which needs an instant.
        "flight-local-times": [
            "BEGIN:VEVENT",
            "UID:LT7Q2P_UA1702-SFO-2031-06-03@reservoir",
            "DTSTAMP:20300317T174820Z",
            "SEQUENCE:0",
            "STATUS:CONFIRMED",
            "SUMMARY:Flight: UA 1702 from SFO to JFK",
            "DTSTART;TZID=America/Los_Angeles:20310603T081500",
            "DTEND;TZID=America/New_York:20310603T164500",
            "LOCATION:San Francisco International (SFO)",
            #"DESCRIPTION:Arrival: John F. Kennedy International (JFK)\nGuest: Eva Green\nBooking reference: LT7Q2P\nCheck-in URL: https://united.example/checkin?LT7Q2P"#,
            "URL:https://united.example/checkin?LT7Q2P",
            "CATEGORIES:FLIGHT",
            "LAST-MODIFIED:20300317T174820Z",
            "CREATED:20300317T174640Z",
            "BEGIN:VALARM",
            "ACTION:DISPLAY",
            "TRIGGER;VALUE=DATE-TIME:20310602T151500Z",
            "DESCRIPTION:Check-in opens: https://united.example/checkin?LT7Q2P",
            "END:VALARM",
            "END:VEVENT",
        ],
        // Stations that give only their countries, each with one zone.
        "train-local-times": [
            "BEGIN:VEVENT",
            "UID:SBB714_EC15-Z%C3%BCrichHB-2031-07-14@reservoir",
            "DTSTAMP:20300317T174820Z",
            "SEQUENCE:0",
            "STATUS:CONFIRMED",
            "SUMMARY:Train: EC 15 from Zürich HB to Milano Centrale",
            "DTSTART;TZID=Europe/Zurich:20310714T093300",
            "DTEND;TZID=Europe/Rome:20310714T135000",
            #"LOCATION:Zürich HB\, CH"#,
            #"DESCRIPTION:Arrival: Milano Centrale\, IT\nBooking reference: SBB714"#,
            "CATEGORIES:TRAIN",
            "LAST-MODIFIED:20300317T174820Z",
            "CREATED:20300317T174640Z",
            "END:VEVENT",
        ],
        "flight": [
            "BEGIN:VEVENT",
            "UID:RXJ34P_UA123-SFO-2031-03-04@reservoir",
            "DTSTAMP:20300317T174820Z",
            "SEQUENCE:0",
            "STATUS:CONFIRMED",
            "SUMMARY:Flight: UA 123 from SFO to EWR",
            // Offsets the airports' zones show then: on the airports' clocks.
            "DTSTART;TZID=America/Los_Angeles:20310304T201500",
            "DTEND;TZID=America/New_York:20310305T063000",
            "LOCATION:San Francisco Airport (SFO)",
            #"DESCRIPTION:Seat: 9A\nArrival: John F. Kennedy International Airport (EWR)\nGuest: Eva Green\nBooking reference: RXJ34P\nCheck-in URL: https://united.example/checkin?RXJ34P"#,
            "URL:https://united.example/checkin?RXJ34P",
            "CATEGORIES:FLIGHT",
            "LAST-MODIFIED:20300317T174820Z",
            "CREATED:20300317T174640Z",
            "BEGIN:VALARM",
            "ACTION:DISPLAY",
            "TRIGGER;VALUE=DATE-TIME:20310304T041500Z",
            "DESCRIPTION:Check-in opens: https://united.example/checkin?RXJ34P",
            "END:VALARM",
            "END:VEVENT",
        ],
        "flight-no-checkin-time": [
            "BEGIN:VEVENT",
            "UID:RXJ35P_UA124-EWR-2031-03-10@reservoir",
            "DTSTAMP:20300317T174820Z",
            "SEQUENCE:0",
            "STATUS:CONFIRMED",
            "SUMMARY:Flight: UA 124 from EWR to SFO",
            "DTSTART:20310310T140000Z",
            // No arrival time: EWR → SFO, about 4,100 km at 800 km/h and 30 min, rounded to 5 min.
            "DTEND:20310310T194000Z",
            "LOCATION:EWR",
            #"DESCRIPTION:Arrival: SFO\nBooking reference: RXJ35P\nCheck-in URL: https://united.example/checkin?RXJ35P"#,
            "URL:https://united.example/checkin?RXJ35P",
            "CATEGORIES:FLIGHT",
            "LAST-MODIFIED:20300317T174820Z",
            "CREATED:20300317T174640Z",
            "BEGIN:VALARM",
            "ACTION:DISPLAY",
            "TRIGGER;VALUE=DATE-TIME:20310309T140000Z",
            "DESCRIPTION:Check-in opens: https://united.example/checkin?RXJ35P",
            "END:VALARM",
            "END:VEVENT",
        ],
        "train": [
            "BEGIN:VEVENT",
            "UID:SBB2031_EC15-Z%C3%BCrichHB-2031-07-14@reservoir",
            "DTSTAMP:20300317T174820Z",
            "SEQUENCE:0",
            "STATUS:CONFIRMED",
            "SUMMARY:Train: EC 15 from Zürich HB to Milano Centrale",
            "DTSTART:20310714T073300Z",
            "DTEND:20310714T105000Z",
            "LOCATION:Zürich HB",
            #"DESCRIPTION:Arrival: Milano Centrale\nBooking reference: SBB2031\nTicket number: T-77\nSeat: Seat 45"#,
            "CATEGORIES:TRAIN",
            "LAST-MODIFIED:20300317T174820Z",
            "CREATED:20300317T174640Z",
            "END:VEVENT",
        ],
        "bus": [
            "BEGIN:VEVENT",
            "UID:BUS9_F1402-BerlinZOB-2031-08-01@reservoir",
            "DTSTAMP:20300317T174820Z",
            "SEQUENCE:0",
            "STATUS:CONFIRMED",
            "SUMMARY:Bus: F 1402 from Berlin ZOB to Hamburg ZOB",
            "DTSTART:20310801T080000",
            "DTEND:20310801T090000",
            "LOCATION:Berlin ZOB",
            #"DESCRIPTION:Arrival: Hamburg ZOB\nBooking reference: BUS9"#,
            "CATEGORIES:BUS",
            "LAST-MODIFIED:20300317T174820Z",
            "CREATED:20300317T174640Z",
            "END:VEVENT",
        ],
        "boat": [
            "BEGIN:VEVENT",
            "UID:FERRY1_Piraeus-2031-08-10@reservoir",
            "DTSTAMP:20300317T174820Z",
            "SEQUENCE:0",
            "STATUS:CONFIRMED",
            "SUMMARY:Boat: Blue Ferries from Piraeus to Naxos",
            "DTSTART:20310810T040000Z",
            "DTEND:20310810T094500Z",
            "LOCATION:Piraeus",
            #"DESCRIPTION:Arrival: Naxos\nBooking reference: FERRY1"#,
            "CATEGORIES:BOAT",
            "LAST-MODIFIED:20300317T174820Z",
            "CREATED:20300317T174640Z",
            "END:VEVENT",
        ],
        "hotel": [
            "BEGIN:VEVENT",
            "UID:HB-5521_1@reservoir",
            "DTSTAMP:20300317T174820Z",
            "SEQUENCE:0",
            "STATUS:CONFIRMED",
            "SUMMARY:Hotel: Harborview Hotel Boston",
            // Whole days, check-out exclusive, free; the hotel's times in the notes.
            "DTSTART;VALUE=DATE:20310603",
            "DTEND;VALUE=DATE:20310606",
            "TRANSP:TRANSPARENT",
            #"LOCATION:Harborview Hotel Boston\, 70 Rowes Wharf\, Boston\, MA"#,
            #"DESCRIPTION:Check-in: 2031-06-03 15:00\nCheck-out: 2031-06-06 11:00\nGuest: Jane Appleseed\nBooking reference: HB-5521"#,
            "CATEGORIES:LODGING",
            "LAST-MODIFIED:20300317T174820Z",
            "CREATED:20300317T174640Z",
            "END:VEVENT",
        ],
        "car": [
            "BEGIN:VEVENT",
            "UID:CAR42_1@reservoir",
            "DTSTAMP:20300317T174820Z",
            "SEQUENCE:0",
            "STATUS:CONFIRMED",
            "SUMMARY:Car rental: Hertz at SFO Rental Car Center",
            "DTSTART:20310304T180000Z",
            "DTEND:20310308T180000Z",
            "LOCATION:SFO Rental Car Center",
            #"DESCRIPTION:Car: Economy\nDrop-off: SFO Rental Car Center\nBooking reference: CAR42"#,
            "CATEGORIES:RENTAL-CAR",
            "LAST-MODIFIED:20300317T174820Z",
            "CREATED:20300317T174640Z",
            "END:VEVENT",
        ],
        "taxi": [
            "BEGIN:VEVENT",
            "UID:TX1_1@reservoir",
            "DTSTAMP:20300317T174820Z",
            "SEQUENCE:0",
            "STATUS:CONFIRMED",
            "SUMMARY:Taxi: Yellow Cab from Harborview Hotel Boston",
            "DTSTART:20310606T160000Z",
            "DTEND:20310606T170000Z",
            "LOCATION:Harborview Hotel Boston",
            "DESCRIPTION:Booking reference: TX1",
            "CATEGORIES:TAXI",
            "LAST-MODIFIED:20300317T174820Z",
            "CREATED:20300317T174640Z",
            "END:VEVENT",
        ],
        "event": [
            "BEGIN:VEVENT",
            "UID:E123_1@reservoir",
            "DTSTAMP:20300317T174820Z",
            "SEQUENCE:0",
            "STATUS:CONFIRMED",
            "SUMMARY:Taylor Swift",
            "DTSTART:20310921T020000Z",
            "DTEND:20310921T050000Z",
            #"LOCATION:AT&T Park\, San Francisco"#,
            #"DESCRIPTION:Booking reference: E123\nTicket number: TK-1"#,
            "CATEGORIES:EVENT",
            "LAST-MODIFIED:20300317T174820Z",
            "CREATED:20300317T174640Z",
            "END:VEVENT",
        ],
        "movie": [
            "BEGIN:VEVENT",
            "UID:M77_1@reservoir",
            "DTSTAMP:20300317T174820Z",
            "SEQUENCE:0",
            "STATUS:CONFIRMED",
            "SUMMARY:Arrival",
            "DTSTART:20310921T200000",
            "DTEND:20310921T230000",
            "LOCATION:Roxie",
            #"DESCRIPTION:Movie: Arrival\nBooking reference: M77"#,
            "CATEGORIES:EVENT",
            "LAST-MODIFIED:20300317T174820Z",
            "CREATED:20300317T174640Z",
            "END:VEVENT",
        ],
    ]

    @Test(
        "each category's VEVENT: the title from the details, UTC or floating times, a default end, notes, the check-in alarm",
        arguments: [
            "flight", "flight-no-checkin-time", "flight-local-times", "train", "train-local-times", "bus", "boat", "hotel", "car", "taxi", "event",
            "movie",
        ])
    func golden(_ name: String) throws {
        let fixture = try #require(Self.fixtures[name])
        let lines = try Self.vevent(fixture)
        #expect(lines == Self.goldens[name])
    }

    @Test("the JSON-LD travels as RFC 9073 STRUCTURED-DATA, escaped as TEXT, and folds back to itself")
    func structuredData() throws {
        let fixture = try #require(Self.fixtures["train"])
        let value = try #require(TolerantJSONReader.read(Array(fixture.utf8)).values.first)
        let read = ReservationReader.read([StructuredItem(value: value, source: .jsonLD)], now: nil)
        let reservation = try #require(read.reservations.first)
        let event = CalendarEvent(reservation)
        let ics = ICalendarWriter().write([
            StoredEvent(event: event, sequence: 1, createdAt: 1_900_000_000, updatedAt: 1_900_000_100)
        ])
        for line in ics.split(separator: "\r\n") { #expect(line.utf8.count <= ICalendarWriter.maxLineOctets) }
        let unfolded = ics.replacingOccurrences(of: "\r\n ", with: "")
        let prefix = "STRUCTURED-DATA;VALUE=TEXT;FMTTYPE=application/ld+json:"
        let line = try #require(unfolded.split(separator: "\r\n").first { $0.hasPrefix(prefix) })
        let text = String(line.dropFirst(prefix.count))
        #expect(text == ICalendarWriter.escape(event.reservationJSON))
        #expect(text.contains(#""trainNumber":"EC 15"\,"#))
        #expect(event.reservationJSON.contains("Zürich HB"))
    }
}
