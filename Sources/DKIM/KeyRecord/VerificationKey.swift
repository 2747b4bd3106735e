/// A key record checked against the signature that wants it (RFC 6376 §3.6.1, RFC 8301,
/// RFC 8463).
struct VerificationKey {
    let publicKey: PublicKey
    let testing: Bool
    /// Set when the key exists but may not verify this signature (too short, t=s mismatch…).
    let problem: String?

    static func make(record: DKIMKeyRecord, signature: DKIMSignature) -> Result<VerificationKey, DKIMVerifier.KeyFailure> {
        func failure(_ reason: String) -> Result<VerificationKey, DKIMVerifier.KeyFailure> {
            .failure(DKIMVerifier.KeyFailure(result: .permerror, reason: reason))
        }
        // §3.6.1 p=: an empty value means the key has been revoked.
        guard !record.publicKeyBase64.isEmpty else { return failure("key revoked (empty p=)") }
        let expectedType = signature.algorithm.keyType
        guard record.keyType == expectedType else {
            return failure("key type k=\(record.keyType) does not match a=\(signature.algorithm.rawValue)")
        }
        let hash = signature.algorithm.usesSHA1 ? "sha1" : "sha256"
        if let hashes = record.hashAlgorithms, !hashes.contains(hash) {
            return failure("key h= does not allow \(hash)")
        }
        // §3.6.1 s=: "*" or "email".
        guard record.serviceTypes.contains(where: { $0 == "*" || $0 == "email" }) else {
            return failure("key is not for email (s=\(record.serviceTypes.joined(separator: ":")))")
        }
        guard let der = Base64.decode(record.publicKeyBase64) else { return failure("key p= is not valid base64") }
        let parsed = expectedType == "rsa" ? PublicKey.rsa(der: der) : PublicKey.ed25519(raw: der)
        guard let publicKey = parsed else { return failure("key p= is not a usable \(expectedType) public key") }
        var problem: String?
        if publicKey.kind == .rsa, publicKey.bits < DKIMLimits.minimumRSAKeyBits {
            // RFC 8301 §3.2: keys under 1024 bits MUST NOT be considered valid.
            problem = "key too short (\(publicKey.bits) bits, RFC 8301 §3.2 requires \(DKIMLimits.minimumRSAKeyBits))"
        } else if publicKey.kind == .rsa, publicKey.bits > DKIMLimits.maximumRSAKeyBits {
            problem = "key too long (\(publicKey.bits) bits)"
        } else if record.strictIdentity, let identity = signature.identity,
                  let at = identity.lastIndex(of: "@"), identity[identity.index(after: at)...].lowercased() != signature.domain {
            // §3.6.1 t=s: the i= domain must equal d=, not be a subdomain.
            problem = "key t=s forbids the subdomain identity \(identity)"
        }
        return .success(VerificationKey(publicKey: publicKey, testing: record.testing, problem: problem))
    }
}
