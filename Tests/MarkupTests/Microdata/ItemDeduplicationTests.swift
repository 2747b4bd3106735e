import JSON
import Testing

@testable import Markup

@Suite struct ItemDeduplicationTests {
    @Test func keepsTheJSONLDCopyOfAnItemGivenBothWays() {
        let html = """
            <script type="application/ld+json">
            {"@context": "http://schema.org", "@type": "FoodEstablishmentReservation", "reservationNumber": "R1",
             "partySize": 2, "reservationFor": {"@type": "FoodEstablishment", "name": "Chez Nous"}}
            </script>
            <div itemscope itemtype="http://schema.org/FoodEstablishmentReservation">
              <meta itemprop="reservationNumber" content="R1">
              <meta itemprop="partySize" content="2">
              <div itemprop="reservationFor" itemscope itemtype="https://schema.org/FoodEstablishment">
                <span itemprop="name"> Chez Nous </span>
              </div>
            </div>
            """
        let extraction = extract(html)
        #expect(extraction.items.map(\.source) == [.jsonLD])
        #expect(extraction.items.first?.value.objectValue?["partySize"] == .number(2))
        #expect(extraction.diagnostics.map(\.code.rawValue) == ["duplicate-item"])
    }

    @Test func keepsAnItemGivenTwiceOnce() {
        let script = #"<script type="application/ld+json">{"@type": "EventReservation", "reservationNumber": "E1"}</script>"#
        let extraction = extract(script + "<p>text</p>" + script + script)
        #expect(extraction.items.count == 1)
        #expect(
            extraction.diagnostics == [
                MarkupDiagnostic(code: .duplicateItem, message: "a repeat of an earlier json-ld EventReservation is left out (2 times)")
            ])
    }

    @Test func keepsItemsThatDiffer() {
        let html = """
            <script type="application/ld+json">{"@type": "FoodEstablishmentReservation", "reservationNumber": "R1"}</script>
            <div itemscope itemtype="http://schema.org/FoodEstablishmentReservation"><meta itemprop="reservationNumber" content="R2"></div>
            """
        let extraction = extract(html)
        #expect(extraction.items.map(\.source) == [.jsonLD, .microdata])
        #expect(extraction.diagnostics.isEmpty)
    }

    @Test(arguments: [
        (#"{"@context":"https://schema.org","@type":"Event","n":[1]}"#, #"{"@type":"http://schema.org/Event","n":"1"}"#),
        (#"{"b":true,"a":" x "}"#, #"{"a":"x","b":"true"}"#),
        (#"{"http://schema.org/name":"x"}"#, #"{"name":"x"}"#),
    ])
    func normalizesEquivalentForms(lhs: String, rhs: String) throws {
        let left = try #require(TolerantJSONReader.read(Array(lhs.utf8)).values.first)
        let right = try #require(TolerantJSONReader.read(Array(rhs.utf8)).values.first)
        #expect(ItemDeduplication.normalized(left) == ItemDeduplication.normalized(right))
    }
}
