/// Base64 (RFC 4648 §4, the standard alphabet with `=` padding), read strictly: HTTP Basic
/// credentials, and the bar codes `reservoir-document` hands over. (MIME's transfer decoding and
/// DKIM's tags, which allow white space, have readers of their own.)
public enum Base64Text {
    /// The decoded bytes, or nil when `text` is not canonical padded base64: a character outside
    /// the alphabet, a length that is not a multiple of 4, padding anywhere but at the end.
    public static func decode(_ text: some Collection<UInt8>) -> [UInt8]? {
        let input = Array(text)
        guard input.count % 4 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(input.count / 4 * 3)
        var index = 0
        while index < input.count {
            let isLast = index + 4 == input.count
            var values = [UInt8](repeating: 0, count: 4)
            var padding = 0
            for offset in 0..<4 {
                let byte = input[index + offset]
                if byte == UInt8(ascii: "=") {
                    // RFC 4648 §3.2: padding only at the end, at most two.
                    guard isLast, offset >= 2 else { return nil }
                    padding += 1
                    continue
                }
                guard padding == 0, let value = Self.value(byte) else { return nil }
                values[offset] = value
            }
            let triple = UInt32(values[0]) << 18 | UInt32(values[1]) << 12 | UInt32(values[2]) << 6 | UInt32(values[3])
            out.append(UInt8(truncatingIfNeeded: triple >> 16))
            if padding < 2 { out.append(UInt8(truncatingIfNeeded: triple >> 8)) }
            if padding < 1 { out.append(UInt8(truncatingIfNeeded: triple)) }
            index += 4
        }
        return out
    }

    /// `bytes` in base64, padded.
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        let input = Array(bytes)
        var out: [UInt8] = []
        out.reserveCapacity((input.count + 2) / 3 * 4)
        var index = 0
        while index < input.count {
            let left = min(3, input.count - index)
            var triple = UInt32(input[index]) << 16
            if left > 1 { triple |= UInt32(input[index + 1]) << 8 }
            if left > 2 { triple |= UInt32(input[index + 2]) }
            out.append(alphabet[Int((triple >> 18) & 63)])
            out.append(alphabet[Int((triple >> 12) & 63)])
            out.append(left > 1 ? alphabet[Int((triple >> 6) & 63)] : UInt8(ascii: "="))
            out.append(left > 2 ? alphabet[Int(triple & 63)] : UInt8(ascii: "="))
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func value(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }
}
