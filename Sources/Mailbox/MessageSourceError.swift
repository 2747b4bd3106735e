/// Why messages could not be read: the environment failed (a missing or unreadable path), not
/// the mail. The one error type of the Mailbox target.
public struct MessageSourceError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case notFound = "not-found"
        case unreadable
        case notMail = "not-mail"
    }

    public let code: Code
    public let path: String
    public let message: String

    public init(_ code: Code, path: String, _ message: String) {
        self.code = code
        self.path = path
        self.message = message
    }

    public var description: String { path.isEmpty ? message : "\(path): \(message)" }

    /// Equal by code and path, so tests can match them.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code && lhs.path == rhs.path }
}
