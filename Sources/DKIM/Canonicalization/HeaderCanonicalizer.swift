import MIME
import ReservoirBase

/// Header field canonicalization (RFC 6376 §3.4.1 simple, §3.4.2 relaxed) of one field as it
/// stands in the message bytes, always ending in CRLF.
enum HeaderCanonicalizer {
    /// The canonical form of `bytes[field.rawRange.lowerBound..<field.valueRange.upperBound]`,
    /// followed by CRLF. `valueOverride` replaces the value bytes (used to empty `b=`).
    static func canonicalize(_ bytes: [UInt8], _ field: HeaderField, relaxed: Bool, value valueOverride: [UInt8]? = nil) -> [UInt8] {
        var out: [UInt8] = []
        canonicalize(bytes, field, relaxed: relaxed, value: valueOverride, into: &out)
        return out
    }

    /// Appends the canonical form to `out` (one buffer for all signed fields).
    static func canonicalize(
        _ bytes: [UInt8], _ field: HeaderField, relaxed: Bool, value valueOverride: [UInt8]? = nil,
        into out: inout [UInt8]
    ) {
        let start = field.rawRange.lowerBound
        let colon = field.valueRange.lowerBound - 1
        guard start <= colon, field.valueRange.upperBound <= bytes.count else { return }
        let value = valueOverride.map { $0[...] } ?? bytes[field.valueRange]
        out.reserveCapacity(out.count + colon - start + value.count + 3)
        if relaxed {
            // §3.4.2: lowercase the name, unfold, runs of WSP → one SP, no WSP around the colon
            // or at the end of the value.
            for byte in bytes[start..<colon] where byte != 0x20 && byte != 0x09 {
                out.append(ASCII.lowercased(byte))
            }
            out.append(UInt8(ascii: ":"))
            let valueStart = out.count
            var pendingSpace = false
            for byte in value {
                switch byte {
                case 0x0D, 0x0A: continue
                case 0x20, 0x09: pendingSpace = true
                default:
                    if pendingSpace, out.count > valueStart { out.append(0x20) }
                    pendingSpace = false
                    out.append(byte)
                }
            }
        } else {
            // §3.4.1: unchanged, except that a bare LF is the CRLF the signer saw.
            appendWithCRLF(bytes[start...colon], to: &out)
            appendWithCRLF(value, to: &out)
        }
        out.append(0x0D)
        out.append(0x0A)
    }

    private static func appendWithCRLF(_ bytes: ArraySlice<UInt8>, to out: inout [UInt8]) {
        var previous: UInt8 = 0
        for byte in bytes {
            if byte == 0x0A, previous != 0x0D { out.append(0x0D) }
            out.append(byte)
            previous = byte
        }
    }
}
