import COpenSSL

/// The modulus and public exponent of an RSA public key in DER, as a key record's `p=` carries
/// it (RFC 6376 §3.6.1): a SubjectPublicKeyInfo (RFC 5280 §4.1.2.7) whose algorithm is
/// rsaEncryption (RFC 8017 Appendix A.1), or a bare PKCS#1 RSAPublicKey (the form of RFC 6376
/// Appendix C's example). Elements are read with OpenSSL's `ASN1_get_object`; only definite
/// lengths within their parent are accepted, as DER requires (X.690 §10.1).
struct RSAPublicKeyDER {
    /// Unsigned big-endian bytes without leading zeros.
    let modulus: [UInt8]
    let exponent: [UInt8]

    /// 1.2.840.113549.1.1.1, rsaEncryption (RFC 8017 Appendix A.1).
    private static let rsaEncryption: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01]
    private static let sequence: Int32 = 16, integer: Int32 = 2, bitString: Int32 = 3
    private static let objectIdentifier: Int32 = 6, null: Int32 = 5

    init?(_ der: [UInt8]) {
        let found: (modulus: [UInt8], exponent: [UInt8])? = der.withUnsafeBufferPointer { bytes in
            guard let (outer, _) = Self.element(bytes, in: 0..<bytes.count), outer.tag == Self.sequence,
                let (first, afterFirst) = Self.element(bytes, in: outer.content)
            else { return nil }
            if first.tag == Self.integer { return Self.integers(bytes, in: outer.content) }
            // SubjectPublicKeyInfo ::= SEQUENCE { algorithm AlgorithmIdentifier, subjectPublicKey BIT STRING }
            guard first.tag == Self.sequence,
                let (oid, afterOID) = Self.element(bytes, in: first.content), oid.tag == Self.objectIdentifier,
                Array(bytes[oid.content]) == Self.rsaEncryption,
                Self.isAbsentOrNull(bytes, in: afterOID),
                let (key, rest) = Self.element(bytes, in: afterFirst), key.tag == Self.bitString, rest.isEmpty,
                !key.content.isEmpty, bytes[key.content.lowerBound] == 0,  // no unused bits
                let (inner, trailing) = Self.element(bytes, in: key.content.dropFirst()),
                inner.tag == Self.sequence, trailing.isEmpty
            else { return nil }
            return Self.integers(bytes, in: inner.content)
        }
        guard let found else { return nil }
        (modulus, exponent) = found
    }

    /// An RSA `EVP_PKEY` for the key, or nil when OpenSSL refuses it.
    func evpKey() -> OpaquePointer? {
        modulus.withUnsafeBufferPointer { n in
            exponent.withUnsafeBufferPointer { e in
                reservoir_rsa_public_key(n.baseAddress, n.count, e.baseAddress, e.count)
            }
        }
    }

    private struct Element {
        let tag: Int32
        let content: Range<Int>
    }

    /// The element at the start of `range` and what follows it in `range`.
    private static func element(_ bytes: UnsafeBufferPointer<UInt8>, in range: Range<Int>) -> (Element, Range<Int>)? {
        guard !range.isEmpty, let base = bytes.baseAddress else { return nil }
        var cursor: UnsafePointer<UInt8>? = base + range.lowerBound
        var length = 0
        var tag: Int32 = 0
        var tagClass: Int32 = 0
        let flags = ASN1_get_object(&cursor, &length, &tag, &tagClass, range.count)
        // 0x80: an error or a length past the end; 0x01: an indefinite length (BER, not DER).
        guard flags & 0x80 == 0, flags & 0x01 == 0, tagClass == V_ASN1_UNIVERSAL, let cursor else { return nil }
        let start = cursor - base
        guard length >= 0, start <= range.upperBound, length <= range.upperBound - start else { return nil }
        // SEQUENCE is constructed and the primitive types are not (X.690 §8.9, §8.3, §8.6).
        guard (flags & 0x20 != 0) == (tag == Self.sequence) else { return nil }
        return (Element(tag: tag, content: start..<(start + length)), (start + length)..<range.upperBound)
    }

    /// AlgorithmIdentifier parameters for rsaEncryption: NULL (RFC 8017 Appendix A.1), or absent
    /// as some encoders write them.
    private static func isAbsentOrNull(_ bytes: UnsafeBufferPointer<UInt8>, in range: Range<Int>) -> Bool {
        if range.isEmpty { return true }
        guard let (parameters, rest) = element(bytes, in: range) else { return false }
        return parameters.tag == Self.null && parameters.content.isEmpty && rest.isEmpty
    }

    /// RSAPublicKey ::= SEQUENCE { modulus INTEGER, publicExponent INTEGER } (RFC 8017 A.1.1),
    /// both positive.
    private static func integers(_ bytes: UnsafeBufferPointer<UInt8>, in range: Range<Int>) -> ([UInt8], [UInt8])? {
        guard let (n, afterN) = element(bytes, in: range), n.tag == Self.integer,
            let (e, rest) = element(bytes, in: afterN), e.tag == Self.integer, rest.isEmpty,
            let modulus = positive(bytes, n.content), let exponent = positive(bytes, e.content)
        else { return nil }
        return (modulus, exponent)
    }

    /// The magnitude of a positive INTEGER's content (two's complement, X.690 §8.3.3); nil for
    /// zero, negative or empty.
    private static func positive(_ bytes: UnsafeBufferPointer<UInt8>, _ content: Range<Int>) -> [UInt8]? {
        guard let first = content.first, bytes[first] & 0x80 == 0 else { return nil }
        let magnitude = bytes[content].drop { $0 == 0 }
        return magnitude.isEmpty ? nil : Array(magnitude)
    }
}
