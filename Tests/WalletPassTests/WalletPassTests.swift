import Foundation
import JSON
import PassTestSupport
import TestRequirements
import Testing
import Zip

@testable import WalletPass

/// Passes made with openssl: verified with their issuer, or refused with the reason, for each
/// way a pass can be wrong.
@Suite(
    "Wallet passes: reading and verification",
    .enabled(if: Requirement.met(PassFactory.available), "openssl is not installed (apt-get install openssl)"))
struct WalletPassTests {
    static let factory = Result { try PassFactory() }
    static let signer = Result {
        try factory.get().signer(passType: SamplePassJSON.passType, team: SamplePassJSON.team, organization: "Cascadia Air")
    }
    /// The clock of these tests: the real time, since openssl stamps the signing time with it.
    static let now = Int64(Date().timeIntervalSince1970)

    static func read(_ bytes: [UInt8], anchors: [String]? = nil) throws -> WalletPass {
        WalletPass.read(bytes, anchors: PassTrustAnchors(paths: try anchors ?? [factory.get().caPath]), now: now)
    }

    @Test("a pass signed under the configured CA is verified, with its issuer from the certificate")
    func verified() throws {
        let bytes = try Self.factory.get().pass(json: SamplePassJSON.boarding(), signer: Self.signer.get())
        let pass = try Self.read(bytes)
        guard case .verified(let signer) = pass.verification else {
            Issue.record("not verified: \(pass.verification)")
            return
        }
        #expect(signer.passTypeIdentifier == SamplePassJSON.passType)
        #expect(signer.teamIdentifier == SamplePassJSON.team)
        #expect(signer.organization == "Cascadia Air")
        #expect(signer.signedAt.map { abs($0 - Self.now) < 3600 } == true)
        let flight = try #require(pass.items.first?.objectValue)
        #expect(flight["reservationNumber"] == .string("7Q2XKD"))
        #expect(flight["reservationFor"]?.objectValue?["departureAirport"]?.objectValue?["iataCode"] == .string("SFO"))
        #expect(flight["reservationFor"]?.objectValue?["departureTime"] == .string("2031-03-14T08:40:00-07:00"))
        #expect(pass.diagnostics.map(\.code) == [.bcbpYear])
    }

    @Test("without signed attributes the chain is checked at the clock")
    func withoutAttributes() throws {
        let bytes = try Self.factory.get().pass(json: SamplePassJSON.boarding(), signer: Self.signer.get(), attributes: false)
        guard case .verified(let signer) = try Self.read(bytes).verification else {
            Issue.record("not verified")
            return
        }
        #expect(signer.signedAt == nil)
    }

    @Test("pass.json changed after signing: its digest no longer matches")
    func tampered() throws {
        let bytes = try Self.factory.get().pass(json: SamplePassJSON.boarding(), signer: Self.signer.get()) { files in
            files["pass.json"] = Array(SamplePassJSON.boarding(relevantDate: "2031-03-15T08:40:00-07:00").utf8)
        }
        #expect(try Self.read(bytes).verification == .failed(.manifestMismatch(file: "pass.json")))
    }

    @Test("a file added after signing is not in the manifest")
    func addedFile() throws {
        let bytes = try Self.factory.get().pass(json: SamplePassJSON.boarding(), signer: Self.signer.get()) { files in
            files["logo.png"] = [1, 2, 3]
        }
        #expect(try Self.read(bytes).verification == .failed(.manifestMismatch(file: "logo.png")))
    }

    @Test("a signer under another CA does not chain to the configured one")
    func otherCA() throws {
        let other = try PassFactory(caName: "Someone Else's CA")
        let signer = try other.signer(passType: SamplePassJSON.passType, team: SamplePassJSON.team, organization: "Cascadia Air")
        let bytes = try other.pass(json: SamplePassJSON.boarding(), signer: signer)
        guard case .failed(.chainNotTrusted) = try Self.read(bytes).verification else {
            Issue.record("not refused for its chain")
            return
        }
    }

    @Test("pass.json naming another team than the certificate")
    func identityMismatch() throws {
        let bytes = try Self.factory.get().pass(json: SamplePassJSON.boarding(team: "EVIL00000"), signer: Self.signer.get())
        guard case .failed(.identityMismatch) = try Self.read(bytes).verification else {
            Issue.record("not refused for its identity")
            return
        }
    }

    @Test("a 1024-bit RSA signer is refused")
    func weakKey() throws {
        let weak = try Self.factory.get().signer(
            passType: SamplePassJSON.passType, team: SamplePassJSON.team, organization: "Cascadia Air", bits: 1024)
        let bytes = try Self.factory.get().pass(json: SamplePassJSON.boarding(), signer: weak)
        #expect(try Self.read(bytes).verification == .failed(.weakKey(bits: 1024)))
    }

    @Test("without --pass-ca nothing vouches for a pass")
    func noAnchors() throws {
        let bytes = try Self.factory.get().pass(json: SamplePassJSON.boarding(), signer: Self.signer.get())
        #expect(try Self.read(bytes, anchors: []).verification == .failed(.noAnchors))
    }

    @Test("a zip bomb inside a pass: the pass is shown from pass.json but not verified")
    func bombInside() throws {
        let zeros = [UInt8](repeating: 0, count: 4 << 20)
        let bytes = try Self.factory.get().pass(json: SamplePassJSON.boarding(), signer: Self.signer.get()) { files in
            files["strip.png"] = zeros
        }
        let pass = try Self.read(bytes)
        #expect(pass.verification == .failed(.unreadable))
        #expect(pass.zipDiagnostics.map(\.code) == [.zipBomb])
        #expect(pass.items.count == 1)
    }

    @Test("a truncated pass reads nothing and traps nowhere")
    func truncated() throws {
        let bytes = try Self.factory.get().pass(json: SamplePassJSON.boarding(), signer: Self.signer.get())
        for end in stride(from: 0, to: bytes.count, by: 7) {
            let pass = try Self.read(Array(bytes[0..<end]))
            #expect(pass.verification != .failed(.noAnchors))
            if case .verified = pass.verification { Issue.record("a pass cut at \(end) verified") }
        }
    }

    @Test("an event ticket, a store card, a voided pass")
    func styles() throws {
        let event = """
            {"passTypeIdentifier": "pass.example.tickets", "teamIdentifier": "T", "organizationName": "Arena", "serialNumber": "TK-1",
             "relevantDate": "2031-05-02T19:30:00+02:00", "voided": true,
             "eventTicket": {"primaryFields": [{"key": "event", "label": "EVENT", "value": "Spring Concert"}],
               "secondaryFields": [{"key": "venue", "label": "VENUE", "value": "Hallenstadion"}, {"key": "seat", "value": "14"}, {"key": "row", "value": "F"}]}}
            """
        let content = try #require(PassContent(TolerantJSONReader.read(Array(event.utf8)).values[0]))
        let ticket = PassReservations(content, signedAt: nil, now: 1_795_348_800)
        let object = ticket.items.first?.objectValue
        #expect(object?["@type"] == .string("EventReservation"))
        #expect(object?["reservationStatus"] == .string("https://schema.org/ReservationCancelled"))
        #expect(object?["reservationFor"]?.objectValue?["name"] == .string("Spring Concert"))
        let card = #"{"passTypeIdentifier": "pass.example.card", "storeCard": {"primaryFields": []}}"#
        let cardContent = PassContent(TolerantJSONReader.read(Array(card.utf8)).values[0])
        let reading = cardContent.map { PassReservations($0, signedAt: nil, now: 1_795_348_800) }
        #expect(reading?.items.isEmpty == true)
        #expect(reading?.diagnostics.map(\.code) == [.passNotReservation])
    }
}

/// pass.json to schema.org: the transit types and a bar code of several legs.
@Suite("Wallet passes: what a pass becomes")
struct PassMappingTests {
    static func reservations(_ json: String, signedAt: Int64? = nil, now: Int64 = 1_795_348_800) -> PassReservations? {
        TolerantJSONReader.read(Array(json.utf8)).values.first.flatMap(PassContent.init).map {
            PassReservations($0, signedAt: signedAt, now: now)
        }
    }

    @Test("a train pass: stations from the fields' labels, train number, coach and seat")
    func train() throws {
        let json = """
            {"organizationName": "Rail Alpina", "serialNumber": "RA-1", "relevantDate": "2031-07-01T09:33:00+02:00",
             "boardingPass": {"transitType": "PKTransitTypeTrain",
               "primaryFields": [{"key": "from", "label": "Zürich HB", "value": "ZUE"}, {"key": "to", "label": "Milano Centrale", "value": "MIC"}],
               "auxiliaryFields": [{"key": "train", "value": "EC 15"}, {"key": "coach", "value": "7"}, {"key": "seat", "value": "47"},
                                   {"key": "confirmationCode", "value": "RA7Q2X"}]}}
            """
        let item = try #require(Self.reservations(json)?.items.first?.objectValue)
        #expect(item["@type"] == .string("TrainReservation"))
        #expect(item["reservationNumber"] == .string("RA7Q2X"))
        let trip = try #require(item["reservationFor"]?.objectValue)
        #expect(trip["departureStation"]?.objectValue?["name"] == .string("Zürich HB (ZUE)"))
        #expect(trip["trainNumber"] == .string("EC 15"))
        #expect(trip["departureTime"] == .string("2031-07-01T09:33:00+02:00"))
    }

    @Test("a bar code with two legs: two flights, the second a whole day, the year from the signing time")
    func twoLegs() throws {
        let code = "M2DESMARAIS/LUC       EABC123 YULFRAAC 0834 326J001A0025 100DEF456 FRAGVALH 3664 327C012C0002 100"
        let json = #"{"organizationName": "Air Canada", "boardingPass": {"transitType": "PKTransitTypeAir"}, "barcodes": [{"message": "\#(code)"}]}"#
        // Signed 2030-10-29T00:00:00Z.
        let reading = try #require(Self.reservations(json, signedAt: 1_919_462_400))
        #expect(reading.items.count == 2)
        let second = try #require(reading.items.last?.objectValue?["reservationFor"]?.objectValue)
        #expect(second["flightNumber"] == .string("3664"))
        #expect(second["departureTime"] == .string("2030-11-23"))
        #expect(reading.diagnostics.map(\.detail) == ["signing-time", "signing-time"])
        #expect(!reading.unsignedYear)
    }

    /// Day 326 of the bar codes: 22 November, 21 November in a leap year.
    static let dayOnly = "M1DESMARAIS/LUC       EABC123 YULFRAAC 0834 326J001A0025 100"
    /// The same day, and an issue date: day 325 of a year ending in 6.
    static let withIssueDate =
        "M1DESMARAIS/LUC       EABC123 YULFRAAC 0834 326J001A0025 136>60B1WW6325BAC 25014123456789000AC AC 1234567890123   "

    @Test(
        "a bar code's year comes from what the issuer signed, first found first; the clock only when nothing is, and then unsigned",
        arguments: [
            // relevantDate beats every other evidence.
            (
                withIssueDate, #""relevantDate": "2031-11-20T10:00:00-05:00", "expirationDate": "2035-11-30T00:00:00Z","#,
                #"{"key": "departureDate", "value": "2033-11-21T09:00:00-05:00"}"#, Int64?(2_110_968_000), "relevant-date", "2031-11-22"
            ),
            // A departure date of the fields beats the bar code and the signature.
            (withIssueDate, "", #"{"key": "departureDate", "value": "2033-11-21T09:00:00-05:00"}"#, 2_110_968_000, "field-date", "2033-11-22"),
            // The issue date, its decade from the signing time (2036-11-22): 2036 is a leap year.
            (withIssueDate, #""expirationDate": "2035-11-30T00:00:00Z","#, "", 2_110_968_000, "issue-date", "2036-11-21"),
            // The signing time (2034-11-01).
            (dayOnly, #""expirationDate": "2035-11-30T00:00:00Z","#, "", 2_045_995_200, "signing-time", "2034-11-22"),
            // The expiration date, without a signing time.
            (dayOnly, #""expirationDate": "2035-11-30T00:00:00Z","#, "", nil, "expiration-date", "2035-11-22"),
            // The issue date, its decade from the clock (2037-01-10): the same issue year for ten years.
            (withIssueDate, "", "", nil, "issue-date", "2036-11-21"),
            // Nothing signed dates it: the clock (2037-01-10), unsigned.
            (dayOnly, "", "", nil, "clock", "2036-11-21"),
        ])
    func yearEvidence(code: String, dates: String, field: String, signedAt: Int64?, evidence: String, departure: String) throws {
        let json = """
            {"organizationName": "Air Canada", \(dates) "barcodes": [{"message": "\(code)"}],
             "boardingPass": {"transitType": "PKTransitTypeAir", "auxiliaryFields": [\(field)]}}
            """
        let reading = try #require(Self.reservations(json, signedAt: signedAt, now: 2_115_201_600))
        #expect(reading.diagnostics.map(\.code) == [.bcbpYear])
        #expect(reading.diagnostics.first?.detail == evidence)
        let flight = try #require(reading.items.first?.objectValue?["reservationFor"]?.objectValue)
        #expect(flight["departureTime"]?.stringValue?.hasPrefix(departure) == true, "\(String(describing: flight["departureTime"]))")
        #expect(reading.unsignedYear == (evidence == "clock"))
    }

    @Test("a bar code that does not read: the fields instead, with a note")
    func brokenBarcode() throws {
        let json =
            #"{"boardingPass": {"transitType": "PKTransitTypeAir", "primaryFields": [{"key": "origin", "value": "SFO"}]}, "barcode": {"message": "M1SHORT"}}"#
        let reading = try #require(Self.reservations(json))
        #expect(reading.diagnostics.map(\.code) == [.bcbpInvalid])
        #expect(reading.items.first?.objectValue?["reservationFor"]?.objectValue?["departureAirport"]?.objectValue?["iataCode"] == .string("SFO"))
    }
}

/// The pass of Maildir-samples, signed by the sample CA that ships with them.
@Suite("Wallet passes: the sample pass")
struct SamplePassTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test("verifies under Maildir-samples/pass-ca.pem as Cascadia Air's boarding pass type")
    func samplePass() throws {
        let bytes = try [UInt8](Data(contentsOf: Self.root.appendingPathComponent("scripts/samples/cascadia-air-boarding.pkpass")))
        let anchors = PassTrustAnchors(paths: [Self.root.appendingPathComponent("Maildir-samples/pass-ca.pem").path])
        let pass = WalletPass.read(bytes, anchors: anchors, now: 1_795_348_800)
        #expect(
            pass.verification
                == .verified(
                    PassSigner(
                        passTypeIdentifier: "pass.example.cascadia-air.boarding", teamIdentifier: "C4SC4D1A77", organization: "Cascadia Air",
                        signedAt: nil)))
    }
}
