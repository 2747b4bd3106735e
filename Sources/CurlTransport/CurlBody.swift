/// The body of one transfer, kept up to `limit` bytes: past it the write callback stops the
/// transfer and ``overflowed`` says so.
package final class CurlBody {
    package let limit: Int
    package private(set) var bytes: [UInt8] = []
    /// Set when the body went past ``limit``; the transfer was stopped.
    package private(set) var overflowed = false

    package init(limit: Int) { self.limit = limit }

    /// False (stop the transfer) when the body would pass the limit.
    package func append(_ chunk: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count + chunk.count <= limit else {
            overflowed = true
            return false
        }
        bytes.append(contentsOf: chunk)
        return true
    }

    /// Empty again, as before the transfer (a new status line: only the final response counts).
    package func removeAll() {
        bytes = []
        overflowed = false
    }
}
