/// Base64 (RFC 4648 §4) for `b=`, `bh=` and `p=` values. Decoding skips white space
/// (RFC 6376 §3.5: FWS may appear anywhere in base64 tag values).
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    private static let decodeTable: [Int8] = {
        var table = [Int8](repeating: -1, count: 256)
        for (index, symbol) in alphabet.enumerated() { table[Int(symbol)] = Int8(index) }
        return table
    }()

    static func encode(_ bytes: some Collection<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var iterator = bytes.makeIterator()
        while let b0 = iterator.next() {
            let b1 = iterator.next()
            let b2 = iterator.next()
            out.append(alphabet[Int(b0 >> 2)])
            out.append(alphabet[Int((b0 & 0x03) << 4 | (b1 ?? 0) >> 4)])
            out.append(b1.map { alphabet[Int(($0 & 0x0F) << 2 | (b2 ?? 0) >> 6)] } ?? UInt8(ascii: "="))
            out.append(b2.map { alphabet[Int($0 & 0x3F)] } ?? UInt8(ascii: "="))
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The decoded bytes, or nil when a character is outside the alphabet, padding is
    /// misplaced, or the length is impossible. White space is skipped.
    static func decode(_ text: some StringProtocol) -> [UInt8]? {
        var text = String(text)
        return text.withUTF8 { decode(bytes: $0) }
    }

    static func decode(bytes: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count / 4 * 3 + 3)
        var accumulator: UInt32 = 0
        var count = 0
        var padding = 0
        let valid = decodeTable.withUnsafeBufferPointer { table in
            for symbol in bytes {
                switch symbol {
                case 0x20, 0x09, 0x0D, 0x0A:
                    continue
                case UInt8(ascii: "="):
                    padding += 1
                    guard padding <= 2 else { return false }
                    continue
                default:
                    guard padding == 0 else { return false }  // data after padding
                    let value = table[Int(symbol)]
                    guard value >= 0 else { return false }
                    accumulator = accumulator << 6 | UInt32(value)
                    count += 1
                    if count == 4 {
                        out.append(UInt8(truncatingIfNeeded: accumulator >> 16))
                        out.append(UInt8(truncatingIfNeeded: accumulator >> 8))
                        out.append(UInt8(truncatingIfNeeded: accumulator))
                        accumulator = 0
                        count = 0
                    }
                }
            }
            return true
        }
        guard valid else { return nil }
        switch count {
        case 0: guard padding == 0 else { return nil }
        case 2:
            out.append(UInt8(truncatingIfNeeded: accumulator >> 4))
        case 3:
            out.append(UInt8(truncatingIfNeeded: accumulator >> 10))
            out.append(UInt8(truncatingIfNeeded: accumulator >> 2))
        default: return nil
        }
        return out
    }
}
