import Glibc
/// Builds the MIME part tree of a message (RFC 2045, RFC 2046 §5) over its bytes.
///
/// Boundaries are matched at the start of a line as `--boundary` followed by white space or the
/// line end (RFC 2046 §5.1.1 transport padding; text after the white space is ignored), or by
/// `--` for the close delimiter; the line break before a delimiter belongs to the delimiter. A missing close delimiter ends the multipart at the end of its body. Nesting
/// stops at ``Limits/maxPartDepth`` and splitting at ``Limits/maxParts`` parts.
struct PartTreeParser {
    let bytes: [UInt8]
    private(set) var diagnostics: [MIMEDiagnostic] = []
    private var partCount = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    /// The root part, using an already parsed header section.
    mutating func parseRoot(header: HeaderSection) -> MIMEPart {
        partCount = 1
        return parse(header: header, end: bytes.count, depth: 0, defaultType: .textPlain)
    }

    private mutating func parsePart(_ range: Range<Int>, depth: Int, defaultType: ContentType) -> MIMEPart {
        let header = HeaderSection.parse(bytes, in: range)
        diagnostics.append(contentsOf: header.diagnostics)
        return parse(header: header, end: range.upperBound, depth: depth, defaultType: defaultType)
    }

    private mutating func parse(header: HeaderSection, end: Int, depth: Int, defaultType: ContentType) -> MIMEPart {
        let bodyRange = min(header.bodyStart, end)..<end
        var contentType = defaultType
        if let field = header.first("Content-Type") {
            // RFC 2045 §5.2: an unreadable Content-Type means text/plain.
            contentType = ContentType.parse(bytes[field.valueRange]) ?? .textPlain
        }
        var encoding = "7bit"
        if let field = header.first("Content-Transfer-Encoding") {
            let value = StructuredLexer.stripComments(HeaderText.unfold(bytes[field.valueRange]))
            encoding = String(decoding: value, as: UTF8.self).lowercased().filter { $0 != " " && $0 != "\t" && $0 != "\"" }
            if encoding.isEmpty { encoding = "7bit" }
        }
        var isAttachment = false
        var filename: String? = nil
        if let field = header.first("Content-Disposition") {
            let disposition = ContentDisposition.parse(bytes[field.valueRange])
            isAttachment = disposition.type == "attachment"
            filename = disposition.parameters["filename"]
        }
        if filename == nil || filename?.isEmpty == true { filename = contentType.parameters["name"] }

        var part = MIMEPart(header: header, contentType: contentType, transferEncoding: encoding,
                            bodyRange: bodyRange, children: [], depth: depth, isAttachment: isAttachment,
                            filename: filename, preambleRange: nil, epilogueRange: nil)
        if contentType.isMultipart {
            guard depth < Limits.maxPartDepth else {
                diagnostics.append(MIMEDiagnostic(.partsTooDeep, at: bodyRange.lowerBound))
                return part
            }
            guard let boundary = contentType.parameters["boundary"], !boundary.isEmpty,
                  boundary.utf8.count <= Limits.maxBoundaryLength else {
                diagnostics.append(MIMEDiagnostic(.missingBoundary, at: bodyRange.lowerBound))
                return part
            }
            splitMultipart(&part, boundary: Array(boundary.utf8))
        } else if contentType.type == "message", contentType.subtype == "rfc822" || contentType.subtype == "global",
                  encoding == "7bit" || encoding == "8bit" || encoding == "binary" {
            // RFC 2046 §5.2.1: the body is a complete message. Encoded ones stay leaves (the
            // RFC forbids them; decoding would need a copy of the bytes).
            guard depth < Limits.maxPartDepth else {
                diagnostics.append(MIMEDiagnostic(.partsTooDeep, at: bodyRange.lowerBound))
                return part
            }
            guard partCount < Limits.maxParts else {
                diagnostics.append(MIMEDiagnostic(.tooManyParts, at: bodyRange.lowerBound))
                return part
            }
            partCount += 1
            part.children = [parsePart(bodyRange, depth: depth + 1, defaultType: .textPlain)]
        }
        return part
    }

    /// A delimiter line found in a multipart body.
    private struct Delimiter {
        /// Where the content before it ends (before the line break preceding the delimiter).
        let contentEnd: Int
        /// Where the content after it starts (after the delimiter line's line break).
        let nextStart: Int
        let isClose: Bool
    }

    private mutating func splitMultipart(_ part: inout MIMEPart, boundary: [UInt8]) {
        let range = part.bodyRange
        let childDefault: ContentType = part.contentType.subtype == "digest" ? .messageRFC822 : .textPlain
        var delimiters: [Delimiter] = []
        bytes.withUnsafeBufferPointer { p in
            var lineStart = range.lowerBound
            let end = range.upperBound
            while lineStart < end {
                if let delimiter = Self.delimiter(p, lineStart: lineStart, end: end, bodyStart: range.lowerBound, boundary: boundary) {
                    delimiters.append(delimiter)
                    if delimiter.isClose { break }
                }
                // Next line (memchr: the scan over every body byte is the parser's hot loop).
                guard let base = p.baseAddress,
                      let lf = memchr(base + lineStart, 0x0A, end - lineStart) else { break }
                lineStart = base.distance(to: lf.assumingMemoryBound(to: UInt8.self)) + 1
            }
        }
        guard let first = delimiters.first else {
            // No delimiter at all: the whole body is one part's worth of text we cannot split.
            diagnostics.append(MIMEDiagnostic(.missingCloseDelimiter, at: range.lowerBound, "no boundary line found"))
            return
        }
        if first.contentEnd > range.lowerBound { part.preambleRange = range.lowerBound..<first.contentEnd }
        var children: [MIMEPart] = []
        for (index, delimiter) in delimiters.enumerated() where !delimiter.isClose {
            guard partCount < Limits.maxParts else {
                diagnostics.append(MIMEDiagnostic(.tooManyParts, at: delimiter.nextStart))
                break
            }
            partCount += 1
            let contentEnd = index + 1 < delimiters.count ? delimiters[index + 1].contentEnd : range.upperBound
            let childRange = delimiter.nextStart..<max(delimiter.nextStart, contentEnd)
            children.append(parsePart(childRange, depth: part.depth + 1, defaultType: childDefault))
        }
        if let last = delimiters.last, last.isClose {
            if last.nextStart < range.upperBound { part.epilogueRange = last.nextStart..<range.upperBound }
        } else {
            diagnostics.append(MIMEDiagnostic(.missingCloseDelimiter, at: range.upperBound))
        }
        part.children = children
    }

    /// The delimiter on the line at `lineStart`, if it is one: `--boundary` then white space or
    /// the line end, or `--boundary--` (RFC 2046 §5.1.1).
    private static func delimiter(_ p: UnsafeBufferPointer<UInt8>, lineStart: Int, end: Int, bodyStart: Int,
                                  boundary: [UInt8]) -> Delimiter? {
        let n = boundary.count
        guard lineStart + 2 + n <= end, p[lineStart] == UInt8(ascii: "-"), p[lineStart + 1] == UInt8(ascii: "-") else { return nil }
        for k in 0..<n where p[lineStart + 2 + k] != boundary[k] { return nil }
        var i = lineStart + 2 + n
        var isClose = false
        if i + 1 < end, p[i] == UInt8(ascii: "-"), p[i + 1] == UInt8(ascii: "-") {
            isClose = true
            i += 2
        } else if i < end, p[i] != 0x20, p[i] != 0x09, p[i] != 0x0D, p[i] != 0x0A {
            return nil   // a longer boundary that merely starts with this one
        }
        // Transport padding, and text senders put after the delimiter (ignored, as mime4j and
        // GMime do), up to the end of the line.
        while i < end, p[i] != 0x0A { i += 1 }
        let nextStart = i < end ? i + 1 : end
        // The line break before the delimiter is part of it.
        var contentEnd = lineStart
        if contentEnd > bodyStart, p[contentEnd - 1] == 0x0A {
            contentEnd -= 1
            if contentEnd > bodyStart, p[contentEnd - 1] == 0x0D { contentEnd -= 1 }
        }
        return Delimiter(contentEnd: contentEnd, nextStart: nextStart, isClose: isClose)
    }
}
