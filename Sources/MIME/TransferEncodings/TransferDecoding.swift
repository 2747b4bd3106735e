/// The result of undoing a Content-Transfer-Encoding: the bytes that could be decoded and what
/// was skipped on the way.
public struct TransferDecoding: Sendable, Equatable {
    public var bytes: [UInt8]
    public var diagnostics: [MIMEDiagnostic]

    public init(bytes: [UInt8], diagnostics: [MIMEDiagnostic] = []) {
        self.bytes = bytes
        self.diagnostics = diagnostics
    }

    /// Decodes `bytes[range]` per a Content-Transfer-Encoding (RFC 2045 §6.1). 7bit, 8bit,
    /// binary and unknown encodings are returned as they are; an unknown one is reported.
    public static func decode(_ bytes: [UInt8], in range: Range<Int>, encoding: TransferEncoding) -> TransferDecoding {
        switch encoding {
        case .base64:
            return Base64.decode(bytes, in: range)
        case .quotedPrintable:
            return QuotedPrintable.decode(bytes, in: range)
        case .sevenBit, .eightBit, .binary:
            return TransferDecoding(bytes: Array(bytes[range]))
        case .other(let name):
            // x-uuencode and private encodings are not decoded.
            return TransferDecoding(
                bytes: Array(bytes[range]),
                diagnostics: [MIMEDiagnostic(.unknownTransferEncoding, at: range.lowerBound, name)])
        }
    }
}
