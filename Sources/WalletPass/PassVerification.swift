/// Who signed a pass, from the subject of the certificate that signed its manifest (Apple's
/// pass type certificates): `UID` the pass type identifier, `OU` the team identifier, `O` the
/// organisation.
public struct PassSigner: Sendable, Equatable {
    public var passTypeIdentifier: String
    public var teamIdentifier: String
    public var organization: String?
    /// The signed signing-time attribute the chain was checked at; nil when the signature has
    /// none and the chain was checked at the pipeline's clock.
    public var signedAt: Int64?

    public init(passTypeIdentifier: String, teamIdentifier: String, organization: String?, signedAt: Int64?) {
        self.passTypeIdentifier = passTypeIdentifier
        self.teamIdentifier = teamIdentifier
        self.organization = organization
        self.signedAt = signedAt
    }
}

/// Whether a pass is what its issuer signed: every file in the manifest with its digest, the
/// manifest signed by a certificate that chains to a configured anchor, and the pass naming
/// the certificate's pass type and team.
public enum PassVerification: Sendable, Equatable {
    case verified(PassSigner)
    case failed(PassVerificationFailure)
}

/// Why a pass is not verified, most basic first; each is a refusal code of docs/USAGE.md.
public enum PassVerificationFailure: Error, Sendable, Equatable {
    /// The archive could not be read whole (a zip note says why), or it has no pass.json.
    case unreadable
    /// No manifest.json, or one that is not an object of file names and hex digests.
    case noManifest
    /// A file of the archive the manifest does not list, or lists with another digest, or a
    /// listed file missing from the archive.
    case manifestMismatch(file: String)
    /// No signature file, or one that is not a DER CMS SignedData.
    case noSignature
    /// The signature does not verify over manifest.json, or it has not exactly one signer.
    case signatureInvalid
    /// No `--pass-ca` is configured: nothing can vouch for a pass.
    case noAnchors
    /// A `--pass-ca` file could not be read or holds no certificate (the path).
    case anchorsUnreadable(String)
    /// The signer certificate does not chain to a configured anchor (OpenSSL's X509_V_ERR code).
    case chainNotTrusted(code: Int32)
    /// The chain was not valid at the time it was checked at (expired or not yet valid).
    case certificateNotValidAtTime(code: Int32)
    /// The signing-time attribute lies in the future.
    case signingTimeInFuture
    /// The signer's RSA key is shorter than 2048 bits (the bit count).
    case weakKey(bits: Int)
    /// The signer certificate's subject lacks a single UID or OU.
    case signerUnnamed
    /// pass.json's `passTypeIdentifier` or `teamIdentifier` is not the certificate's.
    case identityMismatch(pass: String, certificate: String)
}
