/// One entity of the MIME tree (RFC 2045 §2.4): its header section, what it declares, and where
/// its raw body lies in the message bytes. Nothing is copied or decoded here.
public struct MIMEPart: Sendable {
    /// The part's own header fields (ranges into the message bytes).
    public internal(set) var header: HeaderSection
    /// The declared or default Content-Type (RFC 2045 §5.2; message/rfc822 in multipart/digest).
    public internal(set) var contentType: ContentType
    /// The Content-Transfer-Encoding, 7bit when absent (RFC 2045 §6.1).
    public internal(set) var transferEncoding: TransferEncoding
    /// The raw (still transfer-encoded) body in the message bytes. For a multipart, the whole
    /// body including preamble and epilogue.
    public internal(set) var bodyRange: Range<Int>
    /// Sub-parts of a multipart, or the one nested message of a message/rfc822 part.
    public internal(set) var children: [MIMEPart]
    /// 0 for the message itself, one more per level of nesting.
    public internal(set) var depth: Int
    /// Content-Disposition: attachment (RFC 2183 §2.2).
    public internal(set) var isAttachment: Bool
    /// The disposition's filename, or else Content-Type's name parameter (decoded).
    public internal(set) var filename: String?
    /// Text before the first boundary of a multipart (RFC 2046 §5.1.1), if any.
    public internal(set) var preambleRange: Range<Int>?
    /// Text after the close delimiter of a multipart, if any.
    public internal(set) var epilogueRange: Range<Int>?

    /// Whether this part is a leaf (not a multipart and not a parsed message/rfc822).
    public var isLeaf: Bool { children.isEmpty && !contentType.isMultipart }

    /// Whether this part or one below it satisfies `test`, visited depth first in document
    /// order without copying the tree (``allParts`` copies every part).
    public func anyPart(where test: (MIMEPart) -> Bool) -> Bool {
        if test(self) { return true }
        for index in children.indices where children[index].anyPart(where: test) { return true }
        return false
    }

    /// Every part of the tree below and including this one, depth first in document order.
    public var allParts: [MIMEPart] {
        var result: [MIMEPart] = []
        func walk(_ part: MIMEPart) {
            result.append(part)
            for child in part.children { walk(child) }
        }
        walk(self)
        return result
    }
}
