/// Reads TZif files (RFC 8536): versions 1 to 4, the 64-bit data block of version 2 and later,
/// and the footer's POSIX TZ string. Every count is checked against RFC 8536 §3.1 and
/// `TimeZoneLimits` before anything is allocated, every index against its table, and the file
/// must end where its data does.
public enum TZifParser {
    /// RFC 8536 §3.1: the header is 44 bytes.
    static let headerBytes = 44

    /// The zone described by `bytes`, or the first rule it breaks.
    public static func parse(_ bytes: [UInt8], name: String = "") throws(TimeZoneError) -> TimeZoneRules {
        guard bytes.count <= TimeZoneLimits.maximumFileBytes else { throw TimeZoneError(.fileTooLarge, "\(bytes.count) bytes") }
        var reader = TZifReader(bytes: bytes)
        let first = try header(&reader)
        guard first.version != 0 else {
            let block = try dataBlock(&reader, first, timeBytes: 4)
            guard reader.atEnd else { throw TimeZoneError(.trailingData, "at byte \(reader.index)") }
            return TimeZoneRules(name: name, block: block, footer: nil)
        }
        // RFC 8536 §3: version 2+ readers skip the version 1 data block.
        try reader.skip(first.blockBytes(timeBytes: 4))
        let second = try header(&reader)
        guard second.version == first.version else { throw TimeZoneError(.unsupportedVersion, "headers disagree") }
        let block = try dataBlock(&reader, second, timeBytes: 8)
        let footer = try self.footer(&reader)
        return TimeZoneRules(name: name, block: block, footer: footer)
    }

    /// RFC 8536 §3.1 header fields.
    struct Header {
        var version: UInt8
        var isutcnt: Int
        var isstdcnt: Int
        var leapcnt: Int
        var timecnt: Int
        var typecnt: Int
        var charcnt: Int

        func blockBytes(timeBytes: Int) -> Int {
            timecnt * timeBytes + timecnt + typecnt * 6 + charcnt + leapcnt * (timeBytes + 4) + isstdcnt + isutcnt
        }
    }

    /// The data of one block, checked.
    struct Block {
        var transitions: [Int64]
        var transitionTypes: [UInt8]
        var types: [LocalTimeType]
    }

    static func header(_ reader: inout TZifReader) throws(TimeZoneError) -> Header {
        guard reader.remaining >= headerBytes else { throw TimeZoneError(.truncated, "header at byte \(reader.index)") }
        guard try reader.bytes(4).elementsEqual("TZif".utf8) else { throw TimeZoneError(.notTZif) }
        let versionByte = try reader.byte()
        let version: UInt8
        switch versionByte {
        case 0: version = 0
        case UInt8(ascii: "2"), UInt8(ascii: "3"), UInt8(ascii: "4"): version = versionByte - UInt8(ascii: "0")
        default: throw TimeZoneError(.unsupportedVersion, "version byte \(versionByte)")
        }
        try reader.skip(15)
        var counts: [Int] = []
        for _ in 0..<6 { counts.append(Int(try reader.uint32())) }
        let header = Header(
            version: version, isutcnt: counts[0], isstdcnt: counts[1], leapcnt: counts[2], timecnt: counts[3], typecnt: counts[4],
            charcnt: counts[5])
        // RFC 8536 §3.1: isutcnt and isstdcnt are zero or typecnt; typecnt and charcnt are not zero.
        guard header.typecnt >= 1, header.charcnt >= 1, header.isutcnt == 0 || header.isutcnt == header.typecnt,
            header.isstdcnt == 0 || header.isstdcnt == header.typecnt
        else { throw TimeZoneError(.invalidCounts, "RFC 8536 §3.1 count rules") }
        guard header.typecnt <= TimeZoneLimits.maximumTypes, header.timecnt <= TimeZoneLimits.maximumTransitions,
            header.charcnt <= TimeZoneLimits.maximumAbbreviationBytes
        else { throw TimeZoneError(.invalidCounts, "over TimeZoneLimits") }
        guard header.leapcnt == 0 else { throw TimeZoneError(.leapSecondsUnsupported, "\(header.leapcnt) records") }
        return header
    }

    static func dataBlock(_ reader: inout TZifReader, _ header: Header, timeBytes: Int) throws(TimeZoneError) -> Block {
        guard reader.remaining >= header.blockBytes(timeBytes: timeBytes) else { throw TimeZoneError(.truncated, "data block") }
        var transitions: [Int64] = []
        transitions.reserveCapacity(header.timecnt)
        for _ in 0..<header.timecnt {
            let time = timeBytes == 4 ? Int64(Int32(bitPattern: try reader.uint32())) : Int64(bitPattern: try reader.uint64())
            guard time.magnitude <= TimeZoneLimits.maximumTransitionMagnitude else { throw TimeZoneError(.invalidData, "transition time \(time)") }
            // RFC 8536 §3.2: transition times are in strictly ascending order.
            if let last = transitions.last, time <= last { throw TimeZoneError(.invalidData, "transition \(transitions.count) not ascending") }
            transitions.append(time)
        }
        let transitionTypes = Array(try reader.bytes(header.timecnt))
        // RFC 8536 §3.2: each index is less than typecnt.
        if let bad = transitionTypes.firstIndex(where: { Int($0) >= header.typecnt }) {
            throw TimeZoneError(.invalidData, "transition \(bad) names type \(transitionTypes[bad])")
        }
        var records: [(offset: Int32, isDST: Bool, index: Int)] = []
        for _ in 0..<header.typecnt {
            let offset = Int32(bitPattern: try reader.uint32())
            let isDST = try reader.byte()
            let index = Int(try reader.byte())
            // RFC 8536 §3.2: utoff is not -2^31 and SHOULD lie in (-25 h, 26 h); isdst is 0 or 1.
            guard offset > -90_000, offset < 93_600, isDST <= 1 else { throw TimeZoneError(.invalidData, "local time type") }
            guard index < header.charcnt else { throw TimeZoneError(.invalidAbbreviation, "index \(index) of \(header.charcnt)") }
            records.append((offset, isDST == 1, index))
        }
        let designations = Array(try reader.bytes(header.charcnt))
        var types: [LocalTimeType] = []
        for record in records {
            guard let end = designations[record.index...].firstIndex(of: 0) else { throw TimeZoneError(.invalidAbbreviation, "unterminated") }
            let text = designations[record.index..<end]
            // Designations go into calendar text (TZNAME): printable ASCII only.
            guard text.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { throw TimeZoneError(.invalidAbbreviation, "not printable ASCII") }
            types.append(LocalTimeType(utcOffsetSeconds: record.offset, isDST: record.isDST, abbreviation: String(decoding: text, as: UTF8.self)))
        }
        let isStandard = Array(try reader.bytes(header.isstdcnt))
        let isUT = Array(try reader.bytes(header.isutcnt))
        // RFC 8536 §3.2: indicators are 0 or 1, and a UT indicator of 1 needs a standard one of 1.
        guard isStandard.allSatisfy({ $0 <= 1 }), isUT.allSatisfy({ $0 <= 1 }) else { throw TimeZoneError(.invalidData, "indicator") }
        for (i, ut) in isUT.enumerated() where ut == 1 && (isStandard.isEmpty || isStandard[i] != 1) {
            throw TimeZoneError(.invalidData, "UT indicator without standard indicator")
        }
        return Block(transitions: transitions, transitionTypes: transitionTypes, types: types)
    }

    /// RFC 8536 §3.3: `\n`, the TZ string (possibly empty), `\n`, end of file.
    static func footer(_ reader: inout TZifReader) throws(TimeZoneError) -> POSIXTimeZoneRule? {
        guard try reader.byte() == 0x0A else { throw TimeZoneError(.invalidFooter, "no opening newline") }
        let start = reader.index
        guard let end = reader.bytes[start...].prefix(TimeZoneLimits.maximumFooterBytes + 1).firstIndex(of: 0x0A) else {
            throw TimeZoneError(.invalidFooter, "no closing newline within \(TimeZoneLimits.maximumFooterBytes) bytes")
        }
        guard end + 1 == reader.bytes.count else { throw TimeZoneError(.trailingData, "at byte \(end + 1)") }
        if end == start { return nil }
        return try POSIXTimeZoneRule(parsing: reader.bytes[start..<end])
    }
}

/// A bounds-checked big-endian cursor.
struct TZifReader {
    let bytes: [UInt8]
    var index = 0

    var remaining: Int { bytes.count - index }
    var atEnd: Bool { index == bytes.count }

    mutating func skip(_ count: Int) throws(TimeZoneError) {
        guard count >= 0, count <= remaining else { throw TimeZoneError(.truncated, "at byte \(index)") }
        index += count
    }

    mutating func bytes(_ count: Int) throws(TimeZoneError) -> ArraySlice<UInt8> {
        let start = index
        try skip(count)
        return bytes[start..<index]
    }

    mutating func byte() throws(TimeZoneError) -> UInt8 {
        guard index < bytes.count else { throw TimeZoneError(.truncated, "at byte \(index)") }
        defer { index += 1 }
        return bytes[index]
    }

    mutating func uint32() throws(TimeZoneError) -> UInt32 {
        var value: UInt32 = 0
        for byte in try bytes(4) { value = value << 8 | UInt32(byte) }
        return value
    }

    mutating func uint64() throws(TimeZoneError) -> UInt64 {
        var value: UInt64 = 0
        for byte in try bytes(8) { value = value << 8 | UInt64(byte) }
        return value
    }
}
