/// The answer, for the HTTP glue to send as it is.
public struct FeedResponse: Sendable, Equatable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    /// The body; empty for HEAD and 304, whose headers still describe the full body.
    public var body: [UInt8]
    /// A line for the server's log (standard error) when something went wrong on this side.
    public var logLine: String?

    public init(status: Int, headers: [(name: String, value: String)], body: [UInt8], logLine: String? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.logLine = logLine
    }

    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.status == rhs.status && lhs.body == rhs.body && lhs.logLine == rhs.logLine
            && lhs.headers.map { "\($0.name): \($0.value)" } == rhs.headers.map { "\($0.name): \($0.value)" }
    }
}
