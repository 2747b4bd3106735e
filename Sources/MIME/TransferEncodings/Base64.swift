import ReservoirBase

/// The base64 Content-Transfer-Encoding (RFC 2045 §6.8), decoded leniently by
/// `Base64Text.decodeLeniently`, with what it skipped as diagnostics.
///
/// Line breaks and white space are ignored. Other characters outside the alphabet and stray `=`
/// are skipped and reported once per body; decoding goes on after padding (concatenated
/// encodings), and a final group of two or three symbols without padding is decoded.
public enum Base64 {
    public static func decode(_ bytes: [UInt8], in range: Range<Int>) -> TransferDecoding {
        let decoded = Base64Text.decodeLeniently(bytes, in: range)
        var diagnostics: [MIMEDiagnostic] = []
        if decoded.invalidSymbols > 0 || decoded.strayPads > 0 {
            diagnostics.append(
                MIMEDiagnostic(
                    .invalidBase64, at: max(decoded.firstSkipped ?? range.lowerBound, range.lowerBound),
                    "skipped \(EnglishCount.of(decoded.invalidSymbols, "invalid symbol")) and \(EnglishCount.of(decoded.strayPads, "stray pad"))"))
        }
        if decoded.truncated {
            diagnostics.append(MIMEDiagnostic(.invalidBase64, at: range.upperBound, "truncated: one symbol left over"))
        }
        return TransferDecoding(bytes: decoded.bytes, diagnostics: diagnostics)
    }

    /// Decodes a base64 string with no diagnostics (RFC 2047 "B" encoding).
    static func decode(_ bytes: ArraySlice<UInt8>) -> (bytes: [UInt8], clean: Bool) {
        let array = Array(bytes)
        let result = decode(array, in: 0..<array.count)
        return (result.bytes, result.diagnostics.isEmpty)
    }
}
