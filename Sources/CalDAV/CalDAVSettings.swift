import CurlTransport
import Glibc

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
    /// The login to take from the netrc file when it has several `machine` entries for the
    /// server's host (a site's account address): that entry's login and password, as curl
    /// takes the entry of the user name a URL gives. Without one, or when no entry of the host
    /// has that login, the netrc file is libcurl's to read: the host's first entry, else `default`.
    public var login: String?

    public init(
        netrcFile: String? = nil, caFile: String? = nil,
        timeoutMilliseconds: Int = CalDAVLimits.defaultTimeoutMilliseconds, userAgent: String = "reservoir", login: String? = nil
    ) {
        self.login = login
        self.netrcFile = netrcFile
        self.caFile = caFile
        self.timeoutMilliseconds = timeoutMilliseconds
        self.userAgent = userAgent
    }

    /// Checks what can be checked without a server and without loading libcurl, so a command
    /// can refuse a setting before it records anything: a positive time-out, no NUL byte, the
    /// netrc file (``netrcFile``'s rules), a CA file that can be read. Returns the netrc file
    /// to use, if any.
    @discardableResult
    public func check() throws(CalDAVError) -> String? {
        guard timeoutMilliseconds > 0 else {
            throw CalDAVError(.invalidSettings, "the time-out must be positive, not \(timeoutMilliseconds) ms")
        }
        for text in [caFile, userAgent] where text?.utf8.contains(0) ?? false {
            throw CalDAVError(.invalidSettings, "a setting contains a NUL byte")
        }
        let netrc: String?
        do { netrc = try CurlNetrc.resolve(netrcFile) } catch { throw CalDAVError(error) }
        if let caFile, access(caFile, R_OK) != 0 {
            throw CalDAVError(.caFileUnreadable, "cannot read the CA file \(caFile): \(String(cString: strerror(errno)))")
        }
        return netrc
    }
}
