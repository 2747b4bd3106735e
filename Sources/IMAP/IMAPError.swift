public import ReservoirBase

/// Why reading a mailbox failed: the settings, the environment or the server. Equal by code, so
/// tests and callers match codes, not text; `detail` is for people. `reservoir watch` maps each
/// code to its exit status (docs/USAGE.md).
public struct IMAPError: CodedError, Sendable {
    public enum Code: String, Sendable, CaseIterable {
        /// The mailbox URL is not `imaps://` or `imap://USER@HOST[:PORT]/MAILBOX` as this client accepts it.
        case invalidURL = "imap-invalid-url"
        /// The netrc file cannot be read, is not a regular file, or may be read by others.
        case netrcUnusable = "imap-netrc-unusable"
        /// The OAuth token file (`--oauth-token-file`) cannot be read, may be read by others,
        /// or holds no bearer token on its first line.
        case oauthTokenUnusable = "imap-oauth-token-unusable"
        /// The CA file (`--ca-file`) cannot be read.
        case caFileUnreadable = "imap-ca-file-unreadable"
        /// libcurl.so.4 cannot be loaded, or refuses an option this client needs.
        case libcurlUnavailable = "imap-libcurl-unavailable"
        /// The server's certificate is not signed by a trusted CA or does not name the host.
        case certificateRefused = "imap-certificate-refused"
        /// An `imap://` server did not offer STARTTLS (or it failed): nothing was sent in plain
        /// text, no login tried.
        case startTLSRefused = "imap-starttls-refused"
        /// The server refused the user name and password (or the netrc file has none for it).
        case loginRefused = "imap-login-refused"
        /// The server could not be reached, or the connection broke (DNS, refused, reset).
        case unreachable = "imap-unreachable"
        /// The server did not answer within the time-out.
        case timeout = "imap-timeout"
        /// The server answered something that is not IMAP, or past a limit (IMAPLimits).
        case protocolViolation = "imap-protocol-violation"
        /// The server refused to open the mailbox (`EXAMINE` answered NO: no such mailbox).
        case mailboxRefused = "imap-mailbox-refused"
    }

    public var code: Code
    public var detail: String

    public init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }
}
