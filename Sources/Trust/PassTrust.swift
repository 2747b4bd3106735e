public import ReservoirBase
public import WalletPass

extension TrustPolicy {
    /// A pass is trusted when it verified (every file as its manifest says, the manifest signed
    /// by a certificate chaining to a `--pass-ca` anchor, pass.json naming that certificate's
    /// pass type and team) and its pass type identifier is allowed.
    /// A pass vouches for itself, through its issuer's signature, whoever sent or forwarded the
    /// message; DKIM and the allowed domains play no part. Its bookings are ordered by its
    /// signed signing time and owned by ``passOwner(_:)``.
    public func decide(pass verification: PassVerification) -> DocumentTrustDecision {
        switch verification {
        case .failed(let failure):
            return DocumentTrustDecision(.walletPass, trusted: false, refusal: .passNotVerified(failure))
        case .verified(let signer):
            let refusal: TrustRefusal? = isAllowed(passType: signer.passTypeIdentifier) ? nil : .passTypeNotAllowed(signer.passTypeIdentifier)
            return DocumentTrustDecision(
                .walletPass, trusted: refusal == nil, signer: .walletPass(signer), refusal: refusal,
                owner: passOwner(signer.passTypeIdentifier), signedAt: signer.signedAt)
        }
    }

    /// Whether `--allow-pass-type` lists the identifier: equal, or under an entry ending in
    /// `.*` (`pass.com.airline.example.*` allows `pass.com.airline.example.boarding`, not
    /// `pass.com.airline.example` itself nor `pass.com.airline.examples.x`). Identifiers are
    /// compared as written: Apple's are case-sensitive reverse-DNS strings. An entry may link
    /// the pass type to a domain (`TYPE=DOMAIN`, ``passOwner(_:)``).
    public func isAllowed(passType: String) -> Bool {
        allowedPassTypes.contains { Self.passTypeEntry($0).matches(passType) }
    }

    /// The owner of a trusted pass's bookings: the domain an `--allow-pass-type TYPE=DOMAIN`
    /// entry links its pass type to, so that the organisation's signed mail and its passes
    /// update one event; otherwise the pass type itself, an owner no domain equals. Only the
    /// user's configuration links two proofs: nothing in a pass (its `organizationName`, its
    /// team) does.
    public func passOwner(_ passType: String) -> BookingOwner {
        for entry in allowedPassTypes.map(Self.passTypeEntry) where entry.matches(passType) {
            if let domain = entry.domain { return .domain(domain) }
        }
        return .walletPass(passType: passType)
    }

    /// Why an `--allow-pass-type` entry cannot be used, or nil: the domain after `=` must be a
    /// host name libidn2 accepts.
    public static func passTypeEntryProblem(_ entry: String) -> String? {
        guard let equals = entry.firstIndex(of: "=") else { return entry.isEmpty ? "an empty pass type" : nil }
        let domain = String(entry[entry.index(after: equals)...])
        guard asciiHostName(domain) != nil else { return "\(domain) is not a domain name" }
        return entry[..<equals].isEmpty ? "no pass type before =" : nil
    }

    struct PassTypeEntry {
        var pattern: Substring
        /// The linked domain, in A-labels and lowercased.
        var domain: String?

        func matches(_ passType: String) -> Bool {
            if pattern.hasSuffix(".*") {
                let prefix = pattern.dropLast()
                return passType.count > prefix.count && passType.hasPrefix(prefix)
            }
            return pattern == passType
        }
    }

    static func passTypeEntry(_ entry: String) -> PassTypeEntry {
        guard let equals = entry.firstIndex(of: "=") else { return PassTypeEntry(pattern: entry[...], domain: nil) }
        return PassTypeEntry(pattern: entry[..<equals], domain: asciiHostName(String(entry[entry.index(after: equals)...])))
    }
}

extension TrustPolicy {
    /// The verdict on a page fetched from `host` (`reservoir add URL`): trusted when it came
    /// over verified https and the host or its registered domain is allowed. The registered
    /// domain (the public suffix plus one label, as relaxed DKIM alignment reads it) vouches,
    /// and owns the booking; without the public suffix list, the host itself.
    public func decide(page url: String, host: String, https: Bool) -> TrustDecision {
        let registered = registeredDomain(of: host)
        var overrides: [TrustOverride] = []
        var refusals: [TrustRefusal] = []
        if !https {
            refusals.append(.pageNotHTTPS)
        } else if !(isAllowed(domain: host) || registered.map(isAllowed(domain:)) == true) {
            refusals.append(.domainNotAllowed(host))
        }
        if case .domainNotAllowed = refusals.first, allowAnyDomain { overrides.append(.allowAnyDomain) }
        if refusals.first == .pageNotHTTPS, allowUnverified { overrides.append(.allowUnverified) }
        let trusted = refusals.isEmpty || !overrides.isEmpty
        return TrustDecision(
            trusted: trusted, vouchingDomain: https ? registered : nil, fromDomain: host, refusals: refusals, overrides: overrides,
            path: .page(url: url, host: host))
    }

    /// The decision on a document with nothing proving its origin: refused, unless
    /// `--allow-unverified` says to take it anyway.
    public func decideUnproven() -> TrustDecision {
        TrustDecision(
            trusted: allowUnverified, vouchingDomain: nil, fromDomain: nil, refusals: [.documentNoProof],
            overrides: allowUnverified ? [.allowUnverified] : [])
    }

    /// `host`'s registered domain in A-labels (the public suffix plus one label); the host
    /// itself when no public suffix list is loaded; nil for no host name.
    public func registeredDomain(of host: String) -> String? {
        guard let ascii = Self.asciiHostName(host) else { return nil }
        guard let psl = publicSuffixes else { return ascii }
        return psl.organizationalDomain(of: ascii)
    }

    /// Whether a redirect from `from` to `to` stays within one registered domain.
    public func sameRegisteredDomain(_ from: String, _ to: String) -> Bool {
        guard let a = registeredDomain(of: from), let b = registeredDomain(of: to) else { return false }
        return a == b
    }
}

extension TrustPolicy {
    /// A rail ticket is trusted when its signature verified with the key list's key of the
    /// railway and key id it names (`railway`), that key may vouch for it (`keyRefusal` nil:
    /// its validity covers the ticket's issuing time, and it may sign for the ticket's product
    /// owners), and it is no specimen. `failure` is the rail reader's word for a signature that
    /// did not verify.
    /// Like a Wallet pass, a rail ticket vouches for itself through its railway's signature,
    /// whoever mailed it; DKIM and the allowed domains play no part. `issuedAt` is its signed
    /// issuing time, which orders its bookings' versions.
    public func decide(
        railway: String?, railwayName: String?, keyID: String?, failure: String?, specimen: Bool, keyRefusal: TrustRefusal? = nil,
        issuedAt: Int64? = nil
    ) -> DocumentTrustDecision {
        guard let railway, failure == nil else {
            return DocumentTrustDecision(
                .railTicket, trusted: false, refusal: .railTicketNotVerified(reason: failure ?? "invalid"), signedAt: issuedAt)
        }
        // A key outside its validity or its owners proves nothing of the railway's: the ticket
        // is the message's, as one whose signature does not verify.
        if let keyRefusal { return DocumentTrustDecision(.railTicket, trusted: false, refusal: keyRefusal, signedAt: issuedAt) }
        return DocumentTrustDecision(
            .railTicket, trusted: !specimen, signer: .railway(rics: railway, name: railwayName, keyID: keyID ?? ""),
            refusal: specimen ? .railTicketSpecimen : nil, owner: railOwner(railway), signedAt: issuedAt)
    }

    /// The owner of a trusted rail ticket's bookings: its railway (RICS code), an owner no
    /// domain equals.
    public func railOwner(_ railway: String) -> BookingOwner { .railway(rics: railway) }
}
