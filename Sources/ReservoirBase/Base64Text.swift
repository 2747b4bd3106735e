/// Base64 (RFC 4648 §4, the standard alphabet with `=` padding): the one encoder, the strict
/// decoder (HTTP Basic credentials, iCalendar BINARY values, the bar codes `reservoir-document`
/// hands over, and DKIM's and the UIC key list's values once their white space is taken out),
/// and MIME's lenient decoder (RFC 2045 §6.8) beside it.
public enum Base64Text {
    /// Whether a final group of two or three symbols must carry its `=` padding.
    public enum Padding: Sendable {
        /// RFC 4648 §3.2: the text is a whole number of four-character groups.
        case required
        /// The padding of the last group may be left out, or written in part (`AB`, `AB=`,
        /// `AB==`), as RFC 6376's `base64string` allows.
        case optional
    }

    /// What the lenient decoder read: the bytes, and what it skipped.
    public struct LenientDecoding: Sendable, Equatable {
        public var bytes: [UInt8]
        /// Characters outside the alphabet that are not white space.
        public var invalidSymbols: Int
        /// `=` that ends no group of two or three symbols.
        public var strayPads: Int
        /// The index of the first invalid symbol or stray pad.
        public var firstSkipped: Int?
        /// Whether one symbol was left over at the end: six bits, no byte.
        public var truncated: Bool

        public init(bytes: [UInt8], invalidSymbols: Int, strayPads: Int, firstSkipped: Int?, truncated: Bool) {
            self.bytes = bytes
            self.invalidSymbols = invalidSymbols
            self.strayPads = strayPads
            self.firstSkipped = firstSkipped
            self.truncated = truncated
        }
    }

    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// 0–63 for alphabet symbols, `pad` for "=", `space` for white space, `invalid` otherwise.
    static let table: [UInt8] = {
        var table = [UInt8](repeating: invalid, count: 256)
        for (index, symbol) in alphabet.enumerated() { table[Int(symbol)] = UInt8(index) }
        table[Int(UInt8(ascii: "="))] = pad
        for symbol in [UInt8(ascii: " "), 0x09, 0x0A, 0x0D, 0x0B, 0x0C] { table[Int(symbol)] = space }
        return table
    }()
    static let invalid: UInt8 = 0xFF
    static let pad: UInt8 = 0xFE
    static let space: UInt8 = 0xFD

    /// The decoded bytes, or nil when `text` is not base64: a character outside the alphabet
    /// (white space included), padding anywhere but at the end of the last group, a last group
    /// of one symbol, or (with `.required`) a length that is not a multiple of 4.
    public static func decode(_ text: some Collection<UInt8>, padding: Padding = .required) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(text.count / 4 * 3 + 2)
        var quantum: UInt32 = 0
        var symbols = 0
        var pads = 0
        for byte in text {
            let value = table[Int(byte)]
            if value == pad {
                // RFC 4648 §3.2: "=" only completes the last group, after two or three symbols.
                guard (symbols + pads) % 4 >= 2 else { return nil }
                pads += 1
                continue
            }
            guard value < 64, pads == 0 else { return nil }
            quantum = quantum << 6 | UInt32(value)
            symbols += 1
            if symbols % 4 == 0 {
                out.append(UInt8(truncatingIfNeeded: quantum >> 16))
                out.append(UInt8(truncatingIfNeeded: quantum >> 8))
                out.append(UInt8(truncatingIfNeeded: quantum))
                quantum = 0
            }
        }
        let group = symbols % 4
        guard group != 1 else { return nil }
        let missing = (4 - group) % 4
        switch padding {
        case .required: guard pads == missing else { return nil }
        case .optional: guard pads <= missing else { return nil }
        }
        switch group {
        case 2: out.append(UInt8(truncatingIfNeeded: quantum >> 4))
        case 3:
            out.append(UInt8(truncatingIfNeeded: quantum >> 10))
            out.append(UInt8(truncatingIfNeeded: quantum >> 2))
        default: break
        }
        return out
    }

    /// `bytes` in base64, padded.
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var iterator = bytes.makeIterator()
        while let b0 = iterator.next() {
            let b1 = iterator.next()
            let b2 = b1 == nil ? nil : iterator.next()
            out.append(alphabet[Int(b0 >> 2)])
            out.append(alphabet[Int((b0 & 0x03) << 4 | (b1 ?? 0) >> 4)])
            out.append(b1.map { alphabet[Int(($0 & 0x0F) << 2 | (b2 ?? 0) >> 6)] } ?? UInt8(ascii: "="))
            out.append(b2.map { alphabet[Int($0 & 0x3F)] } ?? UInt8(ascii: "="))
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `bytes[range]` decoded as RFC 2045 §6.8 asks of a reader: white space is ignored, and so
    /// is every other character outside the alphabet (counted in the result). `=` ends a group
    /// of two or three symbols and decoding goes on after it (concatenated encodings); a final
    /// group of two or three symbols without padding is decoded. Never fails.
    public static func decodeLeniently(_ bytes: [UInt8], in range: Range<Int>) -> LenientDecoding {
        var quantum: UInt32 = 0
        var count = 0
        var invalidCount = 0
        var firstSkipped = -1
        var strayPads = 0
        // Every 4 symbols give at most 3 bytes; written through a pointer, no per-byte checks.
        var out = [UInt8](unsafeUninitializedCapacity: range.count / 4 * 3 + 3) { buffer, written in
            var o = 0
            bytes.withUnsafeBufferPointer { p in
                table.withUnsafeBufferPointer { t in
                    for i in range {
                        let v = t[Int(p[i])]
                        if v < 64 {
                            quantum = quantum << 6 | UInt32(v)
                            count += 1
                            if count == 4 {
                                buffer[o] = UInt8(truncatingIfNeeded: quantum >> 16)
                                buffer[o + 1] = UInt8(truncatingIfNeeded: quantum >> 8)
                                buffer[o + 2] = UInt8(truncatingIfNeeded: quantum)
                                o += 3
                                quantum = 0
                                count = 0
                            }
                        } else if v == space {
                            continue
                        } else if v == pad {
                            // RFC 2045 §6.8: "=" ends a group of two or three symbols.
                            switch count {
                            case 2:
                                buffer[o] = UInt8(truncatingIfNeeded: quantum >> 4)
                                o += 1
                                quantum = 0
                                count = 0
                            case 3:
                                buffer[o] = UInt8(truncatingIfNeeded: quantum >> 10)
                                buffer[o + 1] = UInt8(truncatingIfNeeded: quantum >> 2)
                                o += 2
                                quantum = 0
                                count = 0
                            case 0:
                                // The second "=" of "==", or padding after padding: harmless unless
                                // nothing came before it in this group and it is not a pair.
                                if i > range.lowerBound, p[i - 1] == UInt8(ascii: "=") { continue }
                                strayPads += 1
                                if firstSkipped < 0 { firstSkipped = i }
                            default:
                                strayPads += 1
                                if firstSkipped < 0 { firstSkipped = i }
                            }
                        } else {
                            invalidCount += 1
                            if firstSkipped < 0 { firstSkipped = i }
                        }
                    }
                }
            }
            written = o
        }
        switch count {
        case 2: out.append(UInt8(truncatingIfNeeded: quantum >> 4))
        case 3:
            out.append(UInt8(truncatingIfNeeded: quantum >> 10))
            out.append(UInt8(truncatingIfNeeded: quantum >> 2))
        default: break
        }
        return LenientDecoding(
            bytes: out, invalidSymbols: invalidCount, strayPads: strayPads, firstSkipped: firstSkipped < 0 ? nil : firstSkipped,
            truncated: count == 1)
    }
}
