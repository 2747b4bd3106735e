/// Why an exchange ended without an HTTP answer, from libcurl's result code
/// (libcurl-errors(3)). Equal by code; the detail (libcurl's own message) is for people.
public enum CalDAVTransportFailure: Sendable, Equatable, CustomStringConvertible {
    /// No complete answer within `CalDAVSettings.timeoutMilliseconds` (CURLE_OPERATION_TIMEDOUT).
    case timeout
    /// The server refused or did not take the connection (CURLE_COULDNT_CONNECT).
    case couldNotConnect
    /// The host name did not resolve (CURLE_COULDNT_RESOLVE_HOST).
    case dns
    /// The TLS handshake or the verification of the server's certificate failed.
    case tls(String)
    /// The server answered with something that is not HTTP, or closed the connection without
    /// an answer (CURLE_WEIRD_SERVER_REPLY, CURLE_UNSUPPORTED_PROTOCOL for HTTP/0.9,
    /// CURLE_GOT_NOTHING).
    case malformedResponse(String)
    /// The response body was larger than `CalDAVLimits.responseBodyBytes`.
    case responseTooLarge
    /// The request could not be written: an entity tag with control characters, say.
    case invalidRequest(String)
    /// Any other failure of the exchange (a reset connection, a failed send or receive…).
    case other(String)

    public enum Code: String, Sendable {
        case timeout
        case couldNotConnect = "could-not-connect"
        case dns
        case tls
        case malformedResponse = "malformed-response"
        case responseTooLarge = "response-too-large"
        case invalidRequest = "invalid-request"
        case other
    }

    public var code: Code {
        switch self {
        case .timeout: .timeout
        case .couldNotConnect: .couldNotConnect
        case .dns: .dns
        case .tls: .tls
        case .malformedResponse: .malformedResponse
        case .responseTooLarge: .responseTooLarge
        case .invalidRequest: .invalidRequest
        case .other: .other
        }
    }

    /// Whether the same request may succeed later without anyone changing anything: a server
    /// that is down, slow, unreachable or restarting. Not so for a certificate that does not
    /// verify (someone must configure `caFile` or fix the server), an answer too large to
    /// keep, or a request this client cannot write.
    public var isTransient: Bool {
        switch self {
        case .timeout, .couldNotConnect, .dns, .malformedResponse, .other: true
        case .tls, .responseTooLarge, .invalidRequest: false
        }
    }

    public var description: String {
        switch self {
        case .timeout, .couldNotConnect, .dns, .responseTooLarge: code.rawValue
        case .tls(let detail), .malformedResponse(let detail), .invalidRequest(let detail), .other(let detail):
            "\(code.rawValue): \(detail)"
        }
    }

    public static func == (lhs: CalDAVTransportFailure, rhs: CalDAVTransportFailure) -> Bool { lhs.code == rhs.code }
}
