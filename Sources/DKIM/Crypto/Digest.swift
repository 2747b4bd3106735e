import COpenSSL

/// A SHA-256 (or, for rsa-sha1 signatures, SHA-1) digest through OpenSSL EVP; owns its
/// `EVP_MD_CTX`.
final class SHA256Digest {
    private let context: OpaquePointer?

    init(sha1: Bool = false) {
        context = OpenSSLLibrary.ready ? EVP_MD_CTX_new() : nil
        if let context { EVP_DigestInit_ex(context, sha1 ? EVP_sha1() : EVP_sha256(), nil) }
    }

    deinit { EVP_MD_CTX_free(context) }

    func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    func update(_ bytes: UnsafeRawBufferPointer) {
        guard let context, !bytes.isEmpty else { return }
        _ = EVP_DigestUpdate(context, bytes.baseAddress, bytes.count)
    }

    func finish() -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard let context, EVP_DigestFinal_ex(context, &out, &length) == 1 else { return [] }
        return Array(out[0..<Int(length)])
    }

    static func hash(_ bytes: [UInt8]) -> [UInt8] {
        let digest = SHA256Digest()
        digest.update(bytes)
        return digest.finish()
    }
}
