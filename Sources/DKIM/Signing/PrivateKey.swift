import COpenSSL

/// A signing key read from PEM (PKCS#8 or traditional RSA); owns its `EVP_PKEY`.
final class PrivateKey {
    let kind: PublicKey.Kind
    private let key: OpaquePointer

    init?(pem: String) {
        guard OpenSSLLibrary.ready else { return nil }
        let bytes = Array(pem.utf8)
        let parsed: OpaquePointer? = bytes.withUnsafeBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
        }
        ERR_clear_error()
        guard let parsed else { return nil }
        switch reservoir_EVP_PKEY_id(parsed) {
        case reservoir_EVP_PKEY_RSA(): kind = .rsa
        case reservoir_EVP_PKEY_ED25519(): kind = .ed25519
        default:
            EVP_PKEY_free(parsed)
            return nil
        }
        key = parsed
    }

    deinit { EVP_PKEY_free(key) }

    var bits: Int { Int(reservoir_EVP_PKEY_bits(key)) }

    /// RSA: SubjectPublicKeyInfo DER. Ed25519: the raw 32 bytes (RFC 8463 §4).
    func publicKeyBytes() -> [UInt8] {
        if kind == .ed25519 {
            var length = 0
            guard EVP_PKEY_get_raw_public_key(key, nil, &length) == 1 else { return [] }
            var out = [UInt8](repeating: 0, count: length)
            guard EVP_PKEY_get_raw_public_key(key, &out, &length) == 1 else { return [] }
            return Array(out[0..<length])
        }
        var pointer: UnsafeMutablePointer<UInt8>?
        let length = i2d_PUBKEY(key, &pointer)
        guard length > 0, let pointer else { return [] }
        defer { CRYPTO_free(pointer, #fileID, #line) }
        return Array(UnsafeBufferPointer(start: pointer, count: Int(length)))
    }

    /// RSA: PKCS#1 v1.5 with SHA-256 over `data`. Ed25519: pure Ed25519 over `data`.
    func sign(_ data: [UInt8]) -> [UInt8]? {
        guard let context = EVP_MD_CTX_new() else { return nil }
        defer {
            EVP_MD_CTX_free(context)
            ERR_clear_error()
        }
        let md = kind == .rsa ? EVP_sha256() : nil
        guard EVP_DigestSignInit(context, nil, md, nil, key) == 1 else { return nil }
        return data.withUnsafeBufferPointer { tbs -> [UInt8]? in
            var length = 0
            guard EVP_DigestSign(context, nil, &length, tbs.baseAddress, tbs.count) == 1 else { return nil }
            var out = [UInt8](repeating: 0, count: length)
            guard EVP_DigestSign(context, &out, &length, tbs.baseAddress, tbs.count) == 1 else { return nil }
            return Array(out[0..<length])
        }
    }
}
