/// Byte-level ASCII rules for the parsers, which compare names and tags without Unicode case
/// mapping (RFC 5322 §1.2.2, RFC 6376 §3.2, RFC 4343 and HTML's names are ASCII rules). Small
/// and inlinable: the header, DKIM, DNS and markup code call them for every byte they fold.
package enum ASCII {
    /// The byte with an ASCII capital letter made small; every other byte unchanged.
    @inlinable @inline(__always)
    package static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
    }

    /// Whether the byte is an ASCII letter, `A`–`Z` or `a`–`z`.
    @inlinable @inline(__always)
    package static func isLetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A
    }

    /// Whether the byte is an ASCII digit, `0`–`9`.
    @inlinable @inline(__always)
    package static func isDigit(_ byte: UInt8) -> Bool {
        byte >= 0x30 && byte <= 0x39
    }

    /// The number written by `count` ASCII digits at `from`; nil when a byte is not a digit or
    /// the bytes end first.
    @inlinable
    package static func decimal(_ bytes: [UInt8], from: Int, count: Int) -> Int? {
        guard from >= 0, from + count <= bytes.count else { return nil }
        var value = 0
        for b in bytes[from..<(from + count)] {
            guard isDigit(b) else { return nil }
            value = value * 10 + Int(b - 0x30)
        }
        return value
    }
}
