import Markup
import Testing

@Suite struct SchemaOrgTests {
    @Test(arguments: [
        ("FlightReservation", "FlightReservation"),
        ("http://schema.org/FlightReservation", "FlightReservation"),
        ("https://schema.org/FlightReservation/", "FlightReservation"),
        ("HTTPS://SCHEMA.ORG/Event", "Event"),
        ("http://www.schema.org/Event", "Event"),
        ("schema:LodgingReservation", "LodgingReservation"),
        ("  Event ", "Event"),
    ])
    func reducesSchemaOrgNames(type: String, name: String) {
        #expect(SchemaOrg.localName(type) == name)
    }

    @Test(arguments: [
        "https://example.com/Event", "https://example.com/Event/", "http://schema.org/", "schema:", "", "foaf:Person",
        "Two Words", "\u{A0}Event", "Event\u{2028}",
    ])
    func rejectsOtherVocabularies(type: String) {
        #expect(SchemaOrg.localName(type) == nil)
    }
}
