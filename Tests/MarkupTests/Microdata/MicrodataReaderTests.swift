import JSON
import Testing

@testable import Markup

@Suite struct MicrodataReaderTests {
    @Test func readsNestedItemsAndValuesPerElement() {
        let html = """
            <div itemscope itemtype="http://schema.org/FoodEstablishmentReservation" itemid="urn:res:42">
              <meta itemprop="reservationNumber" content="  R-42 ">
              <link itemprop="reservationStatus" href="http://schema.org/ReservationConfirmed">
              <time itemprop="startTime" datetime="2027-03-01T19:00:00-08:00">March 1, 7 pm</time>
              <span itemprop="partySize">  4
                 guests </span>
              <a itemprop="url" href="https://example.com/r/42">Manage</a>
              <img itemprop="image" src="https://example.com/logo.png">
              <data itemprop="price" value="12.50">$12.50</data>
              <object itemprop="menu" data="https://example.com/menu.pdf"></object>
              <div itemprop="reservationFor" itemscope itemtype="http://schema.org/Restaurant">
                <span itemprop="name">EPIC  Steak</span>
                <div itemprop="address" itemscope itemtype="http://schema.org/PostalAddress">
                  <span itemprop="streetAddress">369 The Embarcadero</span>
                </div>
              </div>
              <time itemprop="endTime">21:00</time>
            </div>
            """
        let extraction = extract(html)
        #expect(extraction.diagnostics.isEmpty, "\(extraction.diagnostics)")
        #expect(extraction.items.map(\.source) == [.microdata])
        #expect(
            serializedItems(extraction) == [
                #"{"@type":"http://schema.org/FoodEstablishmentReservation","@id":"urn:res:42","#
                    + #""reservationNumber":"R-42","reservationStatus":"http://schema.org/ReservationConfirmed","#
                    + #""startTime":"2027-03-01T19:00:00-08:00","partySize":"4 guests","url":"https://example.com/r/42","#
                    + #""image":"https://example.com/logo.png","price":"12.50","menu":"https://example.com/menu.pdf","#
                    + #""reservationFor":{"@type":"http://schema.org/Restaurant","name":"EPIC Steak","#
                    + #""address":{"@type":"http://schema.org/PostalAddress","streetAddress":"369 The Embarcadero"}},"# + #""endTime":"21:00"}"#
            ])
    }

    @Test func collectsRepeatedPropertiesAndSeveralNamesPerAttribute() throws {
        let html = """
            <div itemscope itemtype="https://schema.org/FlightReservation https://schema.org/Reservation">
              <span itemprop="seat">12A</span><span itemprop="seat">12B</span>
              <span itemprop="name alternateName name">Trip</span>
            </div>
            """
        let item = try #require(extract(html).items.first?.value.objectValue)
        #expect(item["@type"] == .string("https://schema.org/FlightReservation"))
        #expect(item["additionalType"] == .string("https://schema.org/Reservation"))
        #expect(item["seat"] == .array([.string("12A"), .string("12B")]))
        #expect(item["name"] == .string("Trip"))
        #expect(item["alternateName"] == .string("Trip"))
    }

    @Test(arguments: ["Event", "https://schema.org/Event", "http://schema.org/Event/", "schema:Event"])
    func keepsItemTypesAsWritten(type: String) throws {
        let item = try #require(extract(#"<p itemscope itemtype="\#(type)"><b itemprop="name">Gig</b></p>"#).items.first?.value.objectValue)
        #expect(item["@type"] == .string(type))
        #expect(SchemaOrg.localName(item["@type"]?.stringValue ?? "") == "Event")
        #expect(item["name"] == .string("Gig"))
    }

    @Test func followsItemrefWithACycleGuard() throws {
        let html = """
            <div itemscope itemtype="https://schema.org/Event" itemref="venue when loop">
              <span itemprop="name">Concert</span>
            </div>
            <div id="venue" itemprop="location" itemscope itemtype="https://schema.org/Place" itemref="venue">
              <span itemprop="name">Hall</span>
            </div>
            <p id="when"><time itemprop="startDate" datetime="2027-05-01T20:00">May 1</time></p>
            <div id="loop" itemscope itemtype="https://schema.org/Thing" itemref="loop"><span itemprop="name">x</span></div>
            """
        let extraction = extract(html)
        let items = extraction.items.map(\.value)
        #expect(items.count == 2)
        let event = try #require(items.first?.objectValue)
        #expect(event["name"] == .string("Concert"))
        #expect(event["startDate"] == .string("2027-05-01T20:00"))
        let location = try #require(event["location"]?.objectValue)
        #expect(location["name"] == .string("Hall"))
        #expect(extraction.diagnostics.contains { $0.code == .microdataCycle })
        #expect(!extraction.diagnostics.contains { $0.code == .microdataOrphanProperty })
    }

    @Test func readsItemsNotReachableFromAnotherItemAsTopLevel() {
        let html = """
            <div itemprop="reservationFor" itemscope itemtype="https://schema.org/Restaurant"><span itemprop="name">A</span></div>
            <div itemscope itemtype="https://schema.org/Person"><span itemprop="name">B</span></div>
            """
        #expect(
            serializedItems(extract(html)) == [
                #"{"@type":"https://schema.org/Restaurant","name":"A"}"#,
                #"{"@type":"https://schema.org/Person","name":"B"}"#,
            ])
    }

    @Test func repairsAnItemOnAParagraphClosedByABlockElement() throws {
        let html = """
            <p itemscope itemtype="https://schema.org/FoodEstablishmentReservation">
              <div itemprop="reservationNumber">R1</div>
              <div itemprop="reservationFor" itemscope itemtype="https://schema.org/Restaurant"><span itemprop="name">Chez Nous</span></div>
            </p>
            <p>Thanks</p>
            """
        let extraction = extract(html)
        #expect(
            serializedItems(extraction) == [
                #"{"@type":"https://schema.org/FoodEstablishmentReservation","reservationNumber":"R1","#
                    + #""reservationFor":{"@type":"https://schema.org/Restaurant","name":"Chez Nous"}}"#
            ])
        #expect(extraction.diagnostics.map(\.code.rawValue) == ["microdata-repaired"])
    }

    @Test func reportsPropertiesThatBelongToNoItem() {
        let extraction = extract(#"<div itemscope></div><div><span itemprop="name">lost</span></div>"#)
        #expect(serializedItems(extraction) == ["{}"])
        #expect(extraction.diagnostics.map(\.code.rawValue) == ["microdata-orphan-property"])
    }

    @Test func boundsNestingDepth() throws {
        let depth = MarkupLimits.maximumMicrodataDepth + 5
        let html =
            "<div itemscope>" + String(repeating: #"<div itemscope itemprop="child">x"#, count: depth - 1)
            + String(repeating: "</div>", count: depth)
        let extraction = extract(html)
        #expect(extraction.items.count == 1)
        #expect(extraction.diagnostics.map(\.code.rawValue) == ["microdata-too-deep"])
    }

    @Test func readsTheContentAttributeOnOtherElements() throws {
        let html =
            #"<div itemscope itemtype="Offer"><span itemprop="price" content="1000.00">$1,000.00</span><span itemprop="priceCurrency">USD</span></div>"#
        let item = try #require(extract(html).items.first?.value.objectValue)
        #expect(item["price"] == .string("1000.00"))
        #expect(item["priceCurrency"] == .string("USD"))
    }

    @Test(arguments: [
        ("a  b\t\nc", ["a", "b", "c"]),
        (" name name ", ["name"]),
        ("", []),
    ])
    func splitsTokens(value: String, tokens: [String]) {
        #expect(MicrodataReader.tokens(value) == tokens)
    }
}

extension MicrodataReaderTests {
    @Test func repairsAParagraphItemWithInlineContentBeforeTheBlock() throws {
        let html = """
            <p itemscope itemtype="https://schema.org/Event"><span itemprop="name">Gig</span>
            <table><tr><td itemprop="startDate">2027-06-01</td></tr></table></p>
            <div><span itemprop="orphan">x</span></div>
            """
        let extraction = extract(html)
        let item = try #require(extraction.items.first?.value.objectValue)
        #expect(item["name"] == .string("Gig"))
        #expect(item["startDate"] == .string("2027-06-01"))
        #expect(extraction.diagnostics.map(\.code.rawValue).contains("microdata-repaired"))
    }
}
