import ARC
import DKIM

/// What an ARC chain says for a From domain under `--trust-arc-sealer`.
enum ARCVouch {
    /// The trusted sealer recorded an aligned `dkim=pass` of `domain` (with the selector
    /// `header.s` when it names one); the message is read through the original signature's
    /// view and `messageSignature`'s, the latest ARC-Message-Signature.
    case vouched(domain: String, selector: String?, sealer: String, instance: Int, messageSignature: DKIMVerification)
    case refused(TrustRefusal)
}

extension TrustPolicy {
    /// Whether `domain` is one of ``trustedARCSealers`` (an entry with a leading `.` also
    /// takes its subdomains).
    public func isTrustedSealer(_ domain: String) -> Bool {
        let domain = domain.lowercased()
        return trustedARCSealers.contains { entry in
            entry.hasPrefix(".") ? domain.hasSuffix(entry) || domain == String(entry.dropFirst()) : domain == entry
        }
    }

    /// The ARC path (RFC 8617): the chain validates (`cv=pass` up to its latest seal), the
    /// first instance sealed by a trusted sealer and every instance after it are sealed by
    /// trusted sealers, the latest ARC-Message-Signature signs From, and the trusted instance's
    /// ARC-Authentication-Results records `dkim=pass` with a `header.d` (or `header.i` domain)
    /// aligned with the From domain. Nil when the path is off or the message has no ARC fields.
    func arcVouch(_ arc: ARCValidation, fromDomain: String) -> ARCVouch? {
        guard !trustedARCSealers.isEmpty, arc.result != .none else { return nil }
        guard arc.result == .pass, let messageSignature = arc.latestMessageSignature else {
            return .refused(.arcNotValid(arc.code))
        }
        // A sealer after the trusted one could have changed the message and sealed it again.
        guard let first = arc.instances.firstIndex(where: { isTrustedSealer($0.sealer) }),
            arc.instances[first...].allSatisfy({ isTrustedSealer($0.sealer) })
        else { return .refused(.arcSealerNotTrusted) }
        guard messageSignature.signedHeaders.contains("from") else { return .refused(.arcNotValid(.messageSignatureFailed)) }
        let trusted = arc.instances[first]
        for result in trusted.results?.results ?? [] where result.method == "dkim" && result.result == "pass" {
            let selector = result.properties.first { $0.type == "header" && $0.name == "s" }?.value
            for property in result.properties where property.type == "header" && (property.name == "d" || property.name == "i") {
                let domain = (property.name == "i" ? property.value.split(separator: "@").last.map(String.init) ?? "" : property.value)
                    .lowercased()
                if isAligned(signingDomain: domain, fromDomain: fromDomain) {
                    return .vouched(
                        domain: domain, selector: selector, sealer: trusted.sealer, instance: trusted.instance,
                        messageSignature: messageSignature)
                }
            }
        }
        return .refused(.arcNoAlignedPass)
    }
}

extension TrustPolicy {
    /// The message's own DKIM-Signature fields the sealer's `dkim=pass` may stand for: those of
    /// `domain` (and of `selector`, when the result names `header.s`). An ARC-Authentication-Results
    /// field records a result, not what the signature covered (RFC 8617 §4.1.1, RFC 8601 §2.7.1),
    /// so the rules of the signature itself are read from the field, which survives forwarding.
    func arcOriginals(of signatures: [DKIMVerification], domain: String, selector: String?) -> [DKIMVerification] {
        let domain = IDNA.asciiDomain(domain) ?? domain
        return signatures.filter { signature in
            (IDNA.asciiDomain(signature.domain) ?? signature.domain) == domain
                && (selector.map { $0.lowercased() == signature.selector.lowercased() } ?? true)
        }
    }

    /// What the original signature's own rules refuse, judged without its cryptographic result
    /// (the forwarder may have changed the bytes it hashed): a signature whose tags do not read
    /// cannot say what it covered; a testing key vouches for nothing (RFC 6376 §3.6.1); and with
    /// `l=` only a body hashed here and no longer than `l=` is known to be covered (RFC 6376
    /// §8.2), so content appended after the signed length is never the signer's.
    func arcOriginalRefusal(_ original: DKIMVerification, domain: String) -> TrustRefusal? {
        guard original.canonicalization != nil else { return .arcOriginalNotFound(domain: domain) }
        if original.testing { return .testingKey(domain: original.domain) }
        if let length = original.bodyLength {
            let hashed = original.result == .pass || original.code == .bodyHashMismatch || original.code == .signatureMismatch
            if !hashed || !original.coversWholeBody { return .partialBody(domain: original.domain, signedLength: length) }
        }
        return nil
    }
}
