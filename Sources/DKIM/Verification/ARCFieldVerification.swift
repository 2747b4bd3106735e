package import MIME

/// The two ARC fields that carry signatures (RFC 8617 §4.1.2, §4.1.3), verified with DKIM's
/// own tag reading, key lookup, canonicalization and crypto. What makes a chain of them valid
/// is the `ARC` target's; here each field is one signature.
extension DKIMVerifier {
    /// An ARC-Message-Signature verified as RFC 8617 §5.2 step 5 asks: as a DKIM signature
    /// (RFC 6376 §6), without `v=`, with `i=` the instance, and without the requirement to
    /// sign From.
    package func verifyARCMessageSignature(_ message: Message, fieldIndex: Int) -> DKIMVerification {
        var hashes = BodyHashes(message: message, source: .message)
        return verify(message, fieldIndex: fieldIndex, hashes: &hashes, kind: .arcMessageSignature)
    }

    /// An ARC-Seal (RFC 8617 §5.1.1): its `b=` over the fields of `sealedFields` (indices into
    /// the header, the ARC sets of instances 1 to this one in order: ARC-Authentication-Results,
    /// ARC-Message-Signature, ARC-Seal, the seal itself last and left out of the list) in
    /// relaxed header canonicalization, then the seal with `b=` emptied and no final CRLF.
    package func verifyARCSeal(_ message: Message, fieldIndex: Int, sealedFields: [Int]) -> DKIMVerification {
        let field = message.header.fields[fieldIndex]
        let tags: TagList
        do {
            tags = try TagList(message.bytes, in: field.valueRange)
        } catch {
            return DKIMVerification(result: .permerror, code: .malformedSignature, reason: "malformed ARC-Seal: \(error)")
        }
        var report = Self.report(from: tags)
        let signature: DKIMSignature
        do {
            signature = try DKIMSignature(tags: tags, now: now, kind: .arcSeal)
        } catch {
            report.result = .permerror
            report.code = error.code
            report.reason = error.reason
            return report
        }
        report.timestamp = signature.timestamp
        guard let key = usableKey(for: signature, reporting: &report) else { return report }
        var data: [UInt8] = []
        for index in sealedFields where message.header.fields.indices.contains(index) {
            HeaderCanonicalizer.canonicalize(message.bytes, message.header.fields[index], relaxed: true, into: &data)
        }
        data += SignedHeaderData.signatureField(message.bytes, field, tags: tags, relaxed: true)
        let hashed = signature.algorithm == .ed25519SHA256 ? SHA256Digest.hash(data) : data
        guard !signature.algorithm.usesSHA1, key.publicKey.verify(signature: signature.signature, data: hashed, sha1: false) else {
            report.result = .fail
            report.code = .signatureMismatch
            report.reason = "seal did not verify (an ARC field was changed, or the wrong key)"
            return report
        }
        report.result = .pass
        report.coversWholeBody = true
        report.reason = ""
        return report
    }
}
