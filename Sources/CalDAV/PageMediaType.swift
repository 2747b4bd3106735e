/// The media type a page was served as, from its `Content-Type` field (RFC 9110 §8.3.1:
/// `type "/" subtype *( OWS ";" OWS parameter )`, type and subtype case-insensitive tokens).
public enum PageMediaType: Sendable, Equatable {
    /// `text/html` or `application/xhtml+xml`: a page, whose markup is read.
    case html
    /// Any other type (`text/plain`, `application/octet-stream`, …), as `type/subtype` lowercase.
    case other(String)
    /// No `Content-Type`, or one that is not `type/subtype`.
    case missing

    /// The media types whose markup is read: HTML (WHATWG HTML §16.1, RFC 2854) and XHTML
    /// (RFC 3236). A page sent as anything else is not the site's page, whatever it holds.
    public static let htmlTypes: Set<String> = ["text/html", "application/xhtml+xml"]

    /// The type of a field value. Nothing is sniffed from the body (RFC 9110 §8.3: a recipient
    /// MAY, and a browser would not render `text/plain` or a download as a page either).
    public init(contentType value: String?) {
        guard let value else {
            self = .missing
            return
        }
        let essence = value.utf8.prefix { $0 != UInt8(ascii: ";") }
        let trimmed = essence.drop { $0 == 0x20 || $0 == 0x09 }.reversed().drop { $0 == 0x20 || $0 == 0x09 }.reversed()
        let parts = trimmed.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(Self.isTokenByte) }) else {
            self = .missing
            return
        }
        let type = String(decoding: trimmed, as: UTF8.self).lowercased()
        self = Self.htmlTypes.contains(type) ? .html : .other(type)
    }

    /// RFC 9110 §5.6.2: `tchar`.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"): true
        default: Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }
}
