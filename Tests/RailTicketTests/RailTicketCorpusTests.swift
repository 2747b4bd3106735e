import Foundation
import JSON
import Markup
import RailTicket
import Reservations
import Testing

/// The payloads scripts/make-rail-tickets writes, each read with the test railways' key list and
/// judged against the expectations written beside it.
@Suite("Rail ticket corpus")
struct RailTicketCorpusTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    static let tickets = folder.appendingPathComponent("Tickets")

    /// The clock the corpus's key uses are judged at: 2026-04-15T00:00:00Z, after every ticket's
    /// issuing but the one issued in the future.
    static let now: Int64 = 1_776_211_200

    static func keys() throws -> RailKeyList {
        try RailKeyList(path: folder.appendingPathComponent("Keys/keys.xml").path)
    }

    /// Public sample payloads (their sources and licences in Samples/SOURCES.md).
    static let samples = folder.appendingPathComponent("Samples")

    static func names(in directory: URL) -> [String] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return files.filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }.sorted()
    }

    static var names: [String] { names(in: tickets) + names(in: samples) }

    static func directory(_ name: String) -> URL { names(in: samples).contains(name) ? samples : tickets }

    static func payload(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: directory(name).appendingPathComponent(name + ".bin")))
    }

    static func value(_ item: JSONValue?, _ path: [String]) -> String? {
        var current = item
        for key in path { current = current?.objectValue?[key] }
        return current?.stringValue
    }

    @Test("the corpus is there")
    func corpusPresent() {
        #expect(Self.names(in: Self.tickets).count >= 15, "run scripts/make-rail-tickets")
        #expect(!Self.names(in: Self.samples).isEmpty)
    }

    @Test("each ticket reads as its expectation says", arguments: names)
    func ticket(_ name: String) throws {
        let expected = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: Self.directory(name).appendingPathComponent(name + ".json"))) as? [String: Any])
        let reading = RailTicket.read(try Self.payload(name), keys: try Self.keys())
        #expect(reading.signature.code == expected["signature"] as? String, "\(name): \(reading.signature)")
        if let issuer = expected["issuer"] as? String {
            guard case .verified(let signer, _, _) = reading.signature else {
                Issue.record("\(name): not verified")
                return
            }
            #expect(signer == issuer)
        }
        // Whether the verifying key may vouch for the ticket at the corpus's clock: every
        // verified ticket says so, `allowed` unless its expectation names the rule refusing it.
        if case .verified = reading.signature, let key = reading.key, let ticket = reading.ticket {
            let use: String
            switch key.use(for: ticket, now: Self.now) {
            case .allowed: use = "allowed"
            case .notValid(let failure): use = failure.rawValue
            case .notForOwner: use = "not-for-owner"
            }
            #expect(use == expected["keyUse"] as? String ?? "allowed", "\(name): key use")
        }
        #expect(reading.items.count == expected["items"] as? Int, "\(name): \(reading.items.map { $0.serialized() })")
        #expect((reading.ticket == nil) == (expected["unreadable"] as? Bool ?? false))
        let codes = Set(reading.diagnostics.map(\.code.rawValue))
        #expect(codes == Set(expected["diagnostics"] as? [String] ?? []), "\(name): \(reading.diagnostics)")
        if let records = expected["records"] as? [String] { #expect(reading.ticket?.records == records) }
        let item = reading.items.first
        let paths: [String: [String]] = [
            "reservationNumber": ["reservationNumber"],
            "trainNumber": ["reservationFor", "trainNumber"],
            "tripName": ["reservationFor", "name"],
            "departureStation": ["reservationFor", "departureStation", "name"],
            "departureStationId": ["reservationFor", "departureStation", "identifier"],
            "arrivalStation": ["reservationFor", "arrivalStation", "name"],
            "departureTime": ["reservationFor", "departureTime"],
            "arrivalTime": ["reservationFor", "arrivalTime"],
            "seatNumber": ["reservedTicket", "ticketedSeat", "seatNumber"],
            "seatSection": ["reservedTicket", "ticketedSeat", "seatSection"],
            "seatingType": ["reservedTicket", "ticketedSeat", "seatingType"],
            "underName": ["underName", "name"],
        ]
        for (field, path) in paths {
            guard let want = expected[field] as? String else { continue }
            #expect(Self.value(item, path) == want, "\(name): \(field)")
        }
        for item in reading.items { #expect(item.objectValue?["@type"]?.stringValue == "TrainReservation") }
    }

    @Test("without a key list every ticket reads, unsigned: the signature is never assumed")
    func withoutKeys() throws {
        for name in ["db-v2-layout", "fcb-v3-reservation"] {
            let reading = RailTicket.read(try Self.payload(name), keys: nil)
            #expect(reading.signature == .unsigned)
            #expect(reading.items.count == 1)
            #expect(reading.diagnostics.map(\.code) == [.railSignature])
        }
    }

    @Test("a key list of another railway only: the genuine ticket's key is unknown")
    func keyListWithoutTheRailway() throws {
        let all = try Self.keys()
        let others = RailKeyList(keys: all.keys.filter { $0.issuerCode != 1080 })
        #expect(RailTicket.read(try Self.payload("db-v2-layout"), keys: others).signature == .unknownKey)
        #expect(RailTicket.read(try Self.payload("db-v2-layout"), keys: all).signature.code == "verified")
    }

    @Test("Deutsche Bahn's 0080BL: order blocks and S blocks by their lengths")
    func dbRecord() throws {
        let db = try #require(RailTicket.read(try Self.payload("db-v2-layout"), keys: nil).ticket?.db)
        #expect(db.orders.map(\.validFrom) == ["20032026"])
        #expect(db.orders.map(\.validUntil) == ["21032026"])
        #expect(db.orders.map(\.serial) == ["1234567890"])
        #expect(db.fields["S001"] == "Flexpreis")
        #expect(db.fields["S036"] == "8011160")
    }

    @Test("the verified outcome names the railway and key of the list")
    func verifiedNames() throws {
        let reading = RailTicket.read(try Self.payload("fcb-v3-reservation"), keys: try Self.keys())
        #expect(reading.signature == .verified(issuer: "1181", name: "ÖBB", keyID: "00002"))
        #expect(reading.ticket?.fcb?.version == .v3)
        #expect(reading.ticket?.fcb?.travelers.first?.name == "Erika Mustermann")
    }

    @Test("every prefix of a ticket is refused or read without a crash; none verifies")
    func prefixes() throws {
        let bytes = try Self.payload("fcb-v3-reservation")
        let keys = try Self.keys()
        for end in 0..<bytes.count {
            let reading = RailTicket.read(Array(bytes[0..<end]), keys: keys)
            #expect(reading.signature != .verified(issuer: "1181", name: "ÖBB", keyID: "00002"))
        }
    }

    @Test(
        "a bit changed anywhere in a signed ticket never verifies: header, key id, signature, compressed data",
        arguments: ["sbb-v1", "fcb-v3-reservation", "db-v2-layout"])
    func bitFlips(_ name: String) throws {
        let bytes = try Self.payload(name)
        let keys = try Self.keys()
        guard case .verified = RailTicket.read(bytes, keys: keys).signature else {
            Issue.record("\(name): the control does not verify")
            return
        }
        for position in bytes.indices {
            var changed = bytes
            changed[position] ^= 0x01
            if case .verified = RailTicket.read(changed, keys: keys).signature { Issue.record("\(name): byte \(position) changed, still verified") }
        }
    }

    @Test("dispatch: #UT and two digits is a rail ticket; a boarding pass or text is not")
    func looksLike() throws {
        #expect(RailTicket.looksLikeRailTicket(try Self.payload("sbb-v1")))
        #expect(!RailTicket.looksLikeRailTicket(Array("M1DESMARAIS/LUC       EABC123 YULFRAAC 0834 226F001A0025 100".utf8)))
        #expect(!RailTicket.looksLikeRailTicket(Array("#UTxx".utf8)))
        #expect(!RailTicket.looksLikeRailTicket([]))
    }
}

/// The items a ticket maps to are what the reservations stage reads: one train reservation
/// each, with its start, none dropped.
@Suite("Rail ticket items through ReservationReader")
struct RailTicketReservationReaderTests {
    @Test("every item of the corpus becomes a train reservation with a start", arguments: RailTicketCorpusTests.names)
    func read(_ name: String) throws {
        let reading = RailTicket.read(try RailTicketCorpusTests.payload(name), keys: nil)
        let extraction = ReservationReader.read(reading.items.map { StructuredItem(value: $0, source: .jsonLD) }, now: nil)
        #expect(extraction.reservations.count == reading.items.count, "\(name): \(extraction.diagnostics)")
        for reservation in extraction.reservations {
            #expect(reservation.category == .train)
            #expect(reservation.start != nil)
        }
    }
}
