/// Why a document is not TOML 1.0.0 (or is past a ``TOMLLimits`` bound), and where: the line
/// and column of the first byte that could not be read. Equal by code, so tests can match it.
public struct TOMLError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable, CaseIterable {
        /// Larger than ``TOMLLimits/maximumDocumentBytes``.
        case documentTooLarge = "document-too-large"
        /// "Spec": a TOML file must be a valid UTF-8 encoded Unicode document.
        case invalidUTF8 = "invalid-utf8"
        /// A control character where the grammar allows none (comments, strings), or a bare
        /// carriage return.
        case controlCharacter = "control-character"
        /// "Keys": a key was expected (bare, basic or literal).
        case expectedKey = "expected-key"
        /// "Key/Value Pair": the `=` after a key is missing.
        case expectedEquals = "expected-equals"
        /// "Key/Value Pair": the value after `=` is missing or not one of TOML's forms.
        case expectedValue = "expected-value"
        /// Something follows a value, key/value pair or table header on its line.
        case expectedEndOfLine = "expected-end-of-line"
        /// "String": no closing quotation mark (a basic or literal string ends with its line).
        case unterminatedString = "unterminated-string"
        /// "String": an escape sequence TOML does not define, or `\u`/`\U` naming no scalar value.
        case invalidEscape = "invalid-escape"
        /// A string longer than ``TOMLLimits/maximumStringBytes``.
        case stringTooLong = "string-too-long"
        /// "Integer" and "Float": malformed digits, signs, underscores or leading zeros.
        case invalidNumber = "invalid-number"
        /// "Integer": outside the signed 64-bit range.
        case integerOutOfRange = "integer-out-of-range"
        /// "Offset Date-Time" and its kin: not a real date or time.
        case invalidDateTime = "invalid-date-time"
        /// "Array" / "Inline Table": a comma, closing bracket or brace was expected.
        case unterminatedArray = "unterminated-array"
        case unterminatedInlineTable = "unterminated-inline-table"
        /// Arrays, inline tables or dotted keys nested deeper than ``TOMLLimits/maximumDepth``.
        case nestingTooDeep = "nesting-too-deep"
        /// "Keys": defining a key multiple times is invalid.
        case duplicateKey = "duplicate-key"
        /// "Table": defining a table more than once is invalid.
        case duplicateTable = "duplicate-table"
        /// A key that holds a value (not a table) used as a table, or a table or array of
        /// tables used where the other is written.
        case notATable = "not-a-table"
        /// "Inline Table" and "Array": fully self-contained, nothing can be added later.
        case immutable = "immutable"
    }

    public var code: Code
    public var position: TOMLPosition
    /// What was wrong, for people.
    public var detail: String

    public init(_ code: Code, at position: TOMLPosition, _ detail: String) {
        self.code = code
        self.position = position
        self.detail = detail
    }

    public var description: String { "line \(position.line), column \(position.column): \(detail)" }

    public static func == (a: TOMLError, b: TOMLError) -> Bool { a.code == b.code }
}

/// The bounds of the reader. A document past one is refused with its error, never a crash, a
/// deep recursion or a long run.
public enum TOMLLimits {
    /// Largest document read (bytes): configuration files are a few hundred bytes.
    public static let maximumDocumentBytes = 1 << 20
    /// Deepest nesting of arrays and inline tables, and most parts of a dotted key or table
    /// header; the reader recurses once per level.
    public static let maximumDepth = 32
    /// Longest string value or key after escapes are resolved (bytes).
    public static let maximumStringBytes = 64 << 10
}
