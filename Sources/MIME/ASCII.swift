/// Byte-level ASCII helpers shared by the header and DKIM code, which compare names and
/// tags without Unicode case mapping (RFC 5322 §1.2.2 and RFC 6376 §3.2 are ASCII rules).
package enum ASCII {
    /// The byte with an ASCII capital letter made small; every other byte unchanged.
    @inline(__always)
    package static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
    }
}
