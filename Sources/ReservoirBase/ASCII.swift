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

    /// Whether the byte is a space or a horizontal tab (RFC 5234 WSP).
    @inlinable @inline(__always)
    package static func isSpaceOrTab(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09
    }

    /// Whether the byte is a space, a tab, CR or LF.
    @inlinable @inline(__always)
    package static func isSpaceOrLineBreak(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A
    }

    /// Whether the byte is HTML's ASCII whitespace: TAB, LF, FF, CR, SPACE.
    @inlinable @inline(__always)
    package static func isHTMLWhiteSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0C || byte == 0x0D
    }

    /// `bytes` without the bytes `isTrimmed` picks at either end; an empty slice at the end
    /// when it picks them all.
    @inlinable
    package static func trimmed(_ bytes: ArraySlice<UInt8>, where isTrimmed: (UInt8) -> Bool) -> ArraySlice<UInt8> {
        guard let first = bytes.firstIndex(where: { !isTrimmed($0) }), let last = bytes.lastIndex(where: { !isTrimmed($0) }) else {
            return bytes[bytes.endIndex...]
        }
        return bytes[first...last]
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

extension Substring {
    /// The text without the ASCII bytes `isTrimmed` picks at either end (spaces and tabs unless
    /// told); `isTrimmed` sees bytes, so only ASCII is ever taken away.
    package func trimmingASCII(_ isTrimmed: (UInt8) -> Bool) -> Substring {
        guard let first = utf8.firstIndex(where: { !isTrimmed($0) }), let last = utf8.lastIndex(where: { !isTrimmed($0) }) else {
            return self[endIndex...]
        }
        return self[first..<utf8.index(after: last)]
    }

    /// The text without the spaces and tabs at either end.
    package func trimmingASCII() -> Substring { trimmingASCII(ASCII.isSpaceOrTab) }
}

extension String {
    /// The text without the ASCII bytes `isTrimmed` picks at either end (spaces and tabs unless
    /// told), as ``Substring/trimmingASCII(_:)``.
    package func trimmingASCII(_ isTrimmed: (UInt8) -> Bool) -> String {
        String(Substring(self).trimmingASCII(isTrimmed))
    }

    /// The text without the spaces and tabs at either end.
    package func trimmingASCII() -> String { trimmingASCII(ASCII.isSpaceOrTab) }
}
