import ReservoirBase

/// Base64 (RFC 4648 §4) for `b=`, `bh=` and `p=` values: RFC 6376 §3.5 lets FWS appear
/// anywhere in them, so it is taken out first and the rest read by the strict decoder, with the
/// padding `base64string` (§2.4) makes optional.
enum Base64 {
    static func encode(_ bytes: some Collection<UInt8>) -> String {
        Base64Text.encode(bytes)
    }

    /// The decoded bytes, or nil when a character is outside the alphabet, padding is
    /// misplaced, or the length is impossible. White space is skipped.
    static func decode(_ text: some StringProtocol) -> [UInt8]? {
        Base64Text.decode(text.utf8.filter { !Self.isFoldingWhiteSpace($0) }, padding: .optional)
    }

    /// RFC 6376 §2.8 FWS: space, tab and the line breaks between them.
    private static func isFoldingWhiteSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A
    }
}
