import Glibc
import ReservoirBase

/// A character set named by a MIME `charset` label (RFC 2046 §4.1.2, RFC 2047 §2), normalized so
/// aliases select the same decoder.
///
/// UTF-8, US-ASCII, ISO-8859-1 and windows-1252 are decoded natively; every other label goes
/// through glibc's iconv. Decoding never fails: bytes that are invalid in the charset become
/// U+FFFD (or, for UTF-8, the windows-1252 character of the byte), and a label nobody knows is
/// decoded as UTF-8 with the windows-1252 fallback and reported as unknown.
struct Charset: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        /// UTF-8; an invalid byte is read as windows-1252 (senders mislabel Latin-1 text).
        case utf8
        /// ISO-8859-1 read as windows-1252: the C1 range 0x80–0x9F is never meant as controls
        /// in mail (the WHATWG Encoding Standard makes the same choice).
        case windows1252
        /// A charset iconv knows, under the name iconv uses.
        case iconv(String)
    }

    let kind: Kind
    /// The label as normalized (lowercased, trimmed), for diagnostics.
    let label: String

    init(label rawLabel: String) {
        let label = Self.normalized(rawLabel)
        self.label = label
        if label.isEmpty || Self.isUTF8(label) {
            kind = .utf8
        } else if Self.isLatin1(label) {
            kind = .windows1252
        } else if let alias = Self.iconvAlias(label) {
            kind = .iconv(alias)
        } else if label.hasPrefix("x-"), let alias = Self.iconvAlias(String(label.dropFirst(2))) {
            kind = .iconv(alias)
        } else {
            var name = label.uppercased()
            if name.hasPrefix("X-") { name.removeFirst(2) }
            // "windows-1250" → "CP1250"; "cp-850" → "CP850"; "iso8859-2" → "ISO-8859-2".
            if name.hasPrefix("WINDOWS-") { name = "CP" + name.dropFirst(8) }
            if name.hasPrefix("CP-") { name = "CP" + name.dropFirst(3) }
            if name.hasPrefix("ISO8859") { name = "ISO-8859" + name.dropFirst(7) }
            if name.hasPrefix("ISO_8859") { name = "ISO-8859" + name.dropFirst(8) }
            kind = .iconv(name)
        }
    }

    /// Lowercased, without surrounding blanks and quotes, and without an RFC 2231 §5 language
    /// ("utf-8*en"). Labels are ASCII and are folded byte by byte; anything else is folded as
    /// Unicode text, so a diagnostic shows it as written.
    static func normalized(_ raw: String) -> String {
        func isTrimmed(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x22 || b == 0x27 }
        var utf8 = Array(raw.utf8)
        guard utf8.allSatisfy({ $0 < 0x80 }) else {
            func isTrimmedCharacter(_ c: Character) -> Bool { c.asciiValue.map(isTrimmed) ?? false }
            var label = raw.lowercased()
            label = String(label.drop(while: isTrimmedCharacter).reversed().drop(while: isTrimmedCharacter).reversed())
            if let star = label.firstIndex(of: "*") { label = String(label[..<star]) }
            return label
        }
        var end = utf8.count
        while end > 0, isTrimmed(utf8[end - 1]) { end -= 1 }
        var start = 0
        while start < end, isTrimmed(utf8[start]) { start += 1 }
        if let star = utf8[start..<end].firstIndex(of: UInt8(ascii: "*")) { end = star }
        for i in start..<end { utf8[i] = ASCII.lowercased(utf8[i]) }
        return String(decoding: utf8[start..<end], as: UTF8.self)
    }

    // The label tables are switches: compared directly, with no set or dictionary to build in
    // each process (the filter hook decodes a handful of labels once).

    /// Labels that mean UTF-8. US-ASCII is read as UTF-8 too: 8-bit bytes under an ASCII label
    /// are almost always UTF-8 or Latin-1, and the UTF-8 decoder recovers both.
    private static func isUTF8(_ label: String) -> Bool {
        switch label {
        case "utf-8", "utf8", "unicode-1-1-utf-8", "x-unicode20utf8", "unicode20utf8", "x-utf-8",
            "us-ascii", "ascii", "us", "ansi_x3.4-1968", "ansi_x3.4-1986", "iso646-us", "iso-646-us",
            "cp367", "ibm367", "csascii", "iso-ir-6", "646":
            true
        default: false
        }
    }

    private static func isLatin1(_ label: String) -> Bool {
        switch label {
        case "iso-8859-1", "iso8859-1", "iso_8859-1", "iso_8859-1:1987", "iso-8859-1:1987", "latin1",
            "latin-1", "l1", "cp819", "ibm819", "iso-ir-100", "csisolatin1", "8859-1", "iso8859_1",
            "windows-1252", "cp1252", "x-cp1252", "ms-ansi", "cp-1252", "win-1252", "windows1252":
            true
        default: false
        }
    }

    /// Labels iconv does not know under the name mail uses, mapped to a name it knows.
    /// Supersets are chosen where senders routinely use the superset's characters.
    private static func iconvAlias(_ label: String) -> String? {
        switch label {
        case "x-sjis", "sjis", "shift-jis", "shift_jis", "ms_kanji", "csshiftjis", "windows-31j", "x-ms-cp932", "cp932":
            "CP932"
        case "gb2312", "gbk", "x-gbk", "cp936", "euc-cn", "csgb2312", "chinese", "gb_2312-80":
            "GB18030"
        case "ks_c_5601-1987", "ks_c_5601", "euc-kr", "ksc5601": "CP949"
        case "x-euc-jp", "euc-jp": "EUC-JP"
        case "big5", "x-x-big5", "big5-hkscs": "BIG5-HKSCS"
        case "unicode-1-1-utf-7", "utf-7", "x-unicode20utf7": "UTF-7"
        case "x-mac-roman", "macintosh", "mac": "MACINTOSH"
        case "tis-620": "TIS-620"
        case "windows-874", "x-windows-874": "CP874"
        case "iso-8859-8-i": "ISO-8859-8"
        case "iso-8859-6-i": "ISO-8859-6"
        case "koi8-u": "KOI8-U"
        case "koi8-r", "koi8": "KOI8-R"
        default: nil
        }
    }

    /// Whether iconv (or the native decoders) can read this charset.
    var isKnown: Bool {
        guard case .iconv(let name) = kind else { return true }
        return IconvConverter(from: name) != nil
    }

    /// Decodes `bytes` to UTF-8 bytes. `known` is false when the label was not recognized and
    /// the UTF-8 fallback was used instead.
    func decodeToUTF8<C: Collection>(_ bytes: C) -> (utf8: [UInt8], known: Bool) where C.Element == UInt8 {
        switch kind {
        case .utf8:
            return (UTF8Repair.repair(bytes), true)
        case .windows1252:
            return (Windows1252.decode(bytes), true)
        case .iconv(let name):
            guard let converter = IconvConverter(from: name) else {
                return (UTF8Repair.repair(bytes), false)
            }
            // glibc's iconv reads labels loosely ("utf_8" is its UTF-8) and its UTF-8 decoder
            // passes sequences above U+10FFFF (F4 91 …) through: its output is checked again.
            return (UTF8Repair.repair(converter.convert(Array(bytes))), true)
        }
    }

    /// Decodes `bytes` to a String (see ``decodeToUTF8(_:)``).
    func decode<C: Collection>(_ bytes: C) -> (text: String, known: Bool) where C.Element == UInt8 {
        let (utf8, known) = decodeToUTF8(bytes)
        return (String(decoding: utf8, as: UTF8.self), known)
    }
}

/// Windows-1252, a superset of the printable ISO-8859-1 repertoire.
enum Windows1252 {
    /// Code points for 0x80–0x9F; undefined positions keep their ISO-8859-1 control code.
    static let high: [UInt32] = [
        0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
        0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x8D, 0x017D, 0x8F,
        0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
        0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x9D, 0x017E, 0x0178,
    ]

    @inline(__always)
    static func scalar(_ byte: UInt8) -> UInt32 {
        byte >= 0x80 && byte < 0xA0 ? high[Int(byte) - 0x80] : UInt32(byte)
    }

    static func decode<C: Collection>(_ bytes: C) -> [UInt8] where C.Element == UInt8 {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + bytes.count / 8)
        for b in bytes {
            if b < 0x80 { out.append(b) } else { UTF8Repair.appendScalar(scalar(b), to: &out) }
        }
        return out
    }
}

/// UTF-8 decoding that keeps every valid sequence and reads each invalid byte as windows-1252,
/// so raw Latin-1 in a header or a mislabeled body still reads correctly.
enum UTF8Repair {
    @inline(__always)
    static func appendScalar(_ v: UInt32, to out: inout [UInt8]) {
        if v < 0x80 {
            out.append(UInt8(v))
        } else if v < 0x800 {
            out.append(UInt8(0xC0 | (v >> 6)))
            out.append(UInt8(0x80 | (v & 0x3F)))
        } else if v < 0x10000 {
            out.append(UInt8(0xE0 | (v >> 12)))
            out.append(UInt8(0x80 | ((v >> 6) & 0x3F)))
            out.append(UInt8(0x80 | (v & 0x3F)))
        } else {
            out.append(UInt8(0xF0 | (v >> 18)))
            out.append(UInt8(0x80 | ((v >> 12) & 0x3F)))
            out.append(UInt8(0x80 | ((v >> 6) & 0x3F)))
            out.append(UInt8(0x80 | (v & 0x3F)))
        }
    }

    /// Length of the valid UTF-8 sequence starting at `i`, or 0 (RFC 3629 §4).
    @inline(__always)
    static func sequenceLength(_ p: UnsafeBufferPointer<UInt8>, _ i: Int) -> Int {
        let b0 = p[i]
        let n = p.count
        func cont(_ k: Int) -> Bool { i + k < n && p[i + k] & 0xC0 == 0x80 }
        switch b0 {
        case 0x00...0x7F: return 1
        case 0xC2...0xDF: return cont(1) ? 2 : 0
        case 0xE0: return i + 1 < n && p[i + 1] >= 0xA0 && p[i + 1] <= 0xBF && cont(2) ? 3 : 0
        case 0xED: return i + 1 < n && p[i + 1] >= 0x80 && p[i + 1] <= 0x9F && cont(2) ? 3 : 0
        case 0xE1...0xEC, 0xEE...0xEF: return cont(1) && cont(2) ? 3 : 0
        case 0xF0: return i + 1 < n && p[i + 1] >= 0x90 && p[i + 1] <= 0xBF && cont(2) && cont(3) ? 4 : 0
        case 0xF1...0xF3: return cont(1) && cont(2) && cont(3) ? 4 : 0
        case 0xF4: return i + 1 < n && p[i + 1] >= 0x80 && p[i + 1] <= 0x8F && cont(2) && cont(3) ? 4 : 0
        default: return 0
        }
    }

    /// Whether every byte is part of a valid UTF-8 sequence.
    static func isValid<C: Collection>(_ bytes: C) -> Bool where C.Element == UInt8 {
        let array = Array(bytes)
        return array.withUnsafeBufferPointer { p in
            guard let base = p.baseAddress else { return true }
            var i = 0
            while i < p.count {
                // ASCII eight bytes at a time: no byte of the word has its high bit set.
                if i + 8 <= p.count,
                    UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 == 0
                {
                    i += 8
                    continue
                }
                if p[i] < 0x80 {
                    i += 1
                    continue
                }
                let len = sequenceLength(p, i)
                if len == 0 { return false }
                i += len
            }
            return true
        }
    }

    static func repair<C: Collection>(_ bytes: C) -> [UInt8] where C.Element == UInt8 {
        let array = Array(bytes)
        if isValid(array) { return array }
        var out: [UInt8] = []
        out.reserveCapacity(array.count + array.count / 4)
        array.withUnsafeBufferPointer { p in
            var i = 0
            while i < p.count {
                let len = sequenceLength(p, i)
                if len == 0 {
                    appendScalar(Windows1252.scalar(p[i]), to: &out)
                    i += 1
                } else {
                    for k in 0..<len { out.append(p[i + k]) }
                    i += len
                }
            }
        }
        return out
    }

    /// Decodes header or body bytes that carry no charset label.
    static func string<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        String(decoding: repair(bytes), as: UTF8.self)
    }
}

/// One iconv conversion descriptor from a charset to UTF-8, closed when the converter goes away.
/// iconv descriptors keep shift state, so each conversion gets its own.
final class IconvConverter {
    private let descriptor: iconv_t
    /// Smallest output buffer for one iconv call.
    private static let chunk = 4096
    /// Largest output buffer; longer output is produced in several calls.
    private static let maxBuffer = 1 << 20

    init?(from name: String) {
        let cd = iconv_open("UTF-8", name)
        // iconv_open(3): "On error, iconv_open() returns (iconv_t) -1".
        guard let cd, Int(bitPattern: cd) != -1 else { return nil }
        descriptor = cd
    }

    deinit { iconv_close(descriptor) }

    /// Converts all of `input`; an invalid or incomplete sequence becomes U+FFFD and conversion
    /// resumes after its first byte.
    func convert(_ input: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(input.count * 2 + 16)
        var buffer = [UInt8](repeating: 0, count: min(max(Self.chunk, input.count * 4 + 16), Self.maxBuffer))
        var input = input
        input.withUnsafeMutableBufferPointer { inBuf in
            buffer.withUnsafeMutableBufferPointer { outBuf in
                guard let inBase = inBuf.baseAddress, let outBase = outBuf.baseAddress else { return }
                var inPtr: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(inBase).assumingMemoryBound(to: CChar.self)
                var inLeft = inBuf.count
                while true {
                    var outPtr: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(outBase).assumingMemoryBound(to: CChar.self)
                    var outLeft = outBuf.count
                    let result: Int
                    if inLeft > 0 {
                        result = iconv(descriptor, &inPtr, &inLeft, &outPtr, &outLeft)
                    } else {
                        // Flush the shift state (ISO-2022-JP returns to ASCII).
                        result = iconv(descriptor, nil, nil, &outPtr, &outLeft)
                    }
                    let produced = outBuf.count - outLeft
                    out.append(contentsOf: UnsafeBufferPointer(start: outBase, count: produced))
                    if result != -1 {
                        if inLeft == 0 { break }
                        continue
                    }
                    let error = errno
                    if error == E2BIG { continue }
                    if inLeft == 0 { break }
                    // EILSEQ or EINVAL: replace one byte and go on.
                    out.append(contentsOf: [0xEF, 0xBF, 0xBD])
                    inPtr = inPtr.map { $0 + 1 }
                    inLeft -= 1
                    if error != EILSEQ && error != EINVAL { break }
                }
            }
        }
        return out
    }
}
