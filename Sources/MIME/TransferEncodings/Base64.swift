import ReservoirBase

/// The base64 Content-Transfer-Encoding (RFC 2045 §6.8), decoded leniently.
///
/// Line breaks and white space are ignored. Other characters outside the alphabet and stray `=`
/// are skipped and reported once per body; decoding goes on after padding (concatenated
/// encodings), and a final group of two or three symbols without padding is decoded.
public enum Base64 {
    /// 0–63 for alphabet symbols, `pad` for "=", `space` for ignorable white space, `invalid` otherwise.
    static let table: [UInt8] = {
        var t = [UInt8](repeating: invalid, count: 256)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        for (i, c) in alphabet.enumerated() { t[Int(c)] = UInt8(i) }
        t[Int(UInt8(ascii: "="))] = pad
        for c in [UInt8(ascii: " "), 0x09, 0x0A, 0x0D, 0x0B, 0x0C] { t[Int(c)] = space }
        return t
    }()
    static let invalid: UInt8 = 0xFF
    static let pad: UInt8 = 0xFE
    static let space: UInt8 = 0xFD

    public static func decode(_ bytes: [UInt8], in range: Range<Int>) -> TransferDecoding {
        var quantum: UInt32 = 0
        var count = 0
        var invalidCount = 0
        var firstInvalid = -1
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
                                if firstInvalid < 0 { firstInvalid = i }
                            default:
                                strayPads += 1
                                if firstInvalid < 0 { firstInvalid = i }
                            }
                        } else {
                            invalidCount += 1
                            if firstInvalid < 0 { firstInvalid = i }
                        }
                    }
                }
            }
            written = o
        }
        var diagnostics: [MIMEDiagnostic] = []
        switch count {
        case 2: out.append(UInt8(truncatingIfNeeded: quantum >> 4))
        case 3:
            out.append(UInt8(truncatingIfNeeded: quantum >> 10))
            out.append(UInt8(truncatingIfNeeded: quantum >> 2))
        case 1:
            diagnostics.append(MIMEDiagnostic(.invalidBase64, at: range.upperBound, "truncated: one symbol left over"))
        default: break
        }
        if invalidCount > 0 || strayPads > 0 {
            diagnostics.insert(
                MIMEDiagnostic(
                    .invalidBase64, at: max(firstInvalid, range.lowerBound),
                    "skipped \(EnglishCount.of(invalidCount, "invalid symbol")) and \(EnglishCount.of(strayPads, "stray pad"))"), at: 0)
        }
        return TransferDecoding(bytes: out, diagnostics: diagnostics)
    }

    /// Decodes a base64 string with no diagnostics (RFC 2047 "B" encoding).
    static func decode(_ bytes: ArraySlice<UInt8>) -> (bytes: [UInt8], clean: Bool) {
        let array = Array(bytes)
        let result = decode(array, in: 0..<array.count)
        return (result.bytes, result.diagnostics.isEmpty)
    }
}
