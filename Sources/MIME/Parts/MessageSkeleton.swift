import Glibc

/// A message too large to hold, read once in pieces and kept without what nothing reads: the
/// contents of attachments and other non-text leaves, preambles and epilogues.
///
/// What is kept — every header section byte for byte, every delimiter line, the text parts —
/// parses (``Message/init(bytes:)``) into the same part tree and the same text as the whole
/// message would, with empty bodies where contents were left out. The top-level header comes
/// first and unchanged, so a DKIM verifier can take its fields from the skeleton and hash the
/// body from the original file.
///
/// Parts are found the way ``PartTreeParser`` finds them (a stack of boundaries, the innermost
/// claiming a line first), so the two agree. Memory is bounded whatever the message size: text
/// parts are kept up to ``Limits/maxStreamedTextPartBytes`` each and the whole skeleton up to
/// ``Limits/maxSkeletonBytes``; a header section over ``Limits/maxStreamedHeaderBytes`` ends
/// there (for the top-level header, ``headerTooLarge`` says the message cannot be analysed).
public struct MessageSkeleton {
    /// The kept bytes, in their original order.
    public private(set) var bytes: [UInt8] = []
    /// Where the top-level body starts in the original message; nil until its header is read.
    public private(set) var bodyStart: Int?
    /// Bytes read so far: the original size once ``finish()`` is called.
    public private(set) var size = 0
    /// Text left out because of the limits.
    public private(set) var diagnostics: [MIMEDiagnostic] = []
    /// The top-level header section is larger than ``Limits/maxStreamedHeaderBytes``.
    public private(set) var headerTooLarge = false

    /// An open multipart: its boundary, its depth, and whether it is a digest.
    private struct Frame {
        let boundary: [UInt8]
        let depth: Int
        let digest: Bool
    }

    private enum Mode {
        /// Reading a header section: of the message, of a part, or of a message/rfc822 body.
        case header(depth: Int, defaultType: ContentType, top: Bool)
        /// The body of a text leaf: kept.
        case keep
        /// Anything else: left out.
        case skip
    }

    private var stack: [Frame] = []
    /// For each message/rfc822 body being read, how many frames enclose it. As in
    /// ``PartTreeParser``, where an attached message ends at the next delimiter of the
    /// multiparts around it before its own parts are looked at, a line matching one of those
    /// ends the attached message even when it also matches a boundary declared inside it.
    private var barriers: [Int] = []
    private var mode: Mode = .header(depth: 0, defaultType: .textPlain, top: true)
    private var partCount = 1
    /// More than ``Limits/maxParts`` parts: nothing more is split, as in ``PartTreeParser``.
    private var splittingStopped = false
    /// Bytes of the current text part kept so far.
    private var keptInPart = 0
    /// The header section being read.
    private var header: [UInt8] = []
    private var headerSawField = false
    private var headerLines = 0
    /// The start of the current line, gathered until it can be told apart (delimiter or not).
    private var line: [UInt8] = []
    /// What the rest of the current line is, once its start told it apart.
    private enum RestOfLine { case text, structure, skip }
    private var restOfLine: RestOfLine?
    /// Nothing more is kept (``Limits/maxSkeletonBytes``).
    private var full = false
    /// The next line is kept whatever the part: the first body line of a header section that
    /// ended without its empty line. Left out, the next kept line (a delimiter with a colon in
    /// its boundary, say) could read as one more header field.
    private var keepNextLine = false

    public init() {}

    /// The skeleton of the message in a file, read from its start to its end with pread(2) (the
    /// descriptor's offset is left alone); nil when reading fails.
    public static func read(descriptor: Int32, chunkSize: Int = 1 << 18) -> MessageSkeleton? {
        var skeleton = MessageSkeleton()
        var chunk = [UInt8](repeating: 0, count: chunkSize)
        let ok = chunk.withUnsafeMutableBufferPointer { buffer -> Bool in
            var offset = 0
            while true {
                let n = pread(descriptor, buffer.baseAddress, buffer.count, off_t(offset))
                if n > 0 {
                    skeleton.feed(UnsafeBufferPointer(rebasing: buffer[0..<n]))
                    offset += n
                    continue
                }
                if n == 0 { return true }
                if errno == EINTR { continue }
                return false
            }
        }
        guard ok else { return nil }
        skeleton.finish()
        return skeleton
    }

    /// The next bytes of the message, in order; chunks may split lines anywhere.
    public mutating func feed(_ chunk: UnsafeBufferPointer<UInt8>) {
        size += chunk.count
        consume(chunk)
    }

    /// Ends the message: a last line without a line break and an unfinished header section
    /// are read as they are.
    public mutating func finish() {
        // Ending a line or a header section may hand back bytes to re-read, which may leave
        // another unfinished line or start another header section (a message/rfc822 body):
        // repeated until nothing is pending, bounded by the part depth.
        for _ in 0...(2 * Limits.maxPartDepth + 4) {
            if restOfLine == nil, !line.isEmpty {
                let last = line
                line.removeAll()
                lineStarted(last, complete: true)
                continue
            }
            restOfLine = nil
            guard case .header(_, _, let top) = mode else { return }
            endHeader(top: top)
        }
    }

    // MARK: Lines

    private mutating func consume(_ chunk: UnsafeBufferPointer<UInt8>) {
        guard let base = chunk.baseAddress else { return }
        let n = chunk.count
        var i = 0
        while i < n {
            if let rest = restOfLine {
                let lf = memchr(base + i, 0x0A, n - i)
                let end = lf.map { base.distance(to: $0.assumingMemoryBound(to: UInt8.self)) + 1 } ?? n
                let piece = UnsafeBufferPointer(start: base + i, count: end - i)
                switch rest {
                case .text: keepText(piece)
                case .structure: keepStructure(piece)
                case .skip: break
                }
                i = end
                if lf != nil { restOfLine = nil }
                continue
            }
            let need = decisionLength
            if line.isEmpty, !keepNextLine, need <= 1 || base[i] != UInt8(ascii: "-") {
                // The usual line: not a delimiter, told apart by its first byte.
                if case .header = mode {
                } else {
                    restOfLine = keepsContent ? .text : .skip
                    continue
                }
            }
            let window = min(n - i, need - line.count)
            if let lf = memchr(base + i, 0x0A, window) {
                let end = base.distance(to: lf.assumingMemoryBound(to: UInt8.self)) + 1
                line.append(contentsOf: UnsafeBufferPointer(start: base + i, count: end - i))
                i = end
                let complete = line
                line.removeAll(keepingCapacity: true)
                lineStarted(complete, complete: true)
            } else {
                line.append(contentsOf: UnsafeBufferPointer(start: base + i, count: window))
                i += window
                if line.count >= need {
                    let start = line
                    line.removeAll(keepingCapacity: true)
                    lineStarted(start, complete: false)
                }
            }
        }
    }

    /// Bytes of a line's start needed to tell what it is: a whole header line; in a body, enough
    /// for `--boundary--` and the byte after it.
    private var decisionLength: Int {
        if case .header = mode { return Limits.maxStreamedHeaderBytes - header.count + 1 }
        guard !splittingStopped, !stack.isEmpty else { return 1 }
        return stack.reduce(0) { max($0, $1.boundary.count) } + 5
    }

    private var keepsContent: Bool {
        if case .keep = mode { return !full }
        return false
    }

    /// A line (or, when not `complete`, its first ``decisionLength`` bytes; the rest follows
    /// through ``restOfLine``).
    private mutating func lineStarted(_ start: [UInt8], complete: Bool) {
        let forced = keepNextLine
        keepNextLine = false
        // A delimiter ends the header section being read, and the one after it when that
        // entity holds a message (message/rfc822); an entity ended this way may open a
        // multipart whose boundary claims the line first. Bounded by the part depth.
        var delimiter = matchDelimiter(start)
        var rounds = 0
        while delimiter != nil, case .header(_, _, let top) = mode, rounds <= Limits.maxPartDepth + 2 {
            endHeader(top: top)
            rounds += 1
            delimiter = matchDelimiter(start)
        }
        if let delimiter {
            delimiterLine(start, delimiter, complete: complete)
        } else if case .header(_, _, let top) = mode {
            headerLine(start, complete: complete, top: top)
        } else {
            contentLine(start, complete: complete, forced: forced)
        }
    }

    private mutating func contentLine(_ start: [UInt8], complete: Bool, forced: Bool) {
        if forced, !keepsContent {
            keepStructure(start)
            if !complete { restOfLine = .structure }
            return
        }
        let keep = keepsContent
        if keep { start.withUnsafeBufferPointer { keepText($0) } }
        if !complete { restOfLine = keep && keepsContent ? .text : .skip }
    }

    /// Feeds bytes again from a line start (the part of a header buffer that turned out to be body).
    private mutating func reread(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { consume($0) }
    }

    /// The frame a line is a delimiter of: the frames outside the outermost attached message
    /// first, then those inside it, and so on; the innermost first within each group.
    private func matchDelimiter(_ start: [UInt8]) -> (level: Int, isClose: Bool)? {
        guard !splittingStopped, !stack.isEmpty, start.first == UInt8(ascii: "-") else { return nil }
        return start.withUnsafeBufferPointer { p -> (Int, Bool)? in
            var lower = 0
            for upper in barriers + [stack.count] where upper > lower {
                for level in (lower..<upper).reversed() {
                    if let d = PartTreeParser.delimiter(
                        p, lineStart: 0, end: p.count, bodyStart: 0,
                        boundary: stack[level].boundary, level: level)
                    {
                        return (level, d.isClose)
                    }
                }
                lower = upper
            }
            return nil
        }
    }

    private mutating func delimiterLine(_ start: [UInt8], _ delimiter: (level: Int, isClose: Bool), complete: Bool) {
        keepStructure(start)
        if !complete { restOfLine = .structure }
        let frame = stack[delimiter.level]
        // Multiparts inside the one this delimiter belongs to end without their close delimiter,
        // and so do attached messages inside its parts.
        stack.removeSubrange((delimiter.level + 1)...)
        barriers.removeAll { $0 > delimiter.level }
        if delimiter.isClose {
            stack.removeLast()
            mode = .skip  // the epilogue
            return
        }
        guard partCount < Limits.maxParts else {
            splittingStopped = true
            mode = .skip
            return
        }
        partCount += 1
        mode = .header(depth: frame.depth + 1, defaultType: frame.digest ? .messageRFC822 : .textPlain, top: false)
    }

    // MARK: Header sections

    private mutating func headerLine(_ start: [UInt8], complete: Bool, top: Bool) {
        header += start
        headerLines += 1
        guard complete else {
            // Longer than a header section may be.
            if top { headerTooLarge = true }
            endHeader(top: top)
            return
        }
        if endsHeader(start, first: headerLines == 1) { endHeader(top: top) }
    }

    /// Whether this complete line ends a header section the way ``HeaderSection/parse(_:in:)``
    /// ends it: the empty line, or a line that is neither a field nor a continuation once a
    /// field was read (a first garbage line and mbox `From ` lines are skipped).
    private mutating func endsHeader(_ line: [UInt8], first: Bool) -> Bool {
        var start = 0
        if first, line.starts(with: [0xEF, 0xBB, 0xBF]) { start = 3 }
        var end = line.count
        if end > start, line[end - 1] == 0x0A { end -= 1 }
        if end > start, line[end - 1] == 0x0D { end -= 1 }
        if end == start { return true }
        if line[start] == 0x20 || line[start] == 0x09 { return false }
        let isField = line.withUnsafeBufferPointer { p in
            var i = start
            while i < end, p[i] >= 33, p[i] <= 126, p[i] != 0x3A { i += 1 }
            guard i > start else { return false }
            while i < end, p[i] == 0x20 || p[i] == 0x09 { i += 1 }
            return i < end && p[i] == 0x3A
        }
        if isField {
            headerSawField = true
            return false
        }
        if !headerSawField, first || line[start...].starts(with: Array("From ".utf8)) { return false }
        return true
    }

    /// Reads the collected header section, decides what its entity's body is, and re-reads
    /// what followed the header section inside the collected bytes.
    private mutating func endHeader(top: Bool) {
        guard case .header(let depth, let defaultType, _) = mode else { return }
        let collected = header
        header = []
        headerSawField = false
        headerLines = 0
        let section = HeaderSection.parse(collected, in: 0..<collected.count)
        let headerEnd = min(section.bodyStart, collected.count)
        if top {
            bodyStart = headerEnd
            bytes += collected[0..<headerEnd]
        } else {
            keepStructure(collected[0..<headerEnd])
        }

        var contentType = defaultType
        if let field = section.first("Content-Type") {
            contentType = ContentType.parse(collected[field.valueRange]) ?? .textPlain
        }
        let encoding = PartTreeParser.transferEncoding(section, in: collected)
        keptInPart = 0
        if contentType.isMultipart {
            mode = .skip  // the preamble, or a multipart that cannot be split (kept as a leaf)
            if depth < Limits.maxPartDepth, let boundary = contentType.parameters["boundary"], !boundary.isEmpty,
                boundary.utf8.count <= Limits.maxBoundaryLength
            {
                stack.append(Frame(boundary: Array(boundary.utf8), depth: depth, digest: contentType.subtype == "digest"))
            }
        } else if PartTreeParser.holdsMessage(contentType, encoding: encoding), depth < Limits.maxPartDepth,
            partCount < Limits.maxParts
        {
            partCount += 1
            barriers.append(stack.count)
            mode = .header(depth: depth + 1, defaultType: .textPlain, top: false)
        } else {
            mode = contentType.type == "text" ? .keep : .skip
        }
        if headerEnd < collected.count {
            keepNextLine = !Self.endsWithEmptyLine(collected[0..<headerEnd])
            let rest = Array(collected[headerEnd...])
            reread(rest)
        }
    }

    /// Whether a header section ends with its empty line (LF or CRLF alone).
    static func endsWithEmptyLine(_ header: ArraySlice<UInt8>) -> Bool {
        var i = header.endIndex
        guard i > header.startIndex, header[i - 1] == 0x0A else { return false }
        i -= 1
        if i > header.startIndex, header[i - 1] == 0x0D { i -= 1 }
        return i == header.startIndex || header[i - 1] == 0x0A
    }

    // MARK: Keeping

    /// Header sections and delimiter lines: kept until the skeleton is full.
    private mutating func keepStructure(_ piece: some Collection<UInt8>) {
        guard !full else { return }
        bytes += piece
        if bytes.count >= Limits.maxSkeletonBytes {
            full = true
            diagnostics.append(
                MIMEDiagnostic(
                    .partTruncated, at: size,
                    "more than \(Limits.maxSkeletonBytes >> 20) MB of headers and text: the rest of the message is not read"))
        }
    }

    /// Text of a text part, up to the per-part and whole-skeleton limits; a line cut short gets
    /// a line break so the next delimiter stays on a line of its own.
    private mutating func keepText(_ piece: UnsafeBufferPointer<UInt8>) {
        guard case .keep = mode, !full else { return }
        let room = min(Limits.maxStreamedTextPartBytes - keptInPart, Limits.maxSkeletonBytes - bytes.count)
        if piece.count <= room {
            bytes.append(contentsOf: piece)
            keptInPart += piece.count
            return
        }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: piece[0..<max(0, room)]))
        if bytes.last != 0x0A { bytes.append(0x0A) }
        mode = .skip
        if restOfLine != nil { restOfLine = .skip }
        diagnostics.append(
            MIMEDiagnostic(
                .partTruncated, at: size,
                "text part longer than \(Limits.maxStreamedTextPartBytes >> 20) MB in a large message: the rest of it is not read"))
    }
}
