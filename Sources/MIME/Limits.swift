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
}
