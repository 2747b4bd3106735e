/// A Content-Transfer-Encoding (RFC 2045 §6.1), read case-insensitively; 7bit when absent.
public enum TransferEncoding: Sendable, Hashable, CustomStringConvertible {
    case sevenBit, eightBit, binary, quotedPrintable, base64
    /// An encoding RFC 2045 does not define (x-uuencode, private ones): not decoded, and
    /// reported as `unknown-transfer-encoding`. Holds the lowercased value.
    case other(String)

    /// `value` lowercased, without white space and quotes; empty means 7bit.
    public init(_ value: String) {
        switch value {
        case "", "7bit": self = .sevenBit
        case "8bit": self = .eightBit
        case "binary": self = .binary
        case "quoted-printable": self = .quotedPrintable
        case "base64": self = .base64
        default: self = .other(value)
        }
    }

    /// The value as RFC 2045 writes it (`7bit`, `quoted-printable`, …).
    public var description: String {
        switch self {
        case .sevenBit: "7bit"
        case .eightBit: "8bit"
        case .binary: "binary"
        case .quotedPrintable: "quoted-printable"
        case .base64: "base64"
        case .other(let value): value
        }
    }

    /// The identity encodings: the body is its own decoding (RFC 2045 §6.2).
    public var isIdentity: Bool {
        switch self {
        case .sevenBit, .eightBit, .binary: true
        case .quotedPrintable, .base64, .other: false
        }
    }
}
