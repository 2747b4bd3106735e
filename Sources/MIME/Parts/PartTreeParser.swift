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
        return parse(header: header, end: bytes.count, depth: 0, defaultType: .textPlain, enclosing: []).part
    }

    /// Reads one entity whose header is parsed; `end` is the furthest its body may reach.
    /// `enclosing` holds the boundaries of the multiparts around it, innermost last.
    private mutating func parse(
        header: HeaderSection, end: Int, depth: Int, defaultType: ContentType,
        enclosing: [[UInt8]]
    ) -> (part: MIMEPart, resume: Int) {
        let bodyRange = min(header.bodyStart, end)..<end
        var contentType = defaultType
        if let field = header.first("Content-Type") {
            // RFC 2045 §5.2: an unreadable Content-Type means text/plain.
            contentType = ContentType.parse(bytes[field.valueRange]) ?? .textPlain
        }
        let encoding = Self.transferEncoding(header, in: bytes)
        var isAttachment = false
        var filename: String? = nil
        if let field = header.first("Content-Disposition") {
            let disposition = ContentDisposition.parse(bytes[field.valueRange])
            isAttachment = disposition.type == "attachment"
            filename = disposition.parameters["filename"]
        }
        if filename == nil || filename?.isEmpty == true { filename = contentType.parameters["name"] }

        var part = MIMEPart(
            header: header, contentType: contentType, transferEncoding: encoding,
            bodyRange: bodyRange, children: [], depth: depth, isAttachment: isAttachment,
            filename: filename, preambleRange: nil, epilogueRange: nil)
        if contentType.isMultipart {
            guard depth < Limits.maxPartDepth else {
                diagnostics.append(MIMEDiagnostic(.partsTooDeep, at: bodyRange.lowerBound))
                return (part, end)
            }
            guard let boundary = contentType.parameters["boundary"], !boundary.isEmpty,
                boundary.utf8.count <= Limits.maxBoundaryLength
            else {
                diagnostics.append(MIMEDiagnostic(.missingBoundary, at: bodyRange.lowerBound))
                return (part, end)
            }
            let resume = splitMultipart(&part, boundary: Array(boundary.utf8), enclosing: enclosing)
            return (part, resume)
        } else if Self.holdsMessage(contentType, encoding: encoding) {
            // RFC 2046 §5.2.1: the body is a complete message. Encoded ones stay leaves (the
            // RFC forbids them; decoding would need a copy of the bytes).
            guard depth < Limits.maxPartDepth else {
                diagnostics.append(MIMEDiagnostic(.partsTooDeep, at: bodyRange.lowerBound))
                return (part, end)
            }
            guard partCount < Limits.maxParts else {
                diagnostics.append(MIMEDiagnostic(.tooManyParts, at: bodyRange.lowerBound))
                return (part, end)
            }
            partCount += 1
            let inner = HeaderSection.parse(bytes, in: bodyRange)
            diagnostics.append(contentsOf: inner.diagnostics)
            part.children = [
                parse(
                    header: inner, end: bodyRange.upperBound, depth: depth + 1,
                    defaultType: .textPlain, enclosing: enclosing
                ).part
            ]
        }
        return (part, end)
    }

    /// The Content-Transfer-Encoding of an entity, 7bit when absent (RFC 2045 §6.1).
    static func transferEncoding(_ header: HeaderSection, in bytes: [UInt8]) -> TransferEncoding {
        guard let field = header.first("Content-Transfer-Encoding") else { return .sevenBit }
        let value = StructuredLexer.stripComments(HeaderText.unfold(bytes[field.valueRange]))
        return TransferEncoding(String(decoding: value, as: UTF8.self).lowercased().filter { $0 != " " && $0 != "\t" && $0 != "\"" })
    }

    /// Whether an entity of this type and encoding holds a message read as a child part
    /// (RFC 2046 §5.2.1; encoded ones stay leaves: the RFC forbids them).
    static func holdsMessage(_ contentType: ContentType, encoding: TransferEncoding) -> Bool {
        contentType.type == "message" && (contentType.subtype == "rfc822" || contentType.subtype == "global")
            && encoding.isIdentity
    }

    /// A delimiter line found in a multipart body.
    struct Delimiter {
        /// Where the content before it ends (before the line break preceding the delimiter).
        let contentEnd: Int
        /// Where the delimiter line starts.
        let lineStart: Int
        /// Where the content after it starts (after the delimiter line's line break).
        let nextStart: Int
        let isClose: Bool
        /// Index of the boundary it matched in the stack it was searched with.
        let level: Int
    }

    /// The first delimiter line at or after the line starting at `from`, for any boundary of
    /// `stack`; a line matching several is claimed by the innermost (last) one.
    private func nextDelimiter(from: Int, end: Int, bodyStart: Int, stack: [[UInt8]]) -> Delimiter? {
        guard !stack.isEmpty else { return nil }
        return bytes.withUnsafeBufferPointer { p -> Delimiter? in
            guard let base = p.baseAddress else { return nil }
            // Every delimiter line starts with "-": the scan jumps from one "-" to the next
            // (memchr; base64 has none, so an attachment is crossed in one call, where going line
            // by line was the parser's hot loop) and looks only at those that begin a line.
            var next = from
            while next < end, let hit = memchr(base + next, Int32(UInt8(ascii: "-")), end - next) {
                let lineStart = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                next = lineStart + 1
                guard lineStart == from || p[lineStart - 1] == 0x0A else { continue }
                for level in stack.indices.reversed() {
                    if let d = Self.delimiter(
                        p, lineStart: lineStart, end: end, bodyStart: bodyStart,
                        boundary: stack[level], level: level)
                    {
                        return d
                    }
                }
            }
            return nil
        }
    }

    /// Splits a multipart body at its delimiters the way a streaming reader with a stack of
    /// boundaries does (RFC 2046 §5.1.1, §5.1.2): a delimiter of an enclosing multipart ends
    /// this one even without its close delimiter, and a line matching this multipart's own
    /// boundary belongs to it even when an enclosing multipart uses the same boundary.
    /// Returns where the enclosing multipart resumes: the start of the line of the delimiter
    /// that ended this one, or the end of the range.
    private mutating func splitMultipart(_ part: inout MIMEPart, boundary: [UInt8], enclosing: [[UInt8]]) -> Int {
        let range = part.bodyRange
        let end = range.upperBound
        let stack = enclosing + [boundary]
        let own = stack.count - 1
        let childDefault: ContentType = part.contentType.subtype == "digest" ? .messageRFC822 : .textPlain
        guard var delimiter = nextDelimiter(from: range.lowerBound, end: end, bodyStart: range.lowerBound, stack: stack) else {
            // No delimiter at all: the whole body is one part's worth of text we cannot split.
            diagnostics.append(MIMEDiagnostic(.missingCloseDelimiter, at: range.lowerBound, "no boundary line found"))
            return end
        }
        guard delimiter.level == own else {
            // An enclosing multipart's delimiter comes first: this one has no parts.
            diagnostics.append(MIMEDiagnostic(.missingCloseDelimiter, at: delimiter.contentEnd, "no boundary line found"))
            part.bodyRange = range.lowerBound..<max(range.lowerBound, delimiter.contentEnd)
            return delimiter.lineStart
        }
        if delimiter.contentEnd > range.lowerBound { part.preambleRange = range.lowerBound..<delimiter.contentEnd }
        var children: [MIMEPart] = []
        while true {
            if delimiter.isClose {
                // The epilogue runs to the next delimiter of an enclosing multipart.
                part.children = children
                let after = nextDelimiter(from: delimiter.nextStart, end: end, bodyStart: delimiter.nextStart, stack: enclosing)
                let epilogueEnd = max(delimiter.nextStart, after?.contentEnd ?? end)
                if delimiter.nextStart < epilogueEnd { part.epilogueRange = delimiter.nextStart..<epilogueEnd }
                part.bodyRange = range.lowerBound..<epilogueEnd
                return after?.lineStart ?? end
            }
            guard partCount < Limits.maxParts else {
                diagnostics.append(MIMEDiagnostic(.tooManyParts, at: delimiter.nextStart))
                part.children = children
                return end
            }
            partCount += 1
            // The child's header ends at its blank line, or at the next delimiter of any level.
            let childStart = delimiter.nextStart
            let following = nextDelimiter(from: childStart, end: end, bodyStart: childStart, stack: stack)
            let childEnd = max(childStart, following?.contentEnd ?? end)
            let header = HeaderSection.parse(bytes, in: childStart..<childEnd)
            diagnostics.append(contentsOf: header.diagnostics)
            // A nested multipart reads on past delimiters of its own boundary (even one equal
            // to an enclosing boundary): it gets the rest of this body and says where it stopped.
            let declared = header.first("Content-Type").flatMap { ContentType.parse(bytes[$0.valueRange]) }
            let nests =
                declared?.isMultipart == true && part.depth + 1 < Limits.maxPartDepth
                && !(declared?.parameters["boundary"] ?? "").isEmpty
                && (declared?.parameters["boundary"]?.utf8.count ?? 0) <= Limits.maxBoundaryLength
            let parsed = parse(
                header: header, end: nests ? end : childEnd, depth: part.depth + 1,
                defaultType: childDefault, enclosing: stack)
            let resume = nests ? parsed.resume : (following?.lineStart ?? end)
            let child = parsed.part
            children.append(child)
            guard resume < end,
                let next = nextDelimiter(from: resume, end: end, bodyStart: child.bodyRange.upperBound, stack: stack)
            else {
                diagnostics.append(MIMEDiagnostic(.missingCloseDelimiter, at: end))
                part.children = children
                return end
            }
            guard next.level == own else {
                // An enclosing multipart's delimiter: this one ends without its close delimiter.
                diagnostics.append(MIMEDiagnostic(.missingCloseDelimiter, at: next.contentEnd))
                part.children = children
                part.bodyRange = range.lowerBound..<max(range.lowerBound, next.contentEnd)
                return next.lineStart
            }
            delimiter = next
        }
    }

    /// The delimiter on the line at `lineStart`, if it is one: `--boundary` then white space or
    /// the line end, or `--boundary--` (RFC 2046 §5.1.1).
    static func delimiter(
        _ p: UnsafeBufferPointer<UInt8>, lineStart: Int, end: Int, bodyStart: Int,
        boundary: [UInt8], level: Int
    ) -> Delimiter? {
        let n = boundary.count
        guard lineStart + 2 + n <= end, p[lineStart] == UInt8(ascii: "-"), p[lineStart + 1] == UInt8(ascii: "-") else { return nil }
        for k in 0..<n where p[lineStart + 2 + k] != boundary[k] { return nil }
        var i = lineStart + 2 + n
        var isClose = false
        if i + 1 < end, p[i] == UInt8(ascii: "-"), p[i + 1] == UInt8(ascii: "-") {
            isClose = true
            i += 2
        } else if i < end, p[i] != 0x20, p[i] != 0x09, p[i] != 0x0D, p[i] != 0x0A {
            return nil  // a longer boundary that merely starts with this one
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
        return Delimiter(contentEnd: contentEnd, lineStart: lineStart, nextStart: nextStart, isClose: isClose, level: level)
    }
}
