import Foundation
import RailTicket
import Testing

@testable import RailTicket

/// The unaligned PER reader's primitives (X.691) on hand-made bits.
@Suite("UPER reader")
struct UPERReaderTests {
    @Test("constrained integers take the fewest bits of their range, offset from the lower bound")
    func constrained() throws {
        // 1..366 needs 9 bits: 74 is offset 73 = 0b001001001; then 2016..2269 (8 bits): 2026 = 10.
        var reader = UPERReader([0b0010_0100, 0b1000_0101, 0b0000_0000])
        #expect(try reader.integer(1, 366) == 74)
        #expect(try reader.integer(2016, 2269) == 2026)
        var outside = UPERReader([0xFF])
        #expect(throws: UPERReader.Failure.self) { try outside.integer(0, 4) }
    }

    @Test("lengths: one octet below 128, two below 16384, fragments refused")
    func lengths() throws {
        var short = UPERReader([0x05])
        #expect(try short.length() == 5)
        var long = UPERReader([0x80 | 0x01, 0x00])
        #expect(try long.length() == 256)
        var fragment = UPERReader([0xC1])
        #expect(throws: UPERReader.Failure.self) { try fragment.length() }
    }

    @Test("unconstrained integers are two's complement in as many octets as the length says")
    func unconstrained() throws {
        var positive = UPERReader([0x02, 0x01, 0x00])
        #expect(try positive.unconstrainedInteger() == 256)
        var negative = UPERReader([0x01, 0xFF])
        #expect(try negative.unconstrainedInteger() == -1)
        var huge = UPERReader([0x09] + Array(repeating: 0, count: 9))
        #expect(throws: UPERReader.Failure.self) { try huge.unconstrainedInteger() }
    }

    @Test("IA5 strings are seven bits a character; a length past the data is truncated, not read")
    func strings() throws {
        // "AB": length 2, then 1000001 1000010.
        var reader = UPERReader([0x02, 0b1000_0011, 0b0000_1000])
        #expect(try reader.ia5String() == "AB")
        var past = UPERReader([0x7F, 0x41])
        #expect(throws: UPERReader.Failure.truncated) { try past.ia5String() }
    }

    @Test("a count past the limit is refused before anything is allocated")
    func counts() throws {
        var reader = UPERReader([0x80 | 0x27, 0x10])
        #expect(throws: UPERReader.Failure.self) { try reader.count(limit: RailLimits.maxFCBDocuments) }
    }
}

@Suite("Rail key list")
struct RailKeyListTests {
    static let minimal = """
        <?xml version="1.0"?>
        <keys><key><issuerName>Test</issuerName><issuerCode>1080</issuerCode><id>1</id>
        <publicKey>AAEC</publicKey><barcodeVersion>2</barcodeVersion></key>
        <key><issuerCode>1080</issuerCode><publicKey>AAEC</publicKey></key></keys>
        """

    @Test("keys are matched by railway and id as numbers; a key without an id is skipped")
    func matching() throws {
        let list = try RailKeyList(xml: Array(Self.minimal.utf8))
        #expect(list.keys.count == 1)
        #expect(list.key(signer: "1080", keyID: "00001")?.publicKey == [0, 1, 2])
        #expect(list.key(signer: "1080", keyID: "00002") == nil)
        #expect(list.key(signer: "1181", keyID: "00001") == nil)
    }

    @Test("a key marked as forged is not loaded; the same key unmarked is")
    func forged() throws {
        let marked = Self.minimal.replacingOccurrences(of: "<barcodeVersion>", with: "<keyForged>true</keyForged><barcodeVersion>")
        #expect(try RailKeyList(xml: Array(marked.utf8)).key(signer: "1080", keyID: "1") == nil)
        let unmarked = Self.minimal.replacingOccurrences(of: "<barcodeVersion>", with: "<keyForged>false</keyForged><barcodeVersion>")
        #expect(try RailKeyList(xml: Array(unmarked.utf8)).key(signer: "1080", keyID: "1") != nil)
    }

    @Test("a key's validity is read from its start and end days, both whole days in UTC; its product owners from their codes")
    func validityAndOwners() throws {
        let xml = Self.minimal.replacingOccurrences(
            of: "<barcodeVersion>",
            with: "<startDate>2018-01-01</startDate><endDate>2022-12-31+01:00</endDate><allowedProductOwnerCodes>"
                + "<productOwnerCode>1187</productOwnerCode><productOwnerName>SNCF</productOwnerName><productOwnerCode>1080</productOwnerCode>"
                + "</allowedProductOwnerCodes><barcodeVersion>")
        let key = try #require(try RailKeyList(xml: Array(xml.utf8)).key(signer: "1080", keyID: "1"))
        #expect(key.validFrom == 1_514_764_800)  // 2018-01-01T00:00:00Z
        #expect(key.validUntil == 1_672_531_200)  // 2023-01-01T00:00:00Z: the end day counts whole
        #expect(key.productOwners == [1187, 1080])
        // Absent or empty: not bounded.
        let open = try #require(try RailKeyList(xml: Array(Self.minimal.utf8)).key(signer: "1080", keyID: "1"))
        #expect(open.validFrom == nil && open.validUntil == nil && open.productOwners.isEmpty)
    }

    @Test(
        "a validity or an owner that does not read bounds the key in no known way: the key is not loaded",
        arguments: [
            "<endDate>2022-13-01</endDate>", "<startDate>31.12.2022</startDate>", "<endDate>2022-02-30</endDate>",
            "<endDate>2022-12-31T00:00:00</endDate>",
            "<allowedProductOwnerCodes><productOwnerCode>SNCF</productOwnerCode></allowedProductOwnerCodes>",
        ])
    func unreadableBounds(_ element: String) throws {
        let xml = Self.minimal.replacingOccurrences(of: "<barcodeVersion>", with: element + "<barcodeVersion>")
        #expect(try RailKeyList(xml: Array(xml.utf8)).key(signer: "1080", keyID: "1") == nil)
    }

    @Test("a key vouches for tickets issued within its validity, not after the clock, for its product owners only")
    func use() {
        let key = RailKey(
            issuerCode: 1080, keyID: 1, publicKey: [1], validFrom: 1_514_764_800, validUntil: 1_672_531_200, productOwners: [1080])
        func ticket(issued stamp: (Int, Int, Int), owner: String = "1080") -> RailTicketContent {
            var content = RailTicketContent(version: 2, signerCode: "1080", keyID: "00001")
            content.head = RailHead(
                issuerCode: owner, ticketKey: "K", day: stamp.2, month: stamp.1, year: stamp.0, hour: 12, minute: 0, flags: 0, language: "DE")
            return content
        }
        let now: Int64 = 1_776_211_200  // 2026-04-15
        #expect(key.use(for: ticket(issued: (2020, 6, 1)), now: now) == .allowed)
        #expect(key.use(for: ticket(issued: (2026, 3, 15)), now: now) == .notValid(.afterEnd))
        #expect(key.use(for: ticket(issued: (2017, 6, 1)), now: now) == .notValid(.beforeStart))
        #expect(key.use(for: ticket(issued: (2020, 6, 1), owner: "1187"), now: now) == .notForOwner(1187))
        #expect(key.use(for: RailTicketContent(version: 2, signerCode: "1080", keyID: "00001"), now: now) == .notValid(.noIssuingTime))
        // The clock: a ticket issued later than now (give or take a day) is refused by any key.
        let unbounded = RailKey(issuerCode: 1080, keyID: 1, publicKey: [1])
        #expect(key.use(for: ticket(issued: (2020, 6, 1)), now: 1_590_000_000) == .notValid(.issuedInFuture))
        #expect(unbounded.use(for: ticket(issued: (2026, 4, 15)), now: now) == .allowed)
        #expect(unbounded.use(for: ticket(issued: (2026, 4, 17)), now: now) == .notValid(.issuedInFuture))
    }

    @Test("an external entity is not loaded: the key list reads without it")
    func externalEntity() throws {
        let xml = """
            <?xml version="1.0"?>
            <!DOCTYPE keys [<!ENTITY secret SYSTEM "file:///etc/hostname">]>
            <keys><key><issuerName>&secret;</issuerName><issuerCode>1080</issuerCode><id>1</id><publicKey>AAEC</publicKey></key></keys>
            """
        let list = try RailKeyList(xml: Array(xml.utf8))
        #expect(list.keys.first?.issuerName?.isEmpty ?? true)
    }

    @Test("not XML, or XML that is not a key list, is an error, not an empty list")
    func refused() {
        #expect(throws: RailKeyListError.self) { try RailKeyList(xml: Array("<keys".utf8)) }
        #expect(throws: RailKeyListError.notAKeyList) { try RailKeyList(xml: Array("<html/>".utf8)) }
    }

    @Test("a key that is not a public key never verifies")
    func garbageKey() throws {
        let list = try RailKeyList(xml: Array(Self.minimal.utf8))
        let signature = [UInt8](repeating: 1, count: 64)
        #expect(list.verify(signer: "1080", keyID: "00001", signature: signature, data: [1, 2, 3]) == .invalid)
    }
}

@Suite("Rail signature encodings")
struct RailSignatureEncodingTests {
    @Test("DER padded with zeros is cut at its length; r‖s halves become DER with sign octets")
    func encodings() {
        let der: [UInt8] = [0x30, 0x06, 0x02, 0x01, 0x05, 0x02, 0x01, 0x07]
        #expect(RailSignatureVerifier.derSignature(der + [0, 0, 0], half: 32) == der)
        let raw = [UInt8](repeating: 0, count: 31) + [0x85] + [UInt8](repeating: 0, count: 31) + [0x07]
        #expect(RailSignatureVerifier.derSignature(raw, half: 32) == [0x30, 0x07, 0x02, 0x02, 0x00, 0x85, 0x02, 0x01, 0x07])
        #expect(RailSignatureVerifier.derSignature([0x30, 0x06, 1, 2], half: 32) == nil)
    }
}

@Suite("a station's country from its UIC code")
struct RailStationCountryTests {
    @Test("the first two digits name the country (UIC leaflet 920-14); a code of another length, or a country of several offsets, none")
    func countries() {
        #expect(RailReservations.country("8100003") == "AT")
        #expect(RailReservations.country("8503000") == "CH")
        #expect(RailReservations.country("8000105") == "DE")
        #expect(RailReservations.country("7100000") == nil, "Spain keeps the Canaries an hour behind")
        #expect(RailReservations.country("810000") == nil)
        #expect(RailReservations.country("81000031") == nil)
    }
}
