import Testing
@testable import Reservations

@Suite("SchemaVocabulary")
struct SchemaVocabularyTests {
    @Test("local names of schema.org type spellings", arguments: [
        ("FlightReservation", "FlightReservation"),
        ("http://schema.org/FlightReservation", "FlightReservation"),
        ("https://schema.org/FlightReservation", "FlightReservation"),
        ("https://schema.org/FlightReservation/", "FlightReservation"),
        ("HTTP://SCHEMA.ORG/FlightReservation", "FlightReservation"),
        ("http://www.schema.org/FlightReservation", "FlightReservation"),
        ("schema:FlightReservation", "FlightReservation"),
        (" FlightReservation ", "FlightReservation"),
        ("http://example.com/vocab/Thing", "http://example.com/vocab/Thing"),
        ("https://schema.org/", "https://schema.org"),
    ])
    func localName(_ raw: String, _ expected: String) {
        #expect(SchemaVocabulary.localName(raw) == expected)
    }

    @Test("subtypes count as their parent", arguments: [
        ("Restaurant", ReservationCategory.food), ("CafeOrCoffeeShop", .food), ("Hotel", .lodging),
        ("Hostel", .lodging), ("MusicEvent", .event), ("ScreeningEvent", .event), ("SportsEvent", .event),
        ("TrainTrip", .train), ("BusTrip", .bus), ("BoatTrip", .boat), ("Flight", .flight), ("Car", .rentalCar),
        ("TaxiService", .taxi),
    ])
    func reservedThings(_ type: String, _ category: ReservationCategory) {
        #expect(SchemaVocabulary.reservedThings[type] == category)
    }

    @Test("statuses that are not ReservationStatusType values", arguments: ["", "Delivered", "OrderCancelled", "schema:"])
    func unknownStatus(_ raw: String) {
        #expect(SchemaVocabulary.status(raw) == nil)
    }
}
