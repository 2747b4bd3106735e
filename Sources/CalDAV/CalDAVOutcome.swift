/// What an exchange means for the caller, from the status code (RFC 9110 §15) or the
/// transport failure. Delivery code switches on this; `isTransient` says whether to keep the
/// request and try again later.
public enum CalDAVOutcome: Sendable, Equatable {
    /// 2xx: stored (201 Created, 204 No Content, 200 OK to a PUT), read (200 to a GET) or
    /// deleted (204, 200). The entity tag of the resource when the server sent one.
    case succeeded(etag: String?)
    /// 412 Precondition Failed (RFC 9110 §15.5.13): `If-None-Match: *` found a resource, or
    /// `If-Match` found another version (RFC 9110 §13.1.1–2) or none.
    case preconditionFailed
    /// 404 Not Found or 410 Gone.
    case notFound
    /// 401 Unauthorized or 403 Forbidden: credentials missing, wrong, or without the right.
    case unauthorized
    /// 5xx, 408 Request Timeout or 429 Too Many Requests: the server cannot answer now.
    case serverError(status: Int)
    /// Any other status (other 4xx, a 3xx redirect this client does not follow, 1xx): the
    /// request itself is wrong for this server; retrying it unchanged will not help.
    case refused(status: Int)
    /// No HTTP answer at all.
    case transport(CalDAVTransportFailure)

    /// The outcome of an HTTP answer with this status code.
    public init(status: Int, etag: String?) {
        switch status {
        case 200...299: self = .succeeded(etag: etag)
        case 412: self = .preconditionFailed
        case 404, 410: self = .notFound
        case 401, 403: self = .unauthorized
        case 408, 429, 500...599: self = .serverError(status: status)
        default: self = .refused(status: status)
        }
    }

    /// Whether the same request may succeed later unchanged: a server error or a transient
    /// transport failure. A precondition failure, a refusal or missing credentials need a
    /// decision or a change first.
    public var isTransient: Bool {
        switch self {
        case .serverError: true
        case .transport(let failure): failure.isTransient
        case .succeeded, .preconditionFailed, .notFound, .unauthorized, .refused: false
        }
    }
}
