/// Reads the TXT records out of a DNS response (RFC 1035 §4.1), with a bounds check on every
/// read: a truncated or hostile answer yields an error value, never a crash.
struct DNSAnswer {
    /// Most answer records examined.
    static let maxAnswerRecords = 256
    /// Most labels followed in one name (a name has at most 127; this also stops pointer loops).
    static let maxNameLabels = 128

    enum ResponseCode: Equatable {
        case noError, nameError, serverFailure
        case other(Int)
    }

    enum ParseError: Swift.Error, Equatable {
        case truncated(String)
        case malformedTXT
    }

    let responseCode: ResponseCode
    /// Each TXT record's character-strings concatenated, in answer order.
    let txtRecords: [[UInt8]]

    static let typeTXT = 16
    static let classIN = 1

    init(_ message: [UInt8]) throws(ParseError) {
        var reader = Reader(bytes: message)
        _ = try reader.u16("id")
        let flags = try reader.u16("flags")
        let questions = try reader.u16("question count")
        let answers = try reader.u16("answer count")
        _ = try reader.u16("authority count")
        _ = try reader.u16("additional count")
        switch flags & 0x000F {
        case 0: responseCode = .noError
        case 2: responseCode = .serverFailure
        case 3: responseCode = .nameError
        case let code: responseCode = .other(code)
        }
        for _ in 0..<questions {
            try reader.skipName()
            try reader.skip(4, "question type and class")
        }
        var records: [[UInt8]] = []
        for _ in 0..<min(answers, Self.maxAnswerRecords) {
            try reader.skipName()
            let type = try reader.u16("record type")
            let rrClass = try reader.u16("record class")
            try reader.skip(4, "TTL")
            let length = try reader.u16("data length")
            let data = try reader.take(length, "record data")
            // RFC 1035 §3.3.14: TXT-DATA is one or more <character-string>s.
            if type == Self.typeTXT, rrClass == Self.classIN {
                records.append(try Self.characterStrings(data))
            }
        }
        txtRecords = records
    }

    /// The length-prefixed character-strings of a TXT rdata, concatenated (RFC 6376 §3.6.2.2).
    static func characterStrings(_ data: ArraySlice<UInt8>) throws(ParseError) -> [UInt8] {
        var text: [UInt8] = []
        var index = data.startIndex
        while index < data.endIndex {
            let length = Int(data[index])
            index += 1
            guard data.endIndex - index >= length else { throw .malformedTXT }
            text += data[index..<(index + length)]
            index += length
        }
        return text
    }

    struct Reader {
        let bytes: [UInt8]
        var offset = 0

        mutating func u16(_ what: String) throws(ParseError) -> Int {
            guard bytes.count - offset >= 2 else { throw .truncated(what) }
            defer { offset += 2 }
            return Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
        }

        mutating func skip(_ count: Int, _ what: String) throws(ParseError) {
            guard bytes.count - offset >= count else { throw .truncated(what) }
            offset += count
        }

        mutating func take(_ count: Int, _ what: String) throws(ParseError) -> ArraySlice<UInt8> {
            guard bytes.count - offset >= count else { throw .truncated(what) }
            defer { offset += count }
            return bytes[offset..<(offset + count)]
        }

        /// Skips a possibly compressed name (RFC 1035 §4.1.4): labels up to a zero byte, or up
        /// to a two-byte pointer which ends the name in place.
        mutating func skipName() throws(ParseError) {
            for _ in 0..<DNSAnswer.maxNameLabels {
                guard offset < bytes.count else { throw .truncated("name") }
                let length = Int(bytes[offset])
                switch length & 0xC0 {
                case 0xC0:
                    try skip(2, "name pointer")
                    return
                case 0x00:
                    offset += 1
                    if length == 0 { return }
                    try skip(length, "label")
                default:
                    throw .truncated("name (unknown label type)")
                }
            }
            throw .truncated("name (too many labels)")
        }
    }
}
