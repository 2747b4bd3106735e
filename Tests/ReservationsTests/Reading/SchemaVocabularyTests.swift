import JSON
import Markup
import Testing

@testable import Reservations

@Suite("SchemaVocabulary")
struct SchemaVocabularyTests {
    @Test(
        "local names of schema.org type spellings",
        arguments: [
            ("FlightReservation", "FlightReservation"),
            ("http://schema.org/FlightReservation", "FlightReservation"),
            ("https://schema.org/FlightReservation", "FlightReservation"),
            ("https://schema.org/FlightReservation/", "FlightReservation"),
            ("HTTP://SCHEMA.ORG/FlightReservation", "FlightReservation"),
            ("http://www.schema.org/FlightReservation", "FlightReservation"),
            ("schema:FlightReservation", "FlightReservation"),
            (" FlightReservation ", "FlightReservation"),
            ("http://example.com/vocab/Thing", "http://example.com/vocab/Thing"),
        ])
    func name(_ raw: String, _ expected: String) {
        #expect(SchemaVocabulary.name(raw) == expected)
    }

    /// The reader once reduced type names by a rule of its own, which disagreed with the one
    /// the markup stage (`SchemaOrg.localName`) reads keys and deduplicates items by. The one
    /// rule: an IRI of another vocabulary is another name, slash and all (JSON-LD compares
    /// IRIs as written); the vocabulary's own URL names no type; around a name, only ASCII
    /// whitespace is space (HTML's rule; JSON-LD trims none), so a no-break space makes it
    /// another name, which no category matches.
    @Test(
        "type names are read by the markup stage's rule",
        arguments: [
            ("http://example.com/vocab/Thing/", "http://example.com/vocab/Thing/"),
            ("https://schema.org/", "https://schema.org/"),
            ("schema:", "schema:"),
            ("\u{A0}LodgingReservation", "\u{A0}LodgingReservation"),
            ("LodgingReservation\u{2028}", "LodgingReservation\u{2028}"),
            ("\tLodgingReservation\n", "LodgingReservation"),
        ])
    func nameAsTheMarkupStageReadsIt(_ raw: String, _ expected: String) throws {
        #expect(SchemaVocabulary.name(raw) == expected)
        #expect(SchemaVocabulary.name(raw) == SchemaOrg.localName(raw) ?? raw)
        let node = SchemaNode(JSONObject(pairs: [("@type", .string(raw))]))
        #expect(node.types == [expected])
        #expect(SchemaVocabulary.reservationTypes[node.types[0]] == (expected == "LodgingReservation" ? .lodging : nil))
    }

    @Test(
        "subtypes count as their parent",
        arguments: [
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
