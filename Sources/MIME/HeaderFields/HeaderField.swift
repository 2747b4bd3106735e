import ReservoirBase

/// One header field exactly as it stands in the message.
///
/// Ranges index the message's byte array, so the DKIM stage can hash the bytes the signer
/// saw (RFC 6376 §3.4) and other stages can decode the value lazily.
public struct HeaderField: Sendable, Equatable {
    /// The field name as written, without surrounding white space (RFC 5322 §3.6.8; the
    /// obsolete `Subject  :` form of RFC 5322 §4.5 is accepted and trimmed).
    public let name: String
    /// The whole field: name, colon, value, folded lines and the final line break.
    public let rawRange: Range<Int>
    /// The bytes after the colon up to (not including) the final line break; may contain
    /// folding line breaks.
    public let valueRange: Range<Int>

    public init(name: String, rawRange: Range<Int>, valueRange: Range<Int>) {
        self.name = name
        self.rawRange = rawRange
        self.valueRange = valueRange
    }

    /// Case-insensitive name comparison (RFC 5322 §1.2.2: field names are case-insensitive).
    @inlinable
    public func hasName(_ other: String) -> Bool {
        guard name.utf8.count == other.utf8.count else { return false }
        // ASCII names (all real ones) compared on bytes; others through Unicode lowercasing.
        var left = name
        var right = other
        let verdict: Bool? = left.withUTF8 { a in right.withUTF8 { b in Self.asciiEqualIgnoringCase(a, b) } }
        return verdict ?? (name.lowercased() == other.lowercased())
    }

    /// Equal but for the case of ASCII letters; nil when a differing byte is not ASCII.
    @usableFromInline
    static func asciiEqualIgnoringCase(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool? {
        for i in 0..<a.count where a[i] != b[i] {
            if a[i] >= 0x80 || b[i] >= 0x80 { return nil }
            if ASCII.lowercased(a[i]) != ASCII.lowercased(b[i]) { return false }
        }
        return true
    }
}
