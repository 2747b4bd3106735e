/// The secret first path segment of `--token-file`: the feed is then at `/TOKEN/calendar.ics`.
public struct AccessToken: Sendable, Equatable {
    /// Shortest token accepted: 16 characters of the URL-safe alphabet carry at least 96 bits
    /// when random (e.g. `openssl rand -hex 16`, 32 characters).
    public static let minimumLength = 16
    /// Longest token accepted.
    public static let maximumLength = 256

    public let bytes: [UInt8]

    /// Why a token file's text is not a token.
    public enum Refusal: Error, Sendable, Equatable {
        case tooShort
        case tooLong
        /// A character outside RFC 3986's unreserved set (§2.3), which a path segment would
        /// have to percent-encode.
        case notURLSafe
    }

    /// The file's text without its trailing newline and surrounding blanks.
    public static func read(fileText bytes: [UInt8]) -> Result<AccessToken, Refusal> {
        let isBlank = { (byte: UInt8) in byte == 0x20 || byte == 0x09 || byte == 0x0a || byte == 0x0d }
        let token = Array(bytes.drop(while: isBlank).reversed().drop(while: isBlank).reversed())
        guard token.count >= minimumLength else { return .failure(.tooShort) }
        guard token.count <= maximumLength else { return .failure(.tooLong) }
        guard token.allSatisfy(isUnreserved) else { return .failure(.notURLSafe) }
        return .success(AccessToken(unchecked: token))
    }

    init(unchecked bytes: [UInt8]) { self.bytes = bytes }

    static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    /// Whether a path segment is this token, in constant time (``ConstantTime``).
    public func matches(_ segment: some Sequence<UInt8>) -> Bool { ConstantTime.equal(segment, bytes) }

    /// The path the token prefixes: `/TOKEN`.
    public var pathPrefix: String { "/" + String(decoding: bytes, as: UTF8.self) }
}
