import COpenSSL
public import JSON
import ReservoirBase
public import Zip

/// An Apple Wallet pass (`application/vnd.apple.pkpass`): a zip of pass.json, its images and
/// localizations, manifest.json (a SHA-1 or SHA-256 hex digest of every other file) and
/// `signature`, a detached CMS signature over manifest.json by the issuer's pass type
/// certificate.
///
/// Reading never throws or traps: the reservations the pass describes are read whenever
/// pass.json is readable, for display, and ``verification`` says whether the issuer's
/// signature vouches for them.
public struct WalletPass: Sendable {
    /// pass.json's content; nil when the archive has no readable pass.json.
    public var content: PassContent?
    /// The reservations, as schema.org values for the reservation reader.
    public var items: [JSONValue]
    public var verification: PassVerification
    public var diagnostics: [PassDiagnostic]
    public var zipDiagnostics: [ZipDiagnostic]
    /// Whether a bar code's year came from the clock alone (``PassReservations/unsignedYear``):
    /// its reservations are listed, never stored.
    public var unsignedYear = false

    /// The files every pass has besides those the manifest lists.
    static let manifestName = "manifest.json"
    static let signatureName = "signature"

    /// Reads and verifies the pass in `bytes`; `now` is the clock for a signature without a
    /// signing time, and the last resort for a bar code's year (``PassReservations``), which is
    /// otherwise taken from what the issuer signed: the verified signing time among it.
    public static func read(_ bytes: [UInt8], anchors: PassTrustAnchors, now: Int64) -> WalletPass {
        let archive = ZipArchive.read(bytes)
        var pass = WalletPass(content: nil, items: [], verification: .failed(.unreadable), diagnostics: [], zipDiagnostics: archive.diagnostics)
        if let json = archive.data(named: "pass.json"), let value = TolerantJSONReader.read(json).values.first, let content = PassContent(value) {
            pass.content = content
        } else {
            pass.diagnostics.append(PassDiagnostic(.passUnreadable, "the pass has no readable pass.json"))
        }
        pass.verification = verify(archive, content: pass.content, anchors: anchors, now: now)
        if let content = pass.content {
            var signedAt: Int64?
            if case .verified(let signer) = pass.verification { signedAt = signer.signedAt }
            let reservations = PassReservations(content, signedAt: signedAt, now: now)
            pass.items = reservations.items
            pass.diagnostics = reservations.diagnostics
            pass.unsignedYear = reservations.unsignedYear
        }
        return pass
    }

    /// The checks in order: a whole archive, the manifest against every file, the signature
    /// over the manifest, and pass.json naming the signer's pass type and team.
    static func verify(_ archive: ZipArchive, content: PassContent?, anchors: PassTrustAnchors, now: Int64) -> PassVerification {
        guard archive.isComplete, let content else { return .failed(.unreadable) }
        guard let manifestBytes = archive.data(named: manifestName) else { return .failed(.noManifest) }
        if let mismatch = manifestMismatch(archive, manifest: manifestBytes) { return .failed(mismatch) }
        guard let signature = archive.data(named: signatureName) else { return .failed(.noSignature) }
        let verification = PassSignatureVerifier(anchors: anchors, now: now).verify(signature: signature, manifest: manifestBytes)
        guard case .verified(let signer) = verification else { return verification }
        // Apple: the pass type identifier and team identifier in pass.json must match the
        // certificate that signed it.
        let claimed = (content.passTypeIdentifier ?? "") + " (team " + (content.teamIdentifier ?? "") + ")"
        let certified = signer.passTypeIdentifier + " (team " + signer.teamIdentifier + ")"
        guard content.passTypeIdentifier == signer.passTypeIdentifier, content.teamIdentifier == signer.teamIdentifier else {
            return .failed(.identityMismatch(pass: claimed, certificate: certified))
        }
        return verification
    }

    /// The first file that breaks the manifest: listed with another digest, listed but absent,
    /// or present but unlisted. Nil when every file is as the manifest says.
    static func manifestMismatch(_ archive: ZipArchive, manifest: [UInt8]) -> PassVerificationFailure? {
        guard let object = TolerantJSONReader.read(manifest).values.first?.objectValue, !object.isEmpty else { return .noManifest }
        var listed: [String: String] = [:]
        for member in object.members {
            guard let digest = member.value.stringValue else { return .noManifest }
            listed[member.key] = digest.lowercased()
        }
        var seen = Set<String>()
        for entry in archive.entries where !entry.isDirectory && entry.name != manifestName && entry.name != signatureName {
            guard let expected = listed[entry.name], let data = entry.data, hexDigest(data, length: expected.utf8.count) == expected else {
                return .manifestMismatch(file: entry.name)
            }
            seen.insert(entry.name)
        }
        if let missing = listed.keys.sorted().first(where: { !seen.contains($0) }) { return .manifestMismatch(file: missing) }
        return nil
    }

    /// The SHA-1 (40 hex digits) or SHA-256 (64) digest of `data`, lowercase hex; nil for
    /// another length.
    static func hexDigest(_ data: [UInt8], length: Int) -> String? {
        guard PassSignatureVerifier.ready else { return nil }
        let algorithm: OpaquePointer?
        switch length {
        case 40: algorithm = EVP_sha1()
        case 64: algorithm = EVP_sha256()
        default: return nil
        }
        var digest = [UInt8](repeating: 0, count: 32)
        var size: UInt32 = 0
        let ok = data.withUnsafeBufferPointer { buffer in
            EVP_Digest(buffer.baseAddress, buffer.count, &digest, &size, algorithm, nil)
        }
        guard ok == 1 else { return nil }
        return Hexadecimal.lowercase(digest.prefix(Int(size)))
    }
}
