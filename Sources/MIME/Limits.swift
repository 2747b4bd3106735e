/// Every bound the MIME reader enforces. Input past a bound is kept as raw bytes where it
/// can be and recorded as a diagnostic; it is never an error.
public enum Limits {
    /// Header fields read per header section; later fields are ignored.
    public static let maxHeaderFields = 10_000
    /// Depth of nested multipart and message/rfc822 parts; deeper parts are kept as leaves.
    public static let maxPartDepth = 64
    /// Parts read per message; later parts are not split out.
    public static let maxParts = 10_000
    /// Characters of a boundary parameter (RFC 2046 §5.1.1 allows 70; senders and test suites
    /// exceed it, mime4j's has a 7 KB one). A longer boundary leaves the multipart a leaf.
    public static let maxBoundaryLength = 16_384

    /// Messages up to this size are read whole; larger ones are read in pieces into a
    /// ``MessageSkeleton`` (their attachments are never held), so memory stays flat in the
    /// message size. The bounds after this one limit what a skeleton keeps.
    public static let wholeMessageBytes = 2 << 20
    /// Bytes of one header section (a larger top-level header makes the message unreadable in pieces).
    public static let maxStreamedHeaderBytes = 4 << 20
    /// Bytes kept of one text part; the rest of the part is not read.
    public static let maxStreamedTextPartBytes = 4 << 20
    /// Bytes kept of the whole message (headers, delimiters, text).
    public static let maxSkeletonBytes = 16 << 20
}
