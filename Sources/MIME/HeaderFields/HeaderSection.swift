import ReservoirBase

/// The header section of a message or of a MIME part: its fields in order and where the body
/// begins.
///
/// Parsing never fails: a line that is neither a field nor a continuation ends the header
/// section if it comes first (a garbage line before the first field is skipped with a
/// diagnostic), and more than ``Limits/maxHeaderFields`` fields are dropped with a diagnostic.
public struct HeaderSection: Sendable {
    public private(set) var fields: [HeaderField]
    /// First byte of the body (after the empty line), or the end of the input when there is none.
    public let bodyStart: Int
    public private(set) var diagnostics: [MIMEDiagnostic]
    /// Fields past ``Limits/maxHeaderFields`` were dropped: what follows the limit is unseen.
    public private(set) var isTruncated = false
    /// A line of only spaces and tabs stands in the header section (a continuation or a
    /// skipped line). Relaxed body canonicalization (RFC 6376 §3.4.4) reads such a line as
    /// empty, that is as the end of a part's header section.
    public private(set) var hasWhitespaceOnlyLine = false

    public init(fields: [HeaderField], bodyStart: Int, diagnostics: [MIMEDiagnostic] = []) {
        self.fields = fields
        self.bodyStart = bodyStart
        self.diagnostics = diagnostics
    }

    /// How many fields have this name.
    public func count(_ name: String) -> Int {
        counts(of: [name])[0]
    }

    /// How many fields have each of these names (ASCII, any case), in one pass over the fields,
    /// comparing bytes in place: a copy of each field retained its name, per field and name.
    public func counts(of names: [String]) -> [Int] {
        let wanted = names.map { Array($0.utf8).map(ASCII.lowercased) }
        var result = [Int](repeating: 0, count: names.count)
        fields.withUnsafeBufferPointer { fields in
            for index in fields.indices {
                let matched: Int?? = fields[index].name.utf8.withContiguousStorageIfAvailable { name in
                    wanted.firstIndex { $0.count == name.count && zip(name, $0).allSatisfy { ASCII.lowercased($0) == $1 } }
                }
                if let position = matched ?? wanted.indices.first(where: { fields[index].hasName(names[$0]) }) {
                    result[position] += 1
                }
            }
        }
        return result
    }

    /// The first field with this name, from the top.
    public func first(_ name: String) -> HeaderField? {
        fields.first { $0.hasName(name) }
    }

    /// Every field with this name, from the top.
    public func all(_ name: String) -> [HeaderField] {
        fields.filter { $0.hasName(name) }
    }

    /// Splits `bytes[range]` into header fields. Accepts CRLF and bare LF line ends alike.
    public static func parse(_ bytes: [UInt8], in range: Range<Int>) -> HeaderSection {
        var fields: [HeaderField] = []
        var diagnostics: [MIMEDiagnostic] = []
        var truncated = false
        var whitespaceOnlyLine = false
        func section(_ bodyStart: Int) -> HeaderSection {
            var result = HeaderSection(fields: fields, bodyStart: bodyStart, diagnostics: diagnostics)
            result.isTruncated = truncated
            result.hasWhitespaceOnlyLine = whitespaceOnlyLine
            return result
        }
        var i = range.lowerBound
        let end = range.upperBound

        // RFC 5322 does not allow a BOM; senders write one anyway. Skip it.
        if end - i >= 3, bytes[i] == 0xEF, bytes[i + 1] == 0xBB, bytes[i + 2] == 0xBF {
            i += 3
            diagnostics.append(MIMEDiagnostic(.byteOrderMark, at: range.lowerBound))
        }

        // A skipped first line that turns out to begin a header-less body (RFC 2046 §5.1.1 allows
        // parts without header fields; some messages have none either).
        var skippedStart: Int? = nil
        func bodyStartWithoutFields(_ fallback: Int) -> Int {
            guard fields.isEmpty, let skippedStart else { return fallback }
            return skippedStart
        }

        while i < end {
            let lineStart = i
            let lineEnd = Self.lineEnd(bytes, from: i, end: end)  // index of CR or LF or end
            let next = Self.afterLineBreak(bytes, at: lineEnd, end: end)
            if lineEnd == lineStart {
                // The empty line separating header and body.
                return section(bodyStartWithoutFields(next))
            }
            guard let colon = Self.fieldColon(bytes, lineStart, lineEnd) else {
                if bytes[lineStart] == 0x20 || bytes[lineStart] == 0x09, fields.isEmpty {
                    // A continuation with nothing to continue: skip it.
                    diagnostics.append(MIMEDiagnostic(.garbageLine, at: lineStart))
                    if Self.isWhitespaceOnly(bytes, lineStart, lineEnd) { whitespaceOnlyLine = true }
                    i = next
                    continue
                }
                if fields.isEmpty, Self.looksLikeMboxFromLine(bytes, lineStart, lineEnd) || lineStart == range.lowerBound {
                    diagnostics.append(MIMEDiagnostic(.garbageLine, at: lineStart))
                    if skippedStart == nil, !Self.looksLikeMboxFromLine(bytes, lineStart, lineEnd) { skippedStart = lineStart }
                    i = next
                    continue
                }
                // Not a header line: the header section ends here without an empty line.
                diagnostics.append(MIMEDiagnostic(.missingHeaderBodySeparator, at: lineStart))
                return section(bodyStartWithoutFields(lineStart))
            }
            // Continuation lines start with white space (RFC 5322 §2.2.3).
            var fieldEnd = lineEnd
            var cursor = next
            while cursor < end, bytes[cursor] == 0x20 || bytes[cursor] == 0x09 {
                let continuationStart = cursor
                fieldEnd = Self.lineEnd(bytes, from: cursor, end: end)
                if !whitespaceOnlyLine, Self.isWhitespaceOnly(bytes, continuationStart, fieldEnd) { whitespaceOnlyLine = true }
                cursor = Self.afterLineBreak(bytes, at: fieldEnd, end: end)
            }
            if fields.count < Limits.maxHeaderFields {
                var nameEnd = colon
                while nameEnd > lineStart, bytes[nameEnd - 1] == 0x20 || bytes[nameEnd - 1] == 0x09 { nameEnd -= 1 }
                let name = String(decoding: bytes[lineStart..<nameEnd], as: UTF8.self)
                fields.append(HeaderField(name: name, rawRange: lineStart..<cursor, valueRange: (colon + 1)..<fieldEnd))
            } else if !truncated {
                truncated = true
                diagnostics.append(MIMEDiagnostic(.tooManyHeaderFields, at: lineStart))
            }
            i = cursor
        }
        return section(bodyStartWithoutFields(end))
    }

    /// Index of the CR of a CRLF, of a bare LF, or `end`.
    @inline(__always)
    static func lineEnd(_ bytes: [UInt8], from start: Int, end: Int) -> Int {
        var i = start
        while i < end {
            let b = bytes[i]
            if b == 0x0A { return i }
            if b == 0x0D, i + 1 < end, bytes[i + 1] == 0x0A { return i }
            i += 1
        }
        return end
    }

    @inline(__always)
    static func afterLineBreak(_ bytes: [UInt8], at lineEnd: Int, end: Int) -> Int {
        if lineEnd >= end { return end }
        return bytes[lineEnd] == 0x0D ? min(lineEnd + 2, end) : lineEnd + 1
    }

    /// The colon ending a field name: printable US-ASCII except colon (RFC 5322 §3.6.8),
    /// optionally followed by white space before the colon (obsolete syntax, §4.5).
    static func fieldColon(_ bytes: [UInt8], _ start: Int, _ end: Int) -> Int? {
        var i = start
        while i < end, bytes[i] >= 33, bytes[i] <= 126, bytes[i] != 0x3A { i += 1 }
        if i == start { return nil }
        while i < end, bytes[i] == 0x20 || bytes[i] == 0x09 { i += 1 }
        return i < end && bytes[i] == 0x3A ? i : nil
    }

    /// Whether `bytes[start..<end]` holds only spaces and tabs (and at least one).
    static func isWhitespaceOnly(_ bytes: [UInt8], _ start: Int, _ end: Int) -> Bool {
        guard start < end else { return false }
        for i in start..<end where bytes[i] != 0x20 && bytes[i] != 0x09 { return false }
        return true
    }

    static func looksLikeMboxFromLine(_ bytes: [UInt8], _ start: Int, _ end: Int) -> Bool {
        end - start >= 5 && bytes[start..<(start + 5)].elementsEqual("From ".utf8)
    }
}
