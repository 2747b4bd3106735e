/// A URL as it may be shown in a message, a log or `reservoir config`: without its password.
///
/// RFC 3986 §3.2.1: "Applications should not render as clear text any data after the first
/// colon (":") character found within a userinfo subcomponent"; libpq URIs may also carry
/// `password=` among their parameters. Whoever reads an error (a mail log, a terminal, a
/// report pasted into an issue) must not learn a secret from it.
public enum URLText {
    /// What stands for a removed secret.
    public static let elided = "***"

    /// `text` with the password of its userinfo (`user:password@`) and the values of
    /// `password=` parameters replaced by ``elided``; anything else as it is. Works on text that
    /// is not a valid URL too (an error message names what it refused).
    public static func withoutCredentials(_ text: String) -> String {
        var bytes = Array(text.utf8)
        // RFC 3986 §3.2: the authority follows "//" and ends at the first "/", "?" or "#".
        let start = firstIndex(of: Array("://".utf8), in: bytes).map { $0 + 3 } ?? 0
        let end = bytes[start...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.count
        if let at = bytes[start..<end].lastIndex(of: UInt8(ascii: "@")),
            let colon = bytes[start..<at].firstIndex(of: UInt8(ascii: ":")), colon + 1 < at
        {
            bytes.replaceSubrange((colon + 1)..<at, with: Array(elided.utf8))
        }
        // libpq (§34.1.1.2): "password" among the query parameters.
        var index = 0
        let key = Array("password=".utf8)
        while let found = firstIndex(of: key, in: bytes, from: index) {
            let valueStart = found + key.count
            let isParameter = found > 0 && (bytes[found - 1] == UInt8(ascii: "?") || bytes[found - 1] == UInt8(ascii: "&"))
            let valueEnd = bytes[valueStart...].firstIndex { $0 == UInt8(ascii: "&") || $0 == UInt8(ascii: "#") } ?? bytes.count
            if isParameter, valueEnd > valueStart {
                bytes.replaceSubrange(valueStart..<valueEnd, with: Array(elided.utf8))
                index = valueStart + elided.utf8.count
            } else {
                index = valueStart
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func firstIndex(of needle: [UInt8], in bytes: [UInt8], from: Int = 0) -> Int? {
        guard bytes.count >= needle.count, from <= bytes.count - needle.count else { return nil }
        for start in from...(bytes.count - needle.count) where bytes[start..<start + needle.count].elementsEqual(needle) {
            return start
        }
        return nil
    }
}
