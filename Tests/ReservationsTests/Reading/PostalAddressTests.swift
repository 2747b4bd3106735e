import Markup
import Testing

@testable import Reservations

@Suite("PostalAddress")
struct PostalAddressTests {
    @Test(
        "one-line addresses",
        arguments: [
            (
                #"{"address": {"streetAddress": "369 The Embarcadero", "addressLocality": "San Francisco", "addressRegion": "CA", "postalCode": "94105", "addressCountry": "US"}}"#,
                "369 The Embarcadero, San Francisco, CA 94105, US"
            ),
            (
                #"{"address": {"streetAddress": "Bahnhofplatz 1", "postalCode": "8001", "addressLocality": "Zürich", "addressCountry": {"@type": "Country", "name": "Switzerland"}}}"#,
                "Bahnhofplatz 1, 8001 Zürich, Switzerland"
            ),
            (#"{"address": {"addressLocality": "Boston"}}"#, "Boston"),
            (#"{"address": "70 Rowes Wharf,\n Boston"}"#, "70 Rowes Wharf, Boston"),
            (#"{"address": {"name": "Terminal 2"}}"#, "Terminal 2"),
        ])
    func formatted(_ json: String, _ expected: String) throws {
        let node = try #require(SchemaNode(try JSONFixture.parse(json)))
        #expect(PostalAddress(node)?.formatted == expected)
    }

    @Test("no address", arguments: [#"{}"#, #"{"address": {}}"#, #"{"address": "  "}"#, #"{"address": []}"#])
    func none(_ json: String) throws {
        let node = try #require(SchemaNode(try JSONFixture.parse(json)))
        #expect(PostalAddress(node) == nil)
    }
}
