import COpenSSL

/// A verification key read from a key record's `p=`; owns its `EVP_PKEY`.
final class PublicKey {
    enum Kind { case rsa, ed25519 }

    let kind: Kind
    let bits: Int
    private let key: OpaquePointer

    private init(kind: Kind, key: OpaquePointer) {
        self.kind = kind
        self.key = key
        self.bits = Int(reservoir_EVP_PKEY_bits(key))
    }

    deinit { EVP_PKEY_free(key) }

    /// An RSA key from SubjectPublicKeyInfo DER, or from a bare PKCS#1 RSAPublicKey (the form
    /// of RFC 6376 Appendix C); nil when neither parses or the key is not RSA.
    static func rsa(der: [UInt8]) -> PublicKey? {
        guard OpenSSLLibrary.ready, let numbers = RSAPublicKeyDER(der) else { return nil }
        guard let parsed = numbers.evpKey() else {
            ERR_clear_error()
            return nil
        }
        return PublicKey(kind: .rsa, key: parsed)
    }

    /// RFC 8463 §4: `p=` is the raw 32-byte Ed25519 public key.
    static func ed25519(raw: [UInt8]) -> PublicKey? {
        guard OpenSSLLibrary.ready, raw.count == 32 else { return nil }
        let parsed = raw.withUnsafeBufferPointer {
            EVP_PKEY_new_raw_public_key(reservoir_EVP_PKEY_ED25519(), nil, $0.baseAddress, $0.count)
        }
        guard let parsed else {
            ERR_clear_error()
            return nil
        }
        return PublicKey(kind: .ed25519, key: parsed)
    }

    /// RSA: PKCS#1 v1.5 over SHA-256 of `data`. Ed25519: pure Ed25519 over `data`, which the
    /// caller makes the SHA-256 digest of the header hash input (RFC 8463 §3).
    func verify(signature: [UInt8], data: [UInt8], sha1: Bool = false) -> Bool {
        guard let context = EVP_MD_CTX_new() else { return false }
        defer {
            EVP_MD_CTX_free(context)
            ERR_clear_error()
        }
        let md = kind == .rsa ? (sha1 ? EVP_sha1() : EVP_sha256()) : nil
        guard EVP_DigestVerifyInit(context, nil, md, nil, key) == 1 else { return false }
        return signature.withUnsafeBufferPointer { sig in
            data.withUnsafeBufferPointer { tbs in
                EVP_DigestVerify(context, sig.baseAddress, sig.count, tbs.baseAddress, tbs.count) == 1
            }
        }
    }
}
