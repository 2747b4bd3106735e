/// A key record checked against the signature that wants it (RFC 6376 §3.6.1, RFC 8301,
/// RFC 8463).
struct VerificationKey {
    let publicKey: PublicKey
    let testing: Bool
    /// Set when the key exists but may not verify this signature (too short, t=s mismatch…).
    let problem: DKIMSignature.Problem?

    static func make(
        record: DKIMKeyRecord, signature: DKIMSignature,
        cache: PublicKeyCache? = nil
    ) -> Result<VerificationKey, DKIMVerifier.KeyFailure> {
        func failure(_ code: DKIMVerification.Code, _ reason: String) -> Result<VerificationKey, DKIMVerifier.KeyFailure> {
            .failure(DKIMVerifier.KeyFailure(result: .permerror, code: code, reason: reason))
        }
        // §3.6.1 p=: an empty value means the key has been revoked.
        guard !record.publicKeyBase64.isEmpty else { return failure(.keyRevoked, "key revoked (empty p=)") }
        let expectedType = signature.algorithm.keyType
        guard record.keyType == expectedType else {
            return failure(.keyTypeMismatch, "key type k=\(record.keyType) does not match a=\(signature.algorithm.rawValue)")
        }
        let hash = signature.algorithm.usesSHA1 ? "sha1" : "sha256"
        if let hashes = record.hashAlgorithms, !hashes.contains(hash) {
            return failure(.keyHashNotAllowed, "key h= does not allow \(hash)")
        }
        // §3.6.1 s=: "*" or "email".
        guard record.serviceTypes.contains(where: { $0 == "*" || $0 == "email" }) else {
            return failure(.keyNotForEmail, "key is not for email (s=\(record.serviceTypes.joined(separator: ":")))")
        }
        let parsed: PublicKey?
        switch cache?.key(type: expectedType, base64: record.publicKeyBase64)
            ?? PublicKeyCache.parse(type: expectedType, base64: record.publicKeyBase64)
        {
        case .invalidBase64: return failure(.malformedKey, "key p= is not valid base64")
        case .unusable: parsed = nil
        case .key(let key): parsed = key
        }
        guard let publicKey = parsed else { return failure(.malformedKey, "key p= is not a usable \(expectedType) public key") }
        var problem: DKIMSignature.Problem?
        if publicKey.kind == .rsa, publicKey.bits < DKIMLimits.minimumRSAKeyBits {
            // RFC 8301 §3.2: keys under 1024 bits MUST NOT be considered valid.
            problem = DKIMSignature.Problem(
                .keyTooShort, "key too short (\(publicKey.bits) bits, RFC 8301 §3.2 requires \(DKIMLimits.minimumRSAKeyBits))")
        } else if publicKey.kind == .rsa, publicKey.bits > DKIMLimits.maximumRSAKeyBits {
            problem = DKIMSignature.Problem(.keyTooLong, "key too long (\(publicKey.bits) bits)")
        } else if record.strictIdentity, let identity = signature.identity,
            let at = identity.lastIndex(of: "@"), identity[identity.index(after: at)...].lowercased() != signature.domain
        {
            // §3.6.1 t=s: the i= domain must equal d=, not be a subdomain.
            problem = DKIMSignature.Problem(.identityMismatch, "key t=s forbids the subdomain identity \(identity)")
        }
        return .success(VerificationKey(publicKey: publicKey, testing: record.testing, problem: problem))
    }
}

/// Parsed public keys by key type and `p=` value, so a run that sees the same key on many
/// messages decodes it once (OpenSSL's DER decoders cost as much as a verification).
final class PublicKeyCache {
    enum Entry {
        case invalidBase64, unusable
        case key(PublicKey)
    }

    /// Entries kept before the cache starts over (a bound on memory for hostile input).
    static let capacity = 1_000
    private var entries: [String: Entry] = [:]

    func key(type: String, base64: String) -> Entry {
        let name = type + ":" + base64
        if let hit = entries[name] { return hit }
        let entry = Self.parse(type: type, base64: base64)
        if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
        entries[name] = entry
        return entry
    }

    static func parse(type: String, base64: String) -> Entry {
        guard let der = Base64.decode(base64) else { return .invalidBase64 }
        let parsed = type == "rsa" ? PublicKey.rsa(der: der) : PublicKey.ed25519(raw: der)
        return parsed.map(Entry.key) ?? .unusable
    }
}
