import JSON
import Markup
import Testing

@testable import Reservations

@Suite("ReservationReader")
struct ReservationReaderTests {
    static func dinner(
        type: String = "FoodEstablishmentReservation", status: String? = nil, id: String = "IWDSCA",
        start: String = "2031-05-12T19:30:00-07:00", end: String? = nil
    ) -> String {
        let statusMember = status.map { "\"reservationStatus\": \"\($0)\"," } ?? ""
        let endMember = end.map { "\"endTime\": \"\($0)\"," } ?? ""
        return """
            {"@context": "https://schema.org", "@type": "\(type)", "reservationId": "\(id)", \(statusMember) \(endMember)
             "startTime": "\(start)", "reservationFor": {"@type": "Restaurant", "name": "EPIC Steak"}}
            """
    }

    @Test(
        "cancelled in every schema.org spelling",
        arguments: [
            "ReservationCancelled", "http://schema.org/ReservationCancelled", "https://schema.org/ReservationCancelled",
            "https://schema.org/ReservationCancelled/", "schema:ReservationCancelled", "http://schema.org/Cancelled",
            "Cancelled", "https://www.schema.org/ReservationCancelled", " ReservationCancelled ",
        ])
    func cancelledSpellings(_ spelling: String) throws {
        let extraction = try JSONFixture.read(Self.dinner(status: spelling))
        let r = try #require(extraction.reservations.first)
        #expect(r.status == .cancelled)
        #expect(extraction.diagnostics.isEmpty)
        #expect(r.json.objectValue?["reservationStatus"] == .string("https://schema.org/ReservationCancelled"))
    }

    @Test(
        "every status",
        arguments: [
            ("http://schema.org/ReservationConfirmed", ReservationStatus.confirmed),
            ("http://schema.org/Confirmed", .confirmed),
            ("ReservationPending", .pending),
            ("schema:ReservationHold", .hold),
            ("https://schema.org/ReservationCancelled", .cancelled),
        ])
    func statuses(_ spelling: String, _ expected: ReservationStatus) throws {
        let r = try #require(try JSONFixture.read(Self.dinner(status: spelling)).reservations.first)
        #expect(r.status == expected)
    }

    @Test("a missing status is confirmed; an unknown one too, with invalid-value")
    func missingAndUnknownStatus() throws {
        #expect(try JSONFixture.read(Self.dinner()).reservations.first?.status == .confirmed)
        let odd = try JSONFixture.read(Self.dinner(status: "Maybe"))
        #expect(odd.reservations.first?.status == .confirmed)
        #expect(odd.codes == ["invalid-value"])
    }

    @Test(
        "type names: bare, http, https, trailing slash, schema: prefix",
        arguments: [
            "FoodEstablishmentReservation", "http://schema.org/FoodEstablishmentReservation",
            "https://schema.org/FoodEstablishmentReservation", "https://schema.org/FoodEstablishmentReservation/",
            "schema:FoodEstablishmentReservation",
        ])
    func typeSpellings(_ type: String) throws {
        let extraction = try JSONFixture.read(Self.dinner(type: type))
        let r = try #require(extraction.reservations.first)
        #expect(r.category == .food)
        #expect(r.schemaType == "FoodEstablishmentReservation")
        #expect(r.json.objectValue?["@type"] == .string("FoodEstablishmentReservation"))
    }

    @Test("an @type array containing a reservation type")
    func typeArray() throws {
        let extraction = try JSONFixture.read(
            """
            {"@type": ["Thing", "https://schema.org/LodgingReservation"], "reservationNumber": "A1",
             "checkinDate": "2031-06-03", "reservationFor": {"@type": ["Hotel", "LocalBusiness"], "name": "Inn"}}
            """)
        let r = try #require(extraction.reservations.first)
        #expect(r.category == .lodging)
        #expect(r.json.objectValue?["@type"] == .array([.string("Thing"), .string("LodgingReservation")]))
    }

    @Test("a reservation inside an EmailMessage's about")
    func emailMessageWrapper() throws {
        let extraction = try JSONFixture.read(
            """
            {"@context": "http://schema.org", "@type": "EmailMessage", "description": "Your table",
             "about": \(Self.dinner())}
            """)
        let r = try #require(extraction.reservations.first)
        #expect(extraction.codes == ["missing-status"])
        #expect(r.title == "EPIC Steak")
        // The output is the reservation itself, not the wrapper.
        #expect(r.json.objectValue?["@type"] == .string("FoodEstablishmentReservation"))
        #expect(r.json.objectValue?["@context"] == .string("https://schema.org"))
    }

    @Test("reservations inside an Order, an @graph and a generic Reservation")
    func otherWrappers() throws {
        let extraction = try JSONFixture.read(
            """
            {"@type": "Order", "orderNumber": "O-1", "orderedItem": [{"@type": "OrderItem", "orderedItem": \(Self.dinner(id: "A"))}]}
            """,
            """
            {"@context": "https://schema.org", "@graph": [{"@type": "Organization", "name": "EPIC"}, \(Self.dinner(id: "B"))]}
            """,
            """
            {"@type": "Reservation", "reservationNumber": "C",
             "reservationFor": {"@type": "MusicEvent", "name": "Jazz Night", "startDate": "2031-05-20T21:00:00+01:00"}}
            """)
        #expect(extraction.reservations.map(\.reservationID) == ["A", "B", "C"])
        #expect(extraction.reservations.last?.category == .event)
        #expect(extraction.reservations.last?.schemaType == "Reservation")
        #expect(extraction.codes == ["missing-status", "missing-status", "missing-status"])
    }

    @Test("items that are not reservations get unknown-type")
    func unknownType() throws {
        let extraction = try JSONFixture.read(
            #"{"@type": "Organization", "name": "Harborview Hotels", "url": "https://harborview.example"}"#,
            #"{"@type": "https://schema.org/MedicalReservation", "reservationNumber": "M1"}"#,
            #"{"name": "no type at all"}"#)
        #expect(extraction.reservations.isEmpty)
        #expect(extraction.codes == ["unsupported-type", "unsupported-type", "unsupported-type"])
        #expect(extraction.diagnostics[0].message.contains("Organization"))
        #expect(extraction.diagnostics[1].message.contains("MedicalReservation"))
    }

    @Test("a reservation that ended before now is skipped; with now == nil it is kept")
    func ended() throws {
        let past = Self.dinner(start: "2031-05-12T19:30:00-07:00", end: "2031-05-12T21:30:00-07:00")
        let afterEnd: Int64 = 1_936_405_800 + 3 * 3600
        let skipped = try JSONFixture.read(past, now: afterEnd)
        #expect(skipped.reservations.isEmpty)
        #expect(skipped.codes == ["missing-status", "ended"])

        let during = try JSONFixture.read(past, now: 1_936_405_800 + 3600)
        #expect(during.reservations.count == 1)
        #expect(try JSONFixture.read(past, now: nil).reservations.count == 1)
    }

    @Test("without an end, the start decides; a floating time counts at its latest")
    func endedByStart() throws {
        let withOffset = Self.dinner(start: "2031-05-12T19:30:00-07:00")
        #expect(try JSONFixture.read(withOffset, now: 1_936_405_801).codes == ["missing-status", "ended"])
        #expect(try JSONFixture.read(withOffset, now: 1_936_405_799).reservations.count == 1)

        // 19:30 wall-clock could be as late as 19:30 at UTC−12, so it is not over at 19:30 UTC.
        let floating = Self.dinner(start: "2031-05-12T19:30:00")
        let atUTC = try JSONFixture.read(floating, now: 1_936_380_600 + 60)
        #expect(atUTC.reservations.count == 1)
        #expect(atUTC.codes == ["missing-timezone", "missing-status"])
        let dayLater = try JSONFixture.read(floating, now: 1_936_380_600 + 86_400)
        #expect(dayLater.codes == ["missing-timezone", "missing-status", "ended"])
    }

    @Test("the same key twice in one message keeps the first")
    func duplicate() throws {
        let extraction = try JSONFixture.read(Self.dinner(), Self.dinner(start: "2031-05-12T20:30:00-07:00"))
        #expect(extraction.reservations.count == 1)
        #expect(extraction.reservations.first?.start?.text == "2031-05-12T19:30:00-07:00")
        #expect(extraction.codes == ["missing-status", "missing-status", "duplicate-item-reference"])
    }

    @Test("booking number precedence and a derived key when there is none")
    func reservationIDs() throws {
        let both = try JSONFixture.read(
            """
            {"@type": "FoodEstablishmentReservation", "reservationId": "ID1", "reservationNumber": "NUM1", "@id": "https://x.example/r/1",
             "startTime": "2031-05-12T19:30:00-07:00", "reservationFor": {"@type": "Restaurant", "name": "EPIC Steak"}}
            """)
        #expect(both.reservations.first?.reservationID == "ID1")
        let onlyID = try JSONFixture.read(
            """
            {"@type": "FoodEstablishmentReservation", "@id": "https://x.example/r/1",
             "startTime": "2031-05-12T19:30:00-07:00", "reservationFor": {"@type": "Restaurant", "name": "EPIC Steak"}}
            """)
        #expect(onlyID.reservations.first?.reservationID == "https://x.example/r/1")

        let none = """
            {"@type": "FoodEstablishmentReservation",
             "startTime": "2031-05-12T19:30:00-07:00", "reservationFor": {"@type": "Restaurant", "name": "EPIC Steak"}}
            """
        let first = try JSONFixture.read(none)
        let again = try JSONFixture.read(none)
        let derived = try #require(first.reservations.first?.reservationID)
        #expect(derived.hasPrefix("derived-"))
        #expect(derived == again.reservations.first?.reservationID)
        #expect(first.codes == ["missing-status", "missing-reservation-id"])
    }

    @Test("a cancellation without times is kept so the stored event can be cancelled")
    func cancellationWithoutTime() throws {
        let extraction = try JSONFixture.read(
            """
            {"@type": "FoodEstablishmentReservation", "reservationId": "IWDSCA", "reservationStatus": "ReservationCancelled",
             "reservationFor": {"@type": "Restaurant", "name": "EPIC Steak"}}
            """)
        let r = try #require(extraction.reservations.first)
        #expect(r.status == .cancelled)
        #expect(r.start == nil)
        #expect(extraction.diagnostics.isEmpty)
    }

    @Test("no more than the per-message limit of reservations")
    func limit() throws {
        let many = (0..<(ReservationLimits.reservationsPerMessage + 5)).map { Self.dinner(id: "R\($0)") }
        let items = try many.map { StructuredItem(value: try JSONFixture.parse($0), source: .jsonLD) }
        let extraction = ReservationReader.read(items, now: nil)
        #expect(extraction.reservations.count == ReservationLimits.reservationsPerMessage)
        #expect(extraction.codes.filter { $0 != "missing-status" } == ["limit-exceeded"])
    }

    @Test(
        "hostile shapes never trap",
        arguments: [
            "null", "[]", "{}", "42", #""FlightReservation""#, #"{"@type": 7}"#, #"{"@type": []}"#,
            #"{"@type": "FlightReservation"}"#, #"{"@type": "FlightReservation", "reservationFor": "a flight"}"#,
            #"{"@type": "FlightReservation", "reservationFor": {"departureTime": ["x", 3, null]}}"#,
            #"{"@type": "LodgingReservation", "reservationFor": [], "checkinDate": {"@value": "2031-01-01"}}"#,
            #"{"@type": "EmailMessage", "about": {"@type": "EmailMessage", "about": {"@type": "EmailMessage", "about": {"@type": "EmailMessage", "about": {"@type": "EmailMessage", "about": {"@type": "EmailMessage", "about": {"@type": "EmailMessage", "about": {"@type": "EmailMessage", "about": {"@type": "EmailMessage", "about": {"@type": "EmailMessage"}}}}}}}}}}"#,
        ])
    func hostile(_ text: String) throws {
        let extraction = try JSONFixture.read(text)
        #expect(extraction.reservations.isEmpty)
        #expect(!extraction.diagnostics.isEmpty)
    }
}
