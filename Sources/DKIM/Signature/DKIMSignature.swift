import ReservoirBase

/// The tags of one DKIM-Signature field (RFC 6376 §3.5), checked for what makes a signature
/// unusable before any key is fetched.
struct DKIMSignature {
    enum Algorithm: String {
        case rsaSHA256 = "rsa-sha256"
        case ed25519SHA256 = "ed25519-sha256"
        /// Read and checked so the result is the real one, but never `pass` (RFC 8301 §3.1).
        case rsaSHA1 = "rsa-sha1"

        var usesSHA1: Bool { self == .rsaSHA1 }
        var keyType: String { self == .ed25519SHA256 ? "ed25519" : "rsa" }
    }

    /// A reason the signature cannot be verified (a permanent error, RFC 6376 §6.1.1).
    struct Problem: Swift.Error, Equatable {
        let code: DKIMVerification.Code
        let reason: String
        init(_ code: DKIMVerification.Code, _ reason: String) {
            self.code = code
            self.reason = reason
        }
    }

    let tags: TagList
    let algorithm: Algorithm
    let signature: [UInt8]
    let bodyHash: [UInt8]
    let canonicalization: DKIMCanonicalization
    let domain: String
    let selector: String
    let signedHeaders: [String]
    let identity: String?
    let bodyLength: Int?
    let timestamp: Int64?
    let expiration: Int64?

    static let requiredTags = ["v", "a", "b", "bh", "d", "h", "s"]

    /// Which field the tags come from: a DKIM-Signature, or one of the ARC fields that reuse
    /// its tags (RFC 8617 §4.1.2 ARC-Message-Signature: no `v=`, `i=` the instance; §4.1.3
    /// ARC-Seal: no `bh=`, `h=` or `c=`, relaxed header canonicalization).
    enum Kind {
        case dkim, arcMessageSignature, arcSeal

        var requiredTags: [String] {
            switch self {
            case .dkim: DKIMSignature.requiredTags
            case .arcMessageSignature: ["a", "b", "bh", "d", "h", "s", "i"]
            case .arcSeal: ["a", "b", "d", "s", "i", "cv"]
            }
        }
    }

    /// Reads and checks the tags; `now` is compared with `t=` and `x=`.
    init(tags: TagList, now: Int64, kind: Kind = .dkim) throws(Problem) {
        self.tags = tags
        for name in kind.requiredTags where tags[name] == nil {
            throw Problem(.missingTag, "missing required tag \(name)= (RFC 6376 §3.5)")
        }
        if kind == .dkim {
            guard tags["v"] == "1" else { throw Problem(.unsupportedVersion, "unsupported version v=\(tags["v"] ?? "")") }
        }
        algorithm = try Self.algorithm(tags["a"] ?? "")
        guard let signature = Base64.decode(tags["b"] ?? ""), !signature.isEmpty else { throw Problem(.malformedTag, "b= is not valid base64") }
        if kind == .arcSeal {
            bodyHash = []
        } else {
            guard let bodyHash = Base64.decode(tags["bh"] ?? ""), !bodyHash.isEmpty else { throw Problem(.malformedTag, "bh= is not valid base64") }
            self.bodyHash = bodyHash
        }
        self.signature = signature
        let defaultCanonicalization = kind == .arcSeal ? "relaxed/relaxed" : "simple/simple"
        guard
            let canonicalization = DKIMCanonicalization(
                tag: TagList.withoutWhitespace(kind == .arcSeal ? defaultCanonicalization : tags["c"] ?? defaultCanonicalization))
        else {
            throw Problem(.unsupportedCanonicalization, "unknown canonicalization c=\(tags["c"] ?? "")")
        }
        self.canonicalization = canonicalization
        domain = TagList.withoutWhitespace(tags["d"] ?? "").lowercased()
        selector = TagList.withoutWhitespace(tags["s"] ?? "")
        // RFC 6376 §3.5 d=, s=: domain-name / selector are dot-separated sub-domains.
        guard Self.isDomainName(domain) else { throw Problem(.malformedTag, "d=\(domain) is not a valid domain name") }
        guard Self.isDomainName(selector) else { throw Problem(.malformedTag, "s=\(selector) is not a valid selector") }
        signedHeaders = TagList.lowercasedList(tags["h"] ?? "").prefix(DKIMLimits.maxSignedHeaders).filter { !$0.isEmpty }
        // RFC 6376 §5.4: the From header field MUST be signed.
        if kind == .dkim, !signedHeaders.contains("from") { throw Problem(.fromNotSigned, "h= does not include From (RFC 6376 §5.4)") }
        // RFC 8617 §4.1.2: an ARC-Message-Signature never signs ARC-Seal fields.
        if kind == .arcMessageSignature, signedHeaders.contains("arc-seal") {
            throw Problem(.malformedTag, "h= of an ARC-Message-Signature includes ARC-Seal (RFC 8617 §4.1.2)")
        }
        // In the ARC fields i= is the instance, not an identity.
        identity = kind == .dkim ? tags["i"].map { TagList.withoutWhitespace($0) } : nil
        if let identity { try Self.checkIdentity(identity, domain: domain) }
        bodyLength = try Self.number(tags, "l").map { value throws(Problem) in
            guard value <= Int64(Int.max) else { throw Problem(.malformedTag, "l= too large") }
            return Int(value)
        }
        if let methods = tags["q"] {
            let list = TagList.lowercasedList(methods)
            guard list.contains(where: { $0 == "dns/txt" || $0 == "dns" }) else {
                throw Problem(.unsupportedQueryMethod, "no supported query method in q=")
            }
        }
        timestamp = try Self.number(tags, "t")
        expiration = try Self.number(tags, "x")
        try checkTimes(now: now)
    }

    /// Labels of letters, digits, hyphens (RFC 5321 §4.1.2 sub-domain), underscores (used
    /// in selectors in practice) or UTF-8 (internationalized names); no empty label.
    static func isDomainName(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 255 else { return false }
        var labelLength = 0
        for b in name.utf8 {
            if b == UInt8(ascii: ".") {
                guard labelLength > 0 else { return false }
                labelLength = 0
                continue
            }
            guard b >= 0x80 || ASCII.isDigit(b) || ASCII.isLetter(b) || b == 0x2D || b == 0x5F
            else { return false }
            labelLength += 1
        }
        return labelLength > 0
    }

    private static func algorithm(_ value: String) throws(Problem) -> Algorithm {
        let name = TagList.withoutWhitespace(value).lowercased()
        if let algorithm = Algorithm(rawValue: name) { return algorithm }
        throw Problem(.unsupportedAlgorithm, "unsupported algorithm a=\(name)")
    }

    /// RFC 6376 §3.5 i=: the domain part must be d= or a subdomain of it.
    private static func checkIdentity(_ identity: String, domain: String) throws(Problem) {
        guard let at = identity.lastIndex(of: "@") else { throw Problem(.malformedTag, "i= has no @") }
        let identityDomain = identity[identity.index(after: at)...].lowercased()
        guard identityDomain == domain || identityDomain.hasSuffix("." + domain) else {
            throw Problem(.identityMismatch, "i= domain \(identityDomain) is not within d=\(domain) (RFC 6376 §3.5)")
        }
    }

    /// A decimal tag value (§3.5: at most 76 digits for l=, 12 for t= and x=; we take what fits).
    private static func number(_ tags: TagList, _ name: String) throws(Problem) -> Int64? {
        guard let text = tags[name].map({ TagList.withoutWhitespace($0) }) else { return nil }
        guard !text.isEmpty, text.utf8.allSatisfy(ASCII.isDigit), let value = Int64(text) else {
            throw Problem(.malformedTag, "\(name)= is not a number")
        }
        return value
    }

    private func checkTimes(now: Int64) throws(Problem) {
        if let timestamp, let expiration, expiration < timestamp {
            throw Problem(.invalidTimestamps, "x= is before t= (RFC 6376 §3.5)")
        }
        if let expiration, expiration < now { throw Problem(.expired, "signature expired (x=\(expiration))") }
        if let timestamp, timestamp > now + DKIMLimits.futureTimestampMarginSeconds {
            throw Problem(.futureTimestamp, "signature timestamp t=\(timestamp) is in the future")
        }
    }
}
