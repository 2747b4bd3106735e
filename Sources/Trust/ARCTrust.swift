public import ARC
public import DKIM

/// What an ARC chain says for a From domain under `--trust-arc-sealer`.
enum ARCVouch {
    /// The trusted sealer recorded an aligned `dkim=pass` of `domain`; the message is read
    /// through `messageSignature`, the latest ARC-Message-Signature.
    case vouched(domain: String, sealer: String, instance: Int, messageSignature: DKIMVerification)
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
            for property in result.properties where property.type == "header" && (property.name == "d" || property.name == "i") {
                let domain = (property.name == "i" ? property.value.split(separator: "@").last.map(String.init) ?? "" : property.value)
                    .lowercased()
                if isAligned(signingDomain: domain, fromDomain: fromDomain) {
                    return .vouched(domain: domain, sealer: trusted.sealer, instance: trusted.instance, messageSignature: messageSignature)
                }
            }
        }
        return .refused(.arcNoAlignedPass)
    }
}
