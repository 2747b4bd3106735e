/// A repair or a loss while reading a JSON text: a stable code and a sentence with its line and
/// column.
public struct JSONDiagnostic: Sendable, Hashable {
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// The text was broken and repaired (missing or trailing commas, values back to back,
        /// raw line breaks in strings, …).
        case repaired = "json-repaired"
        /// The text cannot be read from some position on; values read before it are kept.
        case unrecoverable = "json-unrecoverable"
        /// A value nested deeper than ``JSONLimits/maximumDepth`` was dropped.
        case tooDeep = "json-too-deep"
        /// A text over ``JSONLimits/maximumBytes`` was skipped.
        case tooLarge = "json-too-large"
    }

    public var code: Code
    public var message: String

    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }
}

/// The bounds of the JSON reader. Input beyond a limit is dropped with a diagnostic, never a
/// crash or a hang.
public enum JSONLimits {
    /// Largest JSON text read (bytes); larger texts are skipped with `json-too-large`.
    public static let maximumBytes = 2 * 1024 * 1024
    /// Deepest nesting of arrays and objects; a deeper value is dropped with `json-too-deep`.
    public static let maximumDepth = 64
    /// How far past an unescaped quotation mark inside a string the reader looks for the real
    /// end of the string (bytes, and never past a line break); beyond it the string ends at that
    /// quotation mark. Keeps hostile quoting from costing quadratic time.
    public static let maximumUnescapedQuoteSpan = 128
    /// Repairs reported per JSON text; further repairs are still made, and counted in one
    /// closing diagnostic.
    public static let maximumRepairDiagnostics = 16
}
