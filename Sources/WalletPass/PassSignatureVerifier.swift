import COpenSSL

/// Checks the detached CMS signature of a pass (RFC 5652 SignedData over manifest.json, as
/// Apple's `signpass` makes it) with OpenSSL: the signature over the manifest first, then the
/// signer certificate's chain up to a configured anchor, at the signing time.
///
/// The chain is checked at the signed signing-time attribute when the signature has one (Apple's
/// tools always add it), else at `now`: Apple's intermediate certificates expire (WWDR G1 in
/// February 2023) while the passes they signed stay in people's mail, and a pass is mailed
/// minutes after it is signed. A signing time more than a day after `now` is refused.
struct PassSignatureVerifier {
    /// Shortest RSA key accepted, as for DKIM (RFC 8301 §3.2).
    static let minimumRSABits = 2048
    /// Slack for a signer's clock ahead of ours.
    static let futureSlackSeconds: Int64 = 86_400
    /// The longest subject entry read (UID, OU, O).
    static let maxNameBytes = 256
    /// A pass signature with its certificate chain is a few KB.
    static let maxSignatureBytes = 256 << 10

    /// OpenSSL set up as DKIM sets it up, plus the digest names CMS matches by (see
    /// `reservoir_openssl_add_cms_digests`).
    static let ready: Bool = reservoir_openssl_init() == 1 && reservoir_openssl_add_cms_digests() == 1
    /// The library context passes are verified in: its digests are fetched after their names
    /// were added, whatever the process fetched before. Unsafe only to the compiler: "OSSL_LIB_CTX
    /// objects are thread safe" (openssl-threads(7)), and it is never freed.
    nonisolated(unsafe) static let context: OpaquePointer? = ready ? OSSL_LIB_CTX_new() : nil

    let anchors: PassTrustAnchors
    let now: Int64

    func verify(signature: [UInt8], manifest: [UInt8]) -> PassVerification {
        guard let context = Self.context, !signature.isEmpty, signature.count <= Self.maxSignatureBytes else { return .failed(.noSignature) }
        let parsed = signature.withUnsafeBufferPointer { reservoir_cms_read(context, $0.baseAddress, $0.count) }
        defer { ERR_clear_error() }
        guard let cms = parsed else { return .failed(.noSignature) }
        defer { CMS_ContentInfo_free(cms) }
        // RFC 5652 §5.2: a detached signature carries no content; exactly one signer names the issuer.
        guard CMS_is_detached(cms) == 1, reservoir_cms_signer_count(cms) == 1 else { return .failed(.signatureInvalid) }
        var signerPointer: OpaquePointer?
        let checked = manifest.withUnsafeBufferPointer { reservoir_cms_verify_signature(cms, $0.baseAddress, $0.count, &signerPointer) }
        guard checked == 1, let signer = signerPointer else { return .failed(.signatureInvalid) }
        defer { X509_free(signer) }

        var signingTime: Int64 = 0
        var signedAt: Int64?
        if reservoir_cms_signing_time(cms, &signingTime) == 1 {
            guard signingTime <= now + Self.futureSlackSeconds else { return .failed(.signingTimeInFuture) }
            signedAt = signingTime
        }
        if let key = X509_get0_pubkey(signer), reservoir_EVP_PKEY_id(key) == reservoir_EVP_PKEY_RSA(),
            reservoir_EVP_PKEY_bits(key) < Self.minimumRSABits
        {
            return .failed(.weakKey(bits: Int(reservoir_EVP_PKEY_bits(key))))
        }
        let certificates: [OpaquePointer]
        switch anchors.certificates() {
        case .failure(let failure): return .failed(failure)
        case .success(let loaded): certificates = loaded
        }
        var anchorList: [OpaquePointer?] = certificates
        let code = anchorList.withUnsafeMutableBufferPointer {
            reservoir_verify_chain(cms, signer, $0.baseAddress, Int32($0.count), signedAt ?? now)
        }
        switch code {
        case X509_V_OK: break
        case X509_V_ERR_CERT_HAS_EXPIRED, X509_V_ERR_CERT_NOT_YET_VALID:
            return .failed(.certificateNotValidAtTime(code: code))
        default:
            return .failed(.chainNotTrusted(code: code))
        }
        guard let uid = Self.subjectEntry(signer, reservoir_NID_userId()),
            let team = Self.subjectEntry(signer, reservoir_NID_organizationalUnitName())
        else { return .failed(.signerUnnamed) }
        return .verified(
            PassSigner(
                passTypeIdentifier: uid, teamIdentifier: team, organization: Self.subjectEntry(signer, reservoir_NID_organizationName()),
                signedAt: signedAt))
    }

    /// The text of the subject's one entry of `nid`; nil when absent, repeated or empty.
    static func subjectEntry(_ certificate: OpaquePointer, _ nid: Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: maxNameBytes + 1)
        let length = buffer.withUnsafeMutableBufferPointer { reservoir_subject_entry(certificate, nid, $0.baseAddress, Int32($0.count)) }
        guard length > 0 else { return nil }
        return String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
