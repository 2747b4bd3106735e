import COpenSSL

/// Comparison of secrets whose time does not depend on where they differ, nor on their lengths.
public enum ConstantTime {
    /// Whether `a` and `b` are equal. Both are hashed first (SHA-256), so the comparison always
    /// runs over 32 bytes whatever the lengths, and the digests are compared with OpenSSL's
    /// `CRYPTO_memcmp`, which "takes an amount of time dependent on len, but independent of the
    /// contents of the memory regions pointed to by a and b" (OpenSSL's documentation).
    public static func equal(_ a: some Sequence<UInt8>, _ b: some Sequence<UInt8>) -> Bool {
        let left = SHA256Digest.digest(Array(a))
        let right = SHA256Digest.digest(Array(b))
        let difference = left.withUnsafeBytes { l in
            right.withUnsafeBytes { r in CRYPTO_memcmp(l.baseAddress, r.baseAddress, SHA256Digest.byteCount) }
        }
        return difference == 0
    }

    /// Both conditions, evaluated without short-circuit, so a wrong first half takes as long as
    /// a wrong second half.
    public static func both(_ first: Bool, _ second: Bool) -> Bool {
        (UInt8(first ? 1 : 0) & UInt8(second ? 1 : 0)) == 1
    }
}
