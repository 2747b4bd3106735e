/// Something the reader noticed and worked around. Malformed mail is data, not an error.
public struct MIMEDiagnostic: Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable, CaseIterable {
        case byteOrderMark = "byte-order-mark"
        case garbageLine = "garbage-line"
        case missingHeaderBodySeparator = "missing-header-body-separator"
        case tooManyHeaderFields = "too-many-header-fields"
        case partsTooDeep = "parts-too-deep"
        case tooManyParts = "too-many-parts"
        case missingBoundary = "missing-boundary"
        case missingCloseDelimiter = "missing-close-delimiter"
        case invalidBase64 = "invalid-base64"
        case invalidQuotedPrintable = "invalid-quoted-printable"
        case unknownCharset = "unknown-charset"
        case invalidEncodedWord = "invalid-encoded-word"
        case unknownTransferEncoding = "unknown-transfer-encoding"
        case partTruncated = "part-truncated"
    }

    public let code: Code
    /// Byte offset in the message where it was noticed.
    public let offset: Int
    public let detail: String

    public init(_ code: Code, at offset: Int, _ detail: String = "") {
        self.code = code
        self.offset = offset
        self.detail = detail
    }

    public var description: String {
        detail.isEmpty ? "\(code.rawValue) at byte \(offset)" : "\(code.rawValue) at byte \(offset): \(detail)"
    }
}
