public import ReservoirBase

/// Why a time zone could not be read: a name refused before the file system is touched, a file
/// that could not be read, or TZif or POSIX TZ text that breaks RFC 8536. Equal by code, so
/// tests match the kind and people read the detail.
public struct TimeZoneError: CodedError {
    /// The kind of failure, stable across releases.
    public enum Code: String, Sendable {
        /// The zone name is not `Area/City` characters (RFC 8536 §4 leaves names to the system).
        case invalidZoneName = "invalid-zone-name"
        /// The zone file could not be opened or read (detail: the system's words).
        case unreadable = "unreadable"
        /// The file is larger than `TimeZoneLimits.maximumFileBytes`.
        case fileTooLarge = "file-too-large"
        /// The file does not start with `TZif` (RFC 8536 §3.1).
        case notTZif = "not-tzif"
        /// The header's version byte is not NUL, `2`, `3` or `4` (RFC 8536 §3.1).
        case unsupportedVersion = "unsupported-version"
        /// A header count breaks an RFC 8536 §3.1 rule or a `TimeZoneLimits` cap.
        case invalidCounts = "invalid-counts"
        /// The file carries leap-second records (a `right/` zone): UTC here is POSIX time.
        case leapSecondsUnsupported = "leap-seconds-unsupported"
        /// The file ends before the data its header announces.
        case truncated = "truncated"
        /// Transition times are not ascending, or an index points outside its table (RFC 8536 §3.2).
        case invalidData = "invalid-data"
        /// An abbreviation index is outside the designation bytes, or a designation is unterminated.
        case invalidAbbreviation = "invalid-abbreviation"
        /// The footer is missing its newlines or is longer than `TimeZoneLimits.maximumFooterBytes`.
        case invalidFooter = "invalid-footer"
        /// The POSIX TZ string does not follow RFC 8536 §3.3.
        case invalidRule = "invalid-rule"
        /// Bytes follow the footer (RFC 8536 §3: the footer ends the file).
        case trailingData = "trailing-data"
    }

    public let code: Code
    /// Words for people: what was wrong and where.
    public let detail: String

    public init(_ code: Code, _ detail: String = "") {
        self.code = code
        self.detail = detail
    }

    public var description: String { detail.isEmpty ? code.rawValue : "\(code.rawValue): \(detail)" }
}
