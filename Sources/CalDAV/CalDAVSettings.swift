/// How a `CalDAVClient` reaches its server: where credentials and a trust anchor come from,
/// how long an exchange may take and how the client names itself.
public struct CalDAVSettings: Sendable {
    /// The netrc file credentials are read from (`machine HOST login USER password PASS`, or
    /// `default`). When nil, `$HOME/.netrc` if it exists, otherwise no credentials. The file
    /// must not be readable or writable by its group or others (mode 0600 or stricter), as
    /// ftp and curl expect; the client refuses it otherwise.
    public var netrcFile: String?
    /// A PEM file of certificates to verify the server against instead of the system's CA
    /// store (a self-signed server). Verification is never turned off.
    public var caFile: String?
    /// The bound of each exchange, connecting included; positive.
    public var timeoutMilliseconds: Int
    /// The `User-Agent` field sent with each request (RFC 9110 §10.1.5).
    public var userAgent: String

    public init(
        netrcFile: String? = nil, caFile: String? = nil,
        timeoutMilliseconds: Int = CalDAVLimits.defaultTimeoutMilliseconds, userAgent: String = "reservoir"
    ) {
        self.netrcFile = netrcFile
        self.caFile = caFile
        self.timeoutMilliseconds = timeoutMilliseconds
        self.userAgent = userAgent
    }
}
