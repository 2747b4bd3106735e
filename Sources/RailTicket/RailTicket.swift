internal import CZlib
public import JSON
import ReservoirBase

/// The `U_HEAD` record (UIC 918.3 annex A): who issued the ticket, its key, when.
public struct RailHead: Sendable, Equatable {
    public var issuerCode: String
    public var ticketKey: String
    /// The issuing time as printed: `DDMMYYYYHHMM`, split.
    public var day: Int, month: Int, year: Int, hour: Int, minute: Int
    public var flags: Int
    public var language: String
}

/// One field of a `U_TLAY` ticket layout: its place on the grid and its text.
public struct RailLayoutField: Sendable, Equatable {
    public var line: Int, column: Int, height: Int, width: Int
    public var text: String
}

/// A `U_TLAY` layout (`RCT2`: the printed ticket's grid of UIC leaflet 918.2/918.3).
public struct RailLayout: Sendable, Equatable {
    public var standard: String
    public var fields: [RailLayoutField]

    /// The text of the fields that start on `line` within `column ..< column + width`, in column order.
    public func text(line: Int, column: Int, width: Int) -> String {
        let parts = fields.filter { $0.line == line && $0.column >= column && $0.column < column + width }.sorted { $0.column < $1.column }
        let text = parts.map(\.text).joined(separator: " ").trimmingASCII { $0 == 0x20 }
        // RCT2 marks empty fields with stars.
        return text.allSatisfy { $0 == "*" } ? "" : text
    }
}

/// Deutsche Bahn's `0080BL` record (versions 02 and 03): order blocks (validity and serial
/// number) and tagged `S` blocks (`S001` … with their text).
public struct RailDBRecord: Sendable, Equatable {
    /// One order block: first and last day of validity as printed (`ddMMyyyy`), serial number.
    public struct Order: Sendable, Equatable {
        public var validFrom: String
        public var validUntil: String
        public var serial: String
    }

    public var version: String
    public var orders: [Order]
    /// The S blocks by their tag (`S001`, …).
    public var fields: [String: String]
}

/// What a rail ticket's bar code says, as far as it was read.
public struct RailTicketContent: Sendable, Equatable {
    /// The container's version, 1 or 2 (the `#UT01`/`#UT02` header).
    public var version: Int
    /// The RICS code of the railway that signed the ticket (four digits) and its key id (five).
    public var signerCode: String
    public var keyID: String
    public var head: RailHead?
    public var layout: RailLayout?
    public var db: RailDBRecord?
    public var fcb: FCBTicket?
    /// The ids and versions of the records, in order (skipped ones included).
    public var records: [String] = []
}

/// What the signature of a ticket says about its origin.
public enum RailSignatureOutcome: Sendable, Equatable {
    /// Verified with the key list's key of `issuer` (RICS code), `name`, `keyID`.
    case verified(issuer: String, name: String?, keyID: String)
    /// No key of that railway and id in the key list.
    case unknownKey
    /// A key was found and the signature does not verify (or is not a signature).
    case invalid
    /// Nothing to verify with: no key list given.
    case unsigned

    /// The outcome's code, for notes and JSON.
    public var code: String {
        switch self {
        case .verified: "verified"
        case .unknownKey: "unknown-key"
        case .invalid: "invalid"
        case .unsigned: "unsigned"
        }
    }
}

/// The reading of one bar code payload.
public struct RailTicketReading: Sendable, Equatable {
    /// Nil when the payload is not a UIC 918.3 ticket that reads.
    public var ticket: RailTicketContent?
    public var signature: RailSignatureOutcome
    /// The key of the list that verified the signature; nil unless ``signature`` is `verified`.
    public var key: RailKey? = nil
    /// The ticket's trips and passes as schema.org reservations (``RailReservations``).
    public var items: [JSONValue]
    public var diagnostics: [RailDiagnostic]
}

/// UIC 918.3 rail ticket bar codes: the `#UT` container, its records, its signature.
public enum RailTicket {
    /// Whether `bytes` start like a UIC 918.3 container (`#UT` and a version of two digits), so a
    /// dispatcher can hand them here rather than to another bar code reader.
    public static func looksLikeRailTicket(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 5 && bytes[0] == 0x23 && bytes[1] == 0x55 && bytes[2] == 0x54 && isDigit(bytes[3]) && isDigit(bytes[4])
    }

    /// Reads `bytes` (the Aztec code's payload), verifies its signature against `keys`, and maps
    /// it to reservations. Nothing is taken from a clock: dates come from the ticket. Whether
    /// the verifying key may vouch for the ticket at a given time is ``RailKey/use(for:now:)``.
    public static func read(_ bytes: [UInt8], keys: RailKeyList?) -> RailTicketReading {
        var diagnostics: [RailDiagnostic] = []
        switch container(bytes) {
        case .failure(let diagnostic):
            return RailTicketReading(ticket: nil, signature: keys == nil ? .unsigned : .invalid, items: [], diagnostics: [diagnostic])
        case .success(let frame):
            // UIC 918.3 annex: the signature covers the compressed data exactly as carried.
            let signature: RailSignatureOutcome
            if let keys {
                signature = keys.verify(signer: frame.signer, keyID: frame.keyID, signature: frame.signature, data: frame.compressed)
            } else {
                signature = .unsigned
            }
            switch signature {
            case .verified: break
            case .unsigned: diagnostics.append(RailDiagnostic(.railSignature, "no rail key list: the signature is not checked", detail: "unsigned"))
            case .unknownKey:
                diagnostics.append(
                    RailDiagnostic(
                        .railSignature, "the key list has no key \(frame.keyID) of railway \(frame.signer)", detail: "unknown-key"))
            case .invalid:
                diagnostics.append(
                    RailDiagnostic(
                        .railSignature, "the signature does not verify with key \(frame.keyID) of railway \(frame.signer)", detail: "invalid"))
            }
            guard let inflated = inflate(frame.compressed) else {
                diagnostics.append(
                    RailDiagnostic(.railInflate, "the ticket's records do not inflate within \(RailLimits.maxInflatedBytes) bytes"))
                return RailTicketReading(ticket: nil, signature: signature, items: [], diagnostics: diagnostics)
            }
            var content = RailTicketContent(version: frame.version, signerCode: frame.signer, keyID: frame.keyID)
            readRecords(inflated, into: &content, diagnostics: &diagnostics)
            if content.fcb?.specimen == true || (content.head.map { $0.flags & 0x04 != 0 } ?? false) {
                diagnostics.append(RailDiagnostic(.railSpecimen, "the ticket is marked as a specimen"))
            }
            let items = RailReservations.items(content)
            var reading = RailTicketReading(ticket: content, signature: signature, items: items, diagnostics: diagnostics)
            if case .verified = signature { reading.key = keys?.key(signer: frame.signer, keyID: frame.keyID) }
            return reading
        }
    }

    struct Frame {
        var version: Int
        var signer: String
        var keyID: String
        var signature: [UInt8]
        var compressed: [UInt8]
    }

    /// The container (UIC 918.3 annex A): `#UT`, version `01`/`02`, RICS code (4), key id (5),
    /// signature (50 bytes in version 1, 64 in version 2), length of the compressed data (4
    /// ASCII digits), the compressed data. Every length is checked against the bytes present.
    static func container(_ bytes: [UInt8]) -> Result<Frame, RailDiagnostic> {
        func refuse(_ why: String) -> Result<Frame, RailDiagnostic> { .failure(RailDiagnostic(.railMalformed, why, detail: why)) }
        guard bytes.count <= RailLimits.maxPayloadBytes else { return refuse("payload larger than \(RailLimits.maxPayloadBytes) bytes") }
        guard looksLikeRailTicket(bytes) else { return refuse("no #UT header") }
        guard let version = number(bytes[3..<5]), version == 1 || version == 2 else { return refuse("container version not 01 or 02") }
        let signatureLength = version == 1 ? 50 : 64
        let header = 5 + 4 + 5 + signatureLength + 4
        guard bytes.count >= header else { return refuse("payload ends inside the header") }
        let signer = String(decoding: bytes[5..<9], as: UTF8.self)
        let keyID = String(decoding: bytes[9..<14], as: UTF8.self)
        guard bytes[5..<14].allSatisfy(isAlphanumeric) else { return refuse("railway code or key id not alphanumeric") }
        let signature = Array(bytes[14..<(14 + signatureLength)])
        guard let length = number(bytes[(header - 4)..<header]) else { return refuse("compressed length not four digits") }
        guard length > 0, header + length <= bytes.count else { return refuse("compressed length \(length) points past the payload") }
        // Bytes after the compressed data are not covered by anything: refused, not ignored.
        guard header + length == bytes.count else { return refuse("\(bytes.count - header - length) bytes after the compressed data") }
        return .success(Frame(version: version, signer: signer, keyID: keyID, signature: signature, compressed: Array(bytes[header...])))
    }

    /// zlib data (RFC 1950) inflated to at most ``RailLimits/maxInflatedBytes``, or nil when it
    /// is not zlib, ends early, has bytes after its end, or would inflate past the limit.
    static func inflate(_ compressed: [UInt8]) -> [UInt8]? {
        var output = [UInt8](repeating: 0, count: RailLimits.maxInflatedBytes + 1)
        var input = compressed
        var stream = z_stream()
        guard reservoir_inflate_init_zlib(&stream) == Z_OK else { return nil }
        defer { inflateEnd(&stream) }
        let status = input.withUnsafeMutableBufferPointer { inputBuffer in
            output.withUnsafeMutableBufferPointer { outputBuffer -> Int32 in
                stream.next_in = inputBuffer.baseAddress
                stream.avail_in = uInt(inputBuffer.count)
                stream.next_out = outputBuffer.baseAddress
                stream.avail_out = uInt(outputBuffer.count)
                return CZlib.inflate(&stream, Z_FINISH)
            }
        }
        let produced = Int(stream.total_out)
        guard status == Z_STREAM_END, stream.avail_in == 0, produced <= RailLimits.maxInflatedBytes else { return nil }
        return Array(output[0..<produced])
    }

    /// The records (UIC 918.3 annex A.2): id (6), version (2), length of the whole record
    /// including these 12 bytes (4 digits). A record that does not fit ends the reading.
    static func readRecords(_ data: [UInt8], into content: inout RailTicketContent, diagnostics: inout [RailDiagnostic]) {
        var offset = 0
        while offset < data.count {
            guard content.records.count < RailLimits.maxRecords else {
                diagnostics.append(RailDiagnostic(.railRecord, "more than \(RailLimits.maxRecords) records; the rest are not read"))
                return
            }
            guard data.count - offset >= 12, let length = number(data[(offset + 8)..<(offset + 12)]), length >= 12,
                length <= data.count - offset
            else {
                diagnostics.append(RailDiagnostic(.railRecord, "a record header or length at byte \(offset) does not hold", detail: "\(offset)"))
                return
            }
            let id = String(decoding: data[offset..<(offset + 6)], as: UTF8.self)
            let version = String(decoding: data[(offset + 6)..<(offset + 8)], as: UTF8.self)
            let body = Array(data[(offset + 12)..<(offset + length)])
            content.records.append(id + version)
            // nil: not a record this reader knows; false: known, and its body does not read.
            var read: Bool? = true
            switch (id, version) {
            case ("U_HEAD", "01"):
                content.head = head(body)
                read = content.head != nil
            case ("U_TLAY", "01"):
                content.layout = layout(body)
                read = content.layout != nil
            case ("0080BL", "02"), ("0080BL", "03"):
                content.db = dbRecord(body, version: version)
                read = content.db != nil
            case ("U_FLEX", _):
                guard let fcbVersion = FCBVersion(rawValue: version) else {
                    read = nil
                    break
                }
                switch FCBDecoder.decode(body, version: fcbVersion) {
                case .success(let fcb):
                    content.fcb = fcb
                    if let stop = fcb.stoppedAt {
                        diagnostics.append(RailDiagnostic(.railFCB, "the FCB was read up to \(stop); the rest is not shown", detail: stop))
                    }
                case .failure(let failure):
                    diagnostics.append(RailDiagnostic(.railFCB, "the FCB does not decode: \(failure)", detail: "\(failure)"))
                }
            default: read = nil
            }
            switch read {
            case nil: diagnostics.append(RailDiagnostic(.railRecordSkipped, "record \(id) version \(version) skipped", detail: id + version))
            case false?: diagnostics.append(RailDiagnostic(.railRecord, "the \(id) record does not read", detail: id))
            case true?: break
            }
            offset += length
        }
    }

    static func head(_ body: [UInt8]) -> RailHead? {
        guard body.count >= 41 else { return nil }
        let stamp = body[24..<36]
        guard let day = number(stamp.prefix(2)), let month = number(stamp.dropFirst(2).prefix(2)), let year = number(stamp.dropFirst(4).prefix(4)),
            let hour = number(stamp.dropFirst(8).prefix(2)), let minute = number(stamp.dropFirst(10).prefix(2)),
            (1...31).contains(day), (1...12).contains(month), hour < 24, minute < 60,
            let flags = number(body[36..<37])
        else { return nil }
        return RailHead(
            issuerCode: text(body[0..<4]), ticketKey: text(body[4..<24]), day: day, month: month, year: year, hour: hour, minute: minute,
            flags: flags, language: text(body[37..<39]))
    }

    /// U_TLAY (UIC 918.3 annex A.3): standard (4), field count (4), then per field line (2),
    /// column (2), height (2), width (2), format (1), text length (4), text (UTF-8).
    static func layout(_ body: [UInt8]) -> RailLayout? {
        guard body.count >= 8, let count = number(body[4..<8]), count <= RailLimits.maxLayoutFields else { return nil }
        var fields: [RailLayoutField] = []
        var offset = 8
        for _ in 0..<count {
            guard body.count - offset >= 13, let line = number(body[offset..<(offset + 2)]), let column = number(body[(offset + 2)..<(offset + 4)]),
                let height = number(body[(offset + 4)..<(offset + 6)]), let width = number(body[(offset + 6)..<(offset + 8)]),
                let length = number(body[(offset + 9)..<(offset + 13)]), length <= body.count - offset - 13
            else { return nil }
            let start = offset + 13
            fields.append(
                RailLayoutField(
                    line: line, column: column, height: height, width: width, text: String(decoding: body[start..<(start + length)], as: UTF8.self)))
            offset = start + length
        }
        return RailLayout(standard: text(body[0..<4]), fields: fields)
    }

    /// 0080BL (Deutsche Bahn): two bytes, a one-digit count of order blocks of 46 bytes
    /// (version 02: 22 bytes, valid from, valid until, serial of 8) or 26 bytes (version 03:
    /// valid from and until `ddMMyyyy`, serial of 10), a two-digit count of S blocks, each `S`, a
    /// three-character type, a four-digit length and the text. Every length is checked.
    static func dbRecord(_ body: [UInt8], version: String) -> RailDBRecord? {
        guard body.count >= 3, let orderCount = number(body[2..<3]) else { return nil }
        let orderSize = version == "02" ? 46 : 26
        let skip = version == "02" ? 22 : 0
        var offset = 3
        var orders: [RailDBRecord.Order] = []
        for _ in 0..<orderCount {
            guard body.count - offset >= orderSize else { return nil }
            let start = offset + skip
            orders.append(
                RailDBRecord.Order(
                    validFrom: text(body[start..<(start + 8)]), validUntil: text(body[(start + 8)..<(start + 16)]),
                    serial: text(body[(start + 16)..<(offset + orderSize)])))
            offset += orderSize
        }
        guard body.count - offset >= 2, let blockCount = number(body[offset..<(offset + 2)]) else { return nil }
        offset += 2
        var fields: [String: String] = [:]
        for _ in 0..<blockCount {
            guard body.count - offset >= 8, body[offset] == 0x53, let length = number(body[(offset + 4)..<(offset + 8)]),
                length <= body.count - offset - 8
            else { return nil }
            fields[text(body[offset..<(offset + 4)])] = text(body[(offset + 8)..<(offset + 8 + length)])
            offset += 8 + length
        }
        return RailDBRecord(version: version, orders: orders, fields: fields)
    }

    static func number(_ bytes: ArraySlice<UInt8>) -> Int? {
        guard !bytes.isEmpty, bytes.count <= 9, bytes.allSatisfy(isDigit) else { return nil }
        return bytes.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }

    static func text(_ bytes: ArraySlice<UInt8>) -> String { String(decoding: bytes, as: UTF8.self).trimmingASCII { $0 == 0x20 } }
    static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }
    static func isAlphanumeric(_ byte: UInt8) -> Bool { isDigit(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }
}
