/// The bounds a CalDAV exchange is held to. Each is checked where the data arrives, and a
/// response past one is a transport failure, never unbounded memory.
public enum CalDAVLimits {
    /// The most response body bytes kept (1 MiB). A calendar object resource of one
    /// reservation is a few kilobytes; an answer larger than this is refused as
    /// `CalDAVTransportFailure.responseTooLarge`.
    public static let responseBodyBytes = 1 << 20

    /// The longest entity tag kept from an `ETag` field (RFC 9110 §8.8.3 sets none). Longer
    /// ones are ignored, as if the server had sent none.
    public static let entityTagBytes = 1024

    /// The time-out a `CalDAVSettings` gets unless told otherwise: 15 seconds for the whole
    /// exchange, connecting included.
    public static let defaultTimeoutMilliseconds = 15_000
}
