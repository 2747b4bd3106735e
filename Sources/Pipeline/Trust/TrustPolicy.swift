public import DKIM

/// Who may put events on the calendar: Apple's rules for reservation markup, made explicit.
///
/// Markup is trusted only when a DKIM signature passes, its `d=` is aligned with the From
/// domain, the key is not in testing mode (`t=y`), the signature covers the whole body (no
/// unsigned content after `l=`), the message has exactly one From field, and the From domain
/// is allowed. The two testing switches relax this loudly, as Apple's developer settings do.
public struct TrustPolicy: Sendable {
    public enum Alignment: String, Sendable {
        /// `d=` equals the From domain.
        case strict
        /// `d=` and the From domain share an organizational domain (RFC 7489 §3.1.1).
        case relaxed
    }

    /// Domains whose markup is accepted; an entry starting with `.` also allows subdomains.
    public var allowedDomains: [String]
    /// Testing switch: accept any From domain.
    public var allowAnyDomain: Bool
    /// Testing switch: accept markup without a valid aligned DKIM signature.
    public var allowUnverified: Bool
    public var alignment: Alignment
    public var publicSuffixes: PublicSuffixList?

    public init(allowedDomains: [String] = [], allowAnyDomain: Bool = false, allowUnverified: Bool = false,
                alignment: Alignment = .relaxed, publicSuffixes: PublicSuffixList? = nil) {
        self.allowedDomains = allowedDomains.map { $0.lowercased() }
        self.allowAnyDomain = allowAnyDomain
        self.allowUnverified = allowUnverified
        self.alignment = alignment
        self.publicSuffixes = publicSuffixes
    }

    /// Reads an allowed-domains file: one domain a line, `#` comments, a leading `.` to
    /// include subdomains.
    public static func allowedDomains(fromFileText text: String) -> [String] {
        text.split(whereSeparator: \.isNewline).compactMap { line in
            let content = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let trimmed = content.trimmingCharacters(in: " \t\r")
            return trimmed.isEmpty ? nil : trimmed.lowercased()
        }
    }

    /// Whether the From domain is on the allowed list. Both are compared in A-labels (``IDNA``),
    /// so `公司.cn` and `xn--55qx5d.cn` name the same entry; a domain libidn2 refuses is not
    /// allowed.
    public func isAllowed(domain: String) -> Bool {
        guard let domain = IDNA.asciiDomain(domain) else { return false }
        return allowedDomains.contains { entry in
            let subdomains = entry.hasPrefix(".")
            guard let base = IDNA.asciiDomain(subdomains ? String(entry.dropFirst()) : entry) else { return false }
            return domain == base || (subdomains && domain.hasSuffix("." + base))
        }
    }

    /// Whether a signing domain vouches for a From domain. Both are compared in A-labels
    /// (``IDNA``): a From domain in U-labels (SMTPUTF8 mail, RFC 6531) aligns with the same
    /// name as an A-label `d=`, and a domain libidn2 refuses aligns with nothing.
    public func isAligned(signingDomain: String, fromDomain: String) -> Bool {
        guard let d = IDNA.asciiDomain(signingDomain), let from = IDNA.asciiDomain(fromDomain) else { return false }
        if d == from { return true }
        // Relaxed alignment compares organizational domains, which only host names have: a
        // "domain" with a comment or other punctuation in it aligns with nothing else.
        guard alignment == .relaxed, let psl = publicSuffixes, Self.isHostName(d), Self.isHostName(from) else { return false }
        guard let a = psl.organizationalDomain(of: d), let b = psl.organizationalDomain(of: from) else { return false }
        return a == b
    }

    /// Letters, digits and hyphens in non-empty dot-separated labels (RFC 5321 §4.1.2), with the
    /// underscores some signers use; A-labels (`xn--…`) are such names too, so a name is
    /// checked in its ASCII form (``IDNA``).
    static func isHostName(_ name: String) -> Bool {
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        return labels.count >= 2 && labels.allSatisfy { label in
            !label.isEmpty && label.utf8.allSatisfy { c in
                (c >= 0x61 && c <= 0x7A) || (c >= 0x30 && c <= 0x39) || c == 0x2D || c == 0x5F
            }
        }
    }

    public func decide(signatures: [DKIMVerification], fromDomains: [String]) -> TrustDecision {
        var overrides: [String] = []
        if allowAnyDomain { overrides.append("--allow-any-domain") }
        if allowUnverified { overrides.append("--allow-unverified") }

        // RFC 6376 §8.6 / RFC 7489 §6.6.1: a message with several From fields or addresses is
        // ambiguous about who sent it; nothing vouches for it.
        guard fromDomains.count == 1, let fromDomain = fromDomains.first, !fromDomain.isEmpty else {
            let reason = fromDomains.isEmpty ? "the message has no From address"
                : "the message has \(fromDomains.count) From addresses; nothing can vouch for it"
            return TrustDecision(trusted: false, vouchingDomain: nil, fromDomain: fromDomains.first, reason: reason, overrides: overrides)
        }

        let verdict = dkimVerdict(signatures: signatures, fromDomain: fromDomain)
        var vouching: String?
        switch verdict {
        case .vouched(let domain):
            vouching = domain
        case .notVouched(let why):
            if !allowUnverified {
                return TrustDecision(trusted: false, vouchingDomain: nil, fromDomain: fromDomain, reason: why, overrides: overrides)
            }
            vouching = nil
        }
        if !allowAnyDomain, !isAllowed(domain: fromDomain) {
            return TrustDecision(trusted: false, vouchingDomain: vouching, fromDomain: fromDomain,
                                 reason: "\(fromDomain) is not an allowed domain (add it with --allow-domain or --allowed-domains)",
                                 overrides: overrides)
        }
        if let vouching {
            let suffix = allowAnyDomain ? " (any domain allowed: --allow-any-domain)" : ""
            return TrustDecision(trusted: true, vouchingDomain: vouching, fromDomain: fromDomain,
                                 reason: "DKIM signature by \(vouching) verified and aligned with \(fromDomain)\(suffix)", overrides: overrides)
        }
        if case .notVouched(let why) = verdict {
            return TrustDecision(trusted: true, vouchingDomain: nil, fromDomain: fromDomain,
                                 reason: "UNVERIFIED (--allow-unverified): \(why)", overrides: overrides)
        }
        return TrustDecision(trusted: false, vouchingDomain: nil, fromDomain: fromDomain, reason: "no decision", overrides: overrides)
    }

    enum DKIMVerdict {
        case vouched(String)
        case notVouched(String)
    }

    /// The first signature that vouches for the From domain, or the most telling reason why
    /// none does.
    func dkimVerdict(signatures: [DKIMVerification], fromDomain: String) -> DKIMVerdict {
        if signatures.isEmpty { return .notVouched("the message has no DKIM signature") }
        var reasons: [String] = []
        for signature in signatures {
            let aligned = isAligned(signingDomain: signature.domain, fromDomain: fromDomain)
            switch signature.result {
            case .pass where !aligned:
                reasons.append("the DKIM signature by \(signature.domain) is valid but not aligned with From domain \(fromDomain)")
            case .pass where signature.testing:
                reasons.append("the key of \(signature.domain) is in testing mode (t=y)")
            case .pass where !signature.coversWholeBody:
                // RFC 6376 §8.2: content after l= is not covered by the signature.
                reasons.append("the DKIM signature by \(signature.domain) covers only the first \(signature.bodyLength ?? 0) bytes of the body (l=); the rest could have been added by anyone")
            case .pass:
                return .vouched(signature.domain)
            default:
                reasons.append("DKIM \(signature.result.rawValue) for \(signature.domain): \(signature.reason)")
            }
        }
        return .notVouched(reasons.joined(separator: "; "))
    }
}

/// The policy's verdict on one message, with the reason a person can read.
public struct TrustDecision: Sendable, Equatable {
    public var trusted: Bool
    /// The DKIM `d=` that vouched for the message, if any.
    public var vouchingDomain: String?
    public var fromDomain: String?
    public var reason: String
    /// The testing switches in force, shown loudly.
    public var overrides: [String]
}

extension StringProtocol {
    func trimmingCharacters(in set: String) -> String {
        var scalars = Substring(self).unicodeScalars[...]
        while let first = scalars.first, set.unicodeScalars.contains(first) { scalars.removeFirst() }
        while let last = scalars.last, set.unicodeScalars.contains(last) { scalars.removeLast() }
        return String(String.UnicodeScalarView(scalars))
    }
}
