/// The quoted-printable Content-Transfer-Encoding (RFC 2045 §6.7), decoded leniently.
///
/// Soft line breaks (`=` at the end of a line, LF or CRLF, optionally followed by transport
/// white space) are removed, so a multibyte character split across lines joins up again. An `=`
/// not followed by two hex digits is kept literally and reported. Hard line breaks stay as written.
public enum QuotedPrintable {
    @inline(__always)
    static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: return c - 0x30
        case 0x41...0x46: return c - 0x41 + 10
        case 0x61...0x66: return c - 0x61 + 10  // lowercase: not allowed, widely written
        default: return nil
        }
    }

    public static func decode(_ bytes: [UInt8], in range: Range<Int>) -> TransferDecoding {
        var out: [UInt8] = []
        out.reserveCapacity(range.count)
        var invalid = 0
        var firstInvalid = -1
        bytes.withUnsafeBufferPointer { p in
            var i = range.lowerBound
            let end = range.upperBound
            while i < end {
                let c = p[i]
                if c == UInt8(ascii: "=") {
                    if i + 2 < end, let h = hexValue(p[i + 1]), let l = hexValue(p[i + 2]) {
                        out.append(h << 4 | l)
                        i += 3
                        continue
                    }
                    // Soft line break: "=" then optional white space then a line end or the end.
                    var j = i + 1
                    while j < end, p[j] == 0x20 || p[j] == 0x09 { j += 1 }
                    if j == end {
                        i = end
                        continue
                    }
                    if p[j] == 0x0A {
                        i = j + 1
                        continue
                    }
                    if p[j] == 0x0D, j + 1 < end, p[j + 1] == 0x0A {
                        i = j + 2
                        continue
                    }
                    if p[j] == 0x0D, j + 1 == end {
                        i = end
                        continue
                    }
                    invalid += 1
                    if firstInvalid < 0 { firstInvalid = i }
                    out.append(c)
                    i += 1
                } else if c == 0x20 || c == 0x09 {
                    // RFC 2045 §6.7 (3): trailing white space on a line is transport padding.
                    var j = i + 1
                    while j < end, p[j] == 0x20 || p[j] == 0x09 { j += 1 }
                    let atLineEnd = j == end || p[j] == 0x0A || (p[j] == 0x0D && j + 1 < end && p[j + 1] == 0x0A)
                    if !atLineEnd { out.append(contentsOf: UnsafeBufferPointer(rebasing: p[i..<j])) }
                    i = j
                } else {
                    out.append(c)
                    i += 1
                }
            }
        }
        var diagnostics: [MIMEDiagnostic] = []
        if invalid > 0 {
            diagnostics.append(
                MIMEDiagnostic(.invalidQuotedPrintable, at: firstInvalid, "\(invalid) '=' not followed by two hex digits, kept literally"))
        }
        return TransferDecoding(bytes: out, diagnostics: diagnostics)
    }

    /// RFC 2047 §4.2 "Q" encoding: like quoted-printable, and "_" stands for a space.
    static func decodeQ(_ bytes: ArraySlice<UInt8>) -> (bytes: [UInt8], clean: Bool) {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var clean = true
        var i = bytes.startIndex
        while i < bytes.endIndex {
            let c = bytes[i]
            if c == UInt8(ascii: "_") {
                out.append(0x20)
                i += 1
            } else if c == UInt8(ascii: "="), i + 2 < bytes.endIndex,
                let h = hexValue(bytes[i + 1]), let l = hexValue(bytes[i + 2])
            {
                out.append(h << 4 | l)
                i += 3
            } else {
                if c == UInt8(ascii: "=") { clean = false }
                out.append(c)
                i += 1
            }
        }
        return (out, clean)
    }
}
