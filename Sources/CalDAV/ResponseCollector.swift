/// What libcurl's header and body callbacks hand over during one transfer, kept within
/// `CalDAVLimits`. A new status line starts over: only the final response counts.
final class ResponseCollector {
    private(set) var etag: String?
    private(set) var body: [UInt8] = []
    /// Set when the body went past `CalDAVLimits.responseBodyBytes`; the transfer was stopped.
    private(set) var overflowed = false

    func header(_ line: UnsafeRawBufferPointer) {
        switch ResponseHeaderLine(line) {
        case .statusLine:
            etag = nil
            body = []
        case .entityTag(let value):
            etag = value
        case .other:
            break
        }
    }

    /// False (stop the transfer) when the body would pass the limit.
    func append(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard body.count + bytes.count <= CalDAVLimits.responseBodyBytes else {
            overflowed = true
            return false
        }
        body.append(contentsOf: bytes)
        return true
    }
}
