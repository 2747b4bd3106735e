/// A parsed message: the exact bytes it was read from, its header section and its part tree.
///
/// Parsing never throws; what could not be read is recorded in ``diagnostics``.
public struct Message: Sendable {
    /// The message exactly as read (LF or CRLF line ends, as stored).
    public let bytes: [UInt8]
    /// The top-level header section.
    public let header: HeaderSection
    /// Where the top-level body starts and ends in ``bytes``.
    public var bodyRange: Range<Int> { header.bodyStart..<bytes.count }

    public init(bytes: [UInt8]) {
        self.bytes = bytes
        self.header = HeaderSection.parse(bytes, in: 0..<bytes.count)
    }
}
