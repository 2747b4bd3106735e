/// The bounds an IMAP exchange is held to, checked where the bytes arrive: a server past one is
/// a protocol violation, never unbounded memory or time (docs/RELIABILITY.md).
public enum IMAPLimits {
    /// The longest response line kept, literals aside (64 KiB). RFC 9051 §4 sets no limit; a
    /// line of a FETCH listing or a status is under a hundred bytes.
    public static let lineBytes = 64 << 10

    /// The most untagged responses one command may bring (a UID listing of a mailbox holds one
    /// per message): 1,000,000.
    public static let responsesPerCommand = 1_000_000

    /// The largest literal outside a message body (4 KiB): listings and statuses carry none.
    public static let otherLiteralBytes = 4 << 10

    /// The time-out a connection gets unless told otherwise: 60 seconds without a byte from
    /// the server, and for connecting and logging in.
    public static let defaultTimeoutMilliseconds = 60_000

    /// The longest OAuth bearer token read from its file (16 KiB): Google's and Microsoft's
    /// access tokens are 2 to 3 KB.
    public static let oauthTokenBytes = 16 << 10

    /// Bytes asked of libcurl per read.
    static let readChunkBytes = 64 << 10
}
