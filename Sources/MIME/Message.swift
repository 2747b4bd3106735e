import Glibc
import ReservoirBase

/// A parsed message: the exact bytes it was read from, its header section and its part tree.
///
/// Parsing never throws; what could not be read is recorded in ``diagnostics``. The part tree
/// holds byte ranges only; bodies are decoded when asked for (``decodedBody(of:)``, ``text(of:)``).
public struct Message: Sendable {
    /// The message exactly as read (LF or CRLF line ends, as stored).
    public let bytes: [UInt8]
    /// The top-level header section.
    public let header: HeaderSection
    /// Where the top-level body starts and ends in ``bytes``.
    public var bodyRange: Range<Int> { header.bodyStart..<bytes.count }
    /// The part tree; its root carries ``header`` (message/rfc822 parts hold their message as
    /// their one child).
    public let root: MIMEPart
    /// What the header and part-tree parsers noticed.
    private let structureDiagnostics: [MIMEDiagnostic]

    public init(bytes: [UInt8]) {
        self.bytes = bytes
        let header = HeaderSection.parse(bytes, in: 0..<bytes.count)
        self.header = header
        var parser = PartTreeParser(bytes: bytes)
        self.root = parser.parseRoot(header: header)
        self.structureDiagnostics = header.diagnostics + parser.diagnostics
    }
}

extension Message {
    /// Everything noticed while reading: header sections, the part tree, the Subject and From
    /// values, and the transfer and charset decoding of every leaf part.
    public var diagnostics: [MIMEDiagnostic] { diagnostics(textPartsOnly: false) }

    /// The diagnostics, decoding only text parts when `textPartsOnly` (what a reader of the
    /// text needs; attachments are not decoded just to look for damage).
    public func diagnostics(textPartsOnly: Bool) -> [MIMEDiagnostic] {
        var result = structureDiagnostics
        if let field = header.first("Subject") {
            result += HeaderText.decode(bytes[field.valueRange], at: field.valueRange.lowerBound).diagnostics
        }
        for part in root.allParts where part.isLeaf && (!textPartsOnly || part.contentType.type == "text") {
            result += TransferDecoding.decode(bytes, in: part.bodyRange, encoding: part.transferEncoding).diagnostics
            if part.contentType.type == "text", let label = part.contentType.charset, !Charset(label: label).isKnown {
                result.append(MIMEDiagnostic(.unknownCharset, at: part.bodyRange.lowerBound, label))
            }
        }
        return result
    }

    /// The Subject (RFC 5322 §3.6.5), unfolded and RFC 2047 decoded; nil without a Subject field.
    public var subject: String? {
        guard let field = header.first("Subject") else { return nil }
        return HeaderText.decode(bytes[field.valueRange], at: field.valueRange.lowerBound).text
    }

    /// Every mailbox of every From field, in order (RFC 5322 §3.6.2).
    public var from: [MailboxAddress] {
        header.all("From").flatMap { MailboxAddress.parseList(bytes[$0.valueRange]) }
    }

    /// How many From fields the header has (more than one is a forgery signal, RFC 5322 §3.6).
    public var fromFieldCount: Int { header.all("From").count }

    /// Every mailbox of every field with this name (To, Cc, Reply-To, Sender…), in order.
    public func addresses(_ fieldName: String) -> [MailboxAddress] {
        header.all(fieldName).flatMap { MailboxAddress.parseList(bytes[$0.valueRange]) }
    }

    /// The Message-ID (RFC 5322 §3.6.4) with its angle brackets as written; without brackets,
    /// the trimmed value.
    public var messageID: String? {
        guard let field = header.first("Message-ID") else { return nil }
        let value = StructuredLexer.stripComments(HeaderText.unfold(bytes[field.valueRange]))
        if let open = value.firstIndex(of: UInt8(ascii: "<")),
            let close = value[open...].firstIndex(of: UInt8(ascii: ">"))
        {
            return String(decoding: UTF8Repair.repair(value[open...close]), as: UTF8.self)
        }
        let trimmed = HeaderText.unfold(value)
        return trimmed.isEmpty ? nil : String(decoding: UTF8Repair.repair(trimmed), as: UTF8.self)
    }

    /// The Date field (RFC 5322 §3.6.1) parsed, nil when absent or unreadable.
    public var date: MessageDate? {
        guard let field = header.first("Date") else { return nil }
        return MessageDate.parse(bytes[field.valueRange])
    }

    /// The text/html leaves of this message's own body that are not attachments, in document
    /// order, through every multipart (alternative, related, mixed…). Parts inside an attached
    /// message/rfc822 are not included.
    public var htmlParts: [MIMEPart] {
        var result: [MIMEPart] = []
        func walk(_ part: MIMEPart) {
            if part.contentType.type == "message", part.depth > 0 { return }
            if part.contentType.isMultipart {
                for child in part.children { walk(child) }
            } else if part.contentType.mediaType == "text/html", !part.isAttachment {
                result.append(part)
            }
        }
        walk(root)
        return result
    }

    /// The part's body with its Content-Transfer-Encoding undone.
    public func decodedBody(of part: MIMEPart) -> [UInt8] {
        TransferDecoding.decode(bytes, in: part.bodyRange, encoding: part.transferEncoding).bytes
    }

    /// The start of the part's body, transfer-decoded from its first `encodedBytes` bytes: what
    /// a caller that looks at the head of a large attachment decodes instead of the whole.
    public func decodedBody(of part: MIMEPart, encodedPrefix encodedBytes: Int) -> [UInt8] {
        let range = part.bodyRange.lowerBound..<min(part.bodyRange.upperBound, part.bodyRange.lowerBound + max(0, encodedBytes))
        return TransferDecoding.decode(bytes, in: range, encoding: part.transferEncoding).bytes
    }

    /// The part's body as text: transfer-decoded, then decoded from its charset (for HTML
    /// without one, the charset its `<meta>` declares; UTF-8 with a windows-1252 fallback when
    /// there is none or it is unknown), line breaks normalized to LF.
    public func text(of part: MIMEPart) -> String {
        let decoded = decodedBody(of: part)
        var label = part.contentType.charset ?? ""
        if label.isEmpty, part.contentType.subtype == "html", let declared = Self.htmlDeclaredCharset(decoded) {
            label = declared
        }
        var utf8 = Charset(label: label).decodeToUTF8(decoded).utf8
        // A byte order mark is not text.
        if utf8.starts(with: [0xEF, 0xBB, 0xBF]) { utf8.removeFirst(3) }
        // CRLF → LF, so LF and CRLF copies of a message read the same.
        let hasCR = utf8.withUnsafeBytes { buffer in buffer.baseAddress.map { memchr($0, 0x0D, buffer.count) != nil } ?? false }
        if hasCR {
            var out: [UInt8] = []
            out.reserveCapacity(utf8.count)
            var i = 0
            while i < utf8.count {
                if utf8[i] == 0x0D, i + 1 < utf8.count, utf8[i + 1] == 0x0A {
                    i += 1
                    continue
                }
                out.append(utf8[i])
                i += 1
            }
            utf8 = out
        }
        return String(decoding: utf8, as: UTF8.self)
    }

    /// Bytes of an HTML body searched for a `<meta … charset=…>` declaration (the HTML
    /// standard's prescan looks at the first 1024 bytes; mail HTML puts styles first).
    static let htmlCharsetScanLength = 4096

    /// The charset an HTML document declares in `<meta charset=…>` or
    /// `<meta http-equiv="Content-Type" content="…; charset=…">`, if any.
    static func htmlDeclaredCharset(_ html: [UInt8]) -> String? {
        let limit = min(html.count, htmlCharsetScanLength)
        let needle = Array("charset".utf8)
        var i = 0
        while i + needle.count < limit {
            var matches = true
            for k in 0..<needle.count where html[i + k] | 0x20 != needle[k] {
                matches = false
                break
            }
            if !matches {
                i += 1
                continue
            }
            var j = i + needle.count
            while j < limit, html[j] == 0x20 { j += 1 }
            guard j < limit, html[j] == UInt8(ascii: "=") else {
                i += 1
                continue
            }
            j += 1
            while j < limit, html[j] == 0x20 || html[j] == UInt8(ascii: "\"") || html[j] == UInt8(ascii: "'") { j += 1 }
            let start = j
            while j < limit, html[j] < 0x80,
                html[j] == UInt8(ascii: "-") || html[j] == UInt8(ascii: "_") || html[j] == UInt8(ascii: ":")
                    || html[j] == UInt8(ascii: ".") || ASCII.isLetter(html[j]) || ASCII.isDigit(html[j])
            { j += 1 }
            return j > start ? String(decoding: html[start..<j], as: UTF8.self) : nil
        }
        return nil
    }
}
