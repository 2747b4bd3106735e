/// Decoding of header field values into text: unfolding, raw 8-bit bytes and RFC 2047 encoded
/// words.
public enum HeaderText {
    /// Longest encoded word accepted (RFC 2047 §2 allows 75 characters; senders write longer).
    public static let maxEncodedWordLength = 4096

    /// The value with folding removed (RFC 5322 §2.2.3: CRLF followed by white space is
    /// unfolded by removing the CRLF) and surrounding white space trimmed. Bytes stay raw.
    public static func unfold<C: Collection>(_ value: C) -> [UInt8] where C.Element == UInt8 {
        var out: [UInt8] = []
        out.reserveCapacity(value.count)
        for b in value where b != 0x0D && b != 0x0A { out.append(b) }
        var start = 0
        var end = out.count
        while start < end, out[start] == 0x20 || out[start] == 0x09 { start += 1 }
        while end > start, out[end - 1] == 0x20 || out[end - 1] == 0x09 { end -= 1 }
        return start == 0 && end == out.count ? out : Array(out[start..<end])
    }

    /// Unstructured text (RFC 5322 §3.2.5, e.g. Subject): unfolded, encoded words decoded,
    /// other bytes read as UTF-8 with a windows-1252 fallback.
    public static func decode<C: Collection>(_ value: C, at offset: Int = 0) -> (text: String, diagnostics: [MIMEDiagnostic])
    where C.Element == UInt8 {
        let unfolded = unfold(value)
        var diagnostics: [MIMEDiagnostic] = []
        let utf8 = decodeEncodedWords(unfolded, at: offset, diagnostics: &diagnostics)
        return (String(decoding: utf8, as: UTF8.self), diagnostics)
    }

    /// Replaces RFC 2047 encoded words in `text` and returns UTF-8 bytes. White space between two
    /// encoded words is dropped (RFC 2047 §6.2), and adjacent words in the same charset are joined
    /// before charset decoding so a character split between them survives. Malformed words stay
    /// as written and are reported.
    static func decodeEncodedWords(_ text: [UInt8], at offset: Int, diagnostics: inout [MIMEDiagnostic]) -> [UInt8] {
        guard containsMarker(text) else { return UTF8Repair.repair(text) }
        var out: [UInt8] = []
        out.reserveCapacity(text.count)
        var pendingOctets: [UInt8] = []
        var pendingCharset: Charset? = nil
        var literalStart = 0  // start of text not yet copied to `out`
        var afterWord = false  // last thing copied was an encoded word
        var i = 0

        func flushPending() {
            guard let charset = pendingCharset else { return }
            let (utf8, known) = charset.decodeToUTF8(pendingOctets)
            if !known { diagnostics.append(MIMEDiagnostic(.unknownCharset, at: offset, charset.label)) }
            out.append(contentsOf: utf8)
            pendingOctets.removeAll(keepingCapacity: true)
            pendingCharset = nil
        }

        while i + 1 < text.count {
            guard text[i] == UInt8(ascii: "="), text[i + 1] == UInt8(ascii: "?") else {
                i += 1
                continue
            }
            guard let word = EncodedWord.parse(text, at: i) else {
                if EncodedWord.looksLikeWord(text, at: i) {
                    diagnostics.append(MIMEDiagnostic(.invalidEncodedWord, at: offset, "malformed encoded word kept as written"))
                }
                i += 2
                continue
            }
            let between = text[literalStart..<i]
            let onlySpace = between.allSatisfy { $0 == 0x20 || $0 == 0x09 }
            if !(afterWord && onlySpace) {
                flushPending()
                out.append(contentsOf: UTF8Repair.repair(between))
            }
            if !word.clean {
                diagnostics.append(MIMEDiagnostic(.invalidEncodedWord, at: offset, "damaged encoded text decoded as far as possible"))
            }
            if let current = pendingCharset, current != word.charset { flushPending() }
            pendingCharset = word.charset
            pendingOctets.append(contentsOf: word.octets)
            afterWord = true
            i = word.end
            literalStart = i
        }
        flushPending()
        out.append(contentsOf: UTF8Repair.repair(text[literalStart...]))
        return out
    }

    @inline(__always)
    package static func containsMarker(_ text: [UInt8]) -> Bool {
        var i = 0
        while i + 1 < text.count {
            if text[i] == UInt8(ascii: "="), text[i + 1] == UInt8(ascii: "?") { return true }
            i += 1
        }
        return false
    }
}

/// One RFC 2047 encoded word: `=?charset?encoding?encoded-text?=`.
struct EncodedWord {
    let charset: Charset
    let octets: [UInt8]
    /// False when the encoded text had invalid symbols that were skipped or kept.
    let clean: Bool
    /// Index just past the closing `?=`.
    let end: Int

    /// Reads an encoded word starting at `start` (which holds `=?`), or nil if the bytes there are
    /// not a well-formed word (RFC 2047 §2: a charset without white space, B or Q).
    static func parse(_ text: [UInt8], at start: Int) -> EncodedWord? {
        let limit = min(text.count, start + HeaderText.maxEncodedWordLength)
        var i = start + 2
        let charsetStart = i
        while i < limit, text[i] != UInt8(ascii: "?") {
            if isSpaceOrControl(text[i]) { return nil }
            i += 1
        }
        guard i < limit, i > charsetStart else { return nil }
        let label = String(decoding: text[charsetStart..<i], as: UTF8.self)
        i += 1
        guard i + 1 < limit, text[i + 1] == UInt8(ascii: "?") else { return nil }
        let encoding = text[i] | 0x20
        guard encoding == UInt8(ascii: "b") || encoding == UInt8(ascii: "q") else { return nil }
        i += 2
        let encodedStart = i
        // RFC 2047 §2 forbids white space in encoded text; mailers fold inside it or write
        // raw spaces in Q text, so spaces and tabs are accepted there (as Python does).
        while i + 1 < limit, !(text[i] == UInt8(ascii: "?") && text[i + 1] == UInt8(ascii: "=")) {
            if isSpaceOrControl(text[i]), text[i] != 0x20, text[i] != 0x09 { return nil }
            // Neither B nor Q text contains "?" (RFC 2047 §4): an unterminated word ends here.
            if text[i] == UInt8(ascii: "?") { return nil }
            i += 1
        }
        guard i + 1 < limit else { return nil }
        let encoded = text[encodedStart..<i]
        let decoded = encoding == UInt8(ascii: "b") ? Base64.decode(encoded) : QuotedPrintable.decodeQ(encoded)
        return EncodedWord(charset: Charset(label: label), octets: decoded.bytes, clean: decoded.clean, end: i + 2)
    }

    /// Whether the bytes at `start` begin like an encoded word (`=?x?B?` or `=?x?Q?`), so a
    /// failure to parse deserves a diagnostic rather than being ordinary text.
    static func looksLikeWord(_ text: [UInt8], at start: Int) -> Bool {
        var i = start + 2
        while i < text.count, text[i] != UInt8(ascii: "?"), !isSpaceOrControl(text[i]) { i += 1 }
        guard i + 2 < text.count, i > start + 2, text[i + 2] == UInt8(ascii: "?") else { return false }
        return true
    }

    @inline(__always)
    static func isSpaceOrControl(_ b: UInt8) -> Bool { b <= 0x20 || b == 0x7F }
}
