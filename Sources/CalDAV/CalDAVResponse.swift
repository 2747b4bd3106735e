/// What one request brought back: an HTTP answer, or the reason there was none.
public enum CalDAVResponse: Sendable, Equatable {
    case answered(CalDAVAnswer)
    case failed(CalDAVTransportFailure)

    /// What the response means (see `CalDAVOutcome`).
    public var outcome: CalDAVOutcome {
        switch self {
        case .answered(let answer): CalDAVOutcome(status: answer.status, etag: answer.etag)
        case .failed(let failure): .transport(failure)
        }
    }

    /// The HTTP answer, when there was one.
    public var answer: CalDAVAnswer? {
        if case .answered(let answer) = self { answer } else { nil }
    }
}

/// An HTTP answer: the final status code, the entity tag and the body (of the final response
/// when authentication took two rounds).
public struct CalDAVAnswer: Sendable, Equatable {
    /// The status code (RFC 9110 §15).
    public var status: Int
    /// The `ETag` field's value verbatim, strong or weak (RFC 9110 §8.8.3), for a later
    /// `If-Match`; nil when the server sent none or one that is not an entity tag. A weak tag
    /// never matches `If-Match`, which compares strongly (RFC 9110 §13.1.1).
    public var etag: String?
    /// The body, at most `CalDAVLimits.responseBodyBytes`.
    public var body: [UInt8]

    public init(status: Int, etag: String?, body: [UInt8]) {
        self.status = status
        self.etag = etag
        self.body = body
    }

    /// The body as UTF-8 text (RFC 5545 §3.1.4: iCalendar is UTF-8), invalid bytes replaced.
    public var text: String { String(decoding: body, as: UTF8.self) }
}
