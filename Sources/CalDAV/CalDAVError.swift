import CurlTransport
public import ReservoirBase

/// Why a CalDAV client, collection or resource name could not be made: the environment or the
/// configuration failed, never a server's answer (answers are `CalDAVResponse` values). Equal by
/// code, so tests and callers match codes, not text; `detail` is for people.
public struct CalDAVError: CodedError, Sendable {
    public enum Code: String, Sendable {
        /// The collection URL is not an absolute http(s) URL of the form this client accepts.
        case invalidURL = "invalid-url"
        /// The URL's scheme is neither `http` nor `https`.
        case unsupportedScheme = "unsupported-scheme"
        /// The URL carries user information (`user:password@`): credentials come from a netrc file only.
        case credentialsInURL = "credentials-in-url"
        /// A resource name that is empty or a dot segment (RFC 3986 §3.3).
        case invalidResourceName = "invalid-resource-name"
        /// A setting out of range (a time-out that is not positive, a string with a NUL byte).
        case invalidSettings = "invalid-settings"
        /// The netrc file cannot be read.
        case netrcUnreadable = "netrc-unreadable"
        /// The netrc file may be read or written by its group or others.
        case netrcTooOpen = "netrc-too-open"
        /// The CA file (`caFile`) cannot be read.
        case caFileUnreadable = "ca-file-unreadable"
        /// libcurl.so.4 cannot be loaded or initialised, or refuses an option this client needs.
        case libcurlUnavailable = "libcurl-unavailable"
    }

    public var code: Code
    public var detail: String

    public init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    /// The netrc file's problem in this target's codes.
    init(_ netrc: CurlNetrcError) {
        switch netrc.code {
        case .invalidPath: self.init(.invalidSettings, netrc.detail)
        case .unreadable: self.init(.netrcUnreadable, netrc.detail)
        case .tooOpen: self.init(.netrcTooOpen, netrc.detail)
        }
    }
}
