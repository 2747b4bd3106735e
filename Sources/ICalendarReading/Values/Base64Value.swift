/// RFC 4648 §4 base64, as RFC 5545 §3.3.1 BINARY values use it; white space is skipped,
/// padding optional. Nil for any other character.
enum Base64Value {
    static func decode(_ text: String) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count * 3 / 4)
        var buffer: UInt32 = 0
        var bits = 0
        for c in text.utf8 {
            let value: UInt8
            switch c {
            case 0x41...0x5A: value = c - 0x41
            case 0x61...0x7A: value = c - 0x61 + 26
            case 0x30...0x39: value = c - 0x30 + 52
            case 0x2B: value = 62
            case 0x2F: value = 63
            case 0x3D, 0x20, 0x09, 0x0D, 0x0A: continue
            default: return nil
            }
            buffer = (buffer << 6) | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8((buffer >> UInt32(bits)) & 0xFF))
            }
        }
        return out
    }
}
