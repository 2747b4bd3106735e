import CurlTransport

/// What libcurl's header and body callbacks hand over during one transfer, kept within
/// `CalDAVLimits`. A new status line starts over: only the final response counts.
final class ResponseCollector {
    private(set) var etag: String?
    /// The body, up to `CalDAVLimits.responseBodyBytes`; past it the transfer was stopped.
    let body = CurlBody(limit: CalDAVLimits.responseBodyBytes)

    func header(_ line: UnsafeRawBufferPointer) {
        switch ResponseHeaderLine(line) {
        case .statusLine:
            etag = nil
            body.removeAll()
        case .entityTag(let value):
            etag = value
        case .other:
            break
        }
    }
}
