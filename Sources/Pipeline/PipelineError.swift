/// The one error the pipeline throws: the environment failed (a file, the store, the input).
/// Malformed mail is never an error.
public struct PipelineError: Error, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// A file named on the command line cannot be read.
        case unreadableFile = "unreadable-file"
        /// The event store cannot be opened or written.
        case store
        /// An argument is malformed.
        case usage
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
