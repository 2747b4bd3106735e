public import DNS
public import MIME

/// Verifies every DKIM-Signature field of a message (RFC 6376 §6), one result per field.
///
/// Never throws: a field that cannot be verified gets `permerror` or `temperror` with the
/// reason. The clock is injected so results are reproducible.
public final class DKIMVerifier {
    private let resolver: any TXTResolver
    let now: Int64
    private let keyCache: PublicKeyCache

    public init(resolver: any TXTResolver, now: Int64) {
        self.resolver = resolver
        self.now = now
        self.keyCache = PublicKeyCache()
    }

    private init(resolver: any TXTResolver, now: Int64, keyCache: PublicKeyCache) {
        self.resolver = resolver
        self.now = now
        self.keyCache = keyCache
    }

    /// This verifier with the clock at `now` (`x=` expiry, RFC 6376 §3.5), sharing its resolver
    /// and its parsed keys: for the next message of a program that runs for days, on the same
    /// thread.
    public func at(_ now: Int64) -> DKIMVerifier {
        now == self.now ? self : DKIMVerifier(resolver: resolver, now: now, keyCache: keyCache)
    }

    /// Every signature of `message`; the body is read from `body` (the message's own bytes
    /// unless the message was too large to hold and is verified from its file).
    public func verify(_ message: Message, body: DKIMBodySource = .message) -> [DKIMVerification] {
        let fields = message.header.fields
        var results: [DKIMVerification] = []
        var hashes = BodyHashes(message: message, source: body)
        for (index, field) in fields.enumerated() where field.hasName("DKIM-Signature") {
            if results.count >= DKIMLimits.maxSignatures {
                results.append(
                    DKIMVerification(result: .policy, code: .tooManySignatures, reason: "too many signatures (more than \(DKIMLimits.maxSignatures))")
                )
                continue
            }
            results.append(verify(message, fieldIndex: index, hashes: &hashes))
        }
        return results
    }

    /// One signature: read the tags, fetch the key, compare the body hash, check the signature.
    func verify(_ message: Message, fieldIndex: Int, hashes: inout BodyHashes, kind: DKIMSignature.Kind = .dkim) -> DKIMVerification {
        let field = message.header.fields[fieldIndex]
        let tags: TagList
        do {
            tags = try TagList(message.bytes, in: field.valueRange)
        } catch {
            return DKIMVerification(result: .permerror, code: .malformedSignature, reason: "malformed DKIM-Signature: \(error)")
        }
        var report = Self.report(from: tags)
        let signature: DKIMSignature
        do {
            signature = try DKIMSignature(tags: tags, now: now, kind: kind)
        } catch {
            report.result = .permerror
            report.code = error.code
            report.reason = error.reason
            return report
        }
        report.bodyLength = signature.bodyLength
        report.canonicalization = signature.canonicalization
        report.timestamp = signature.timestamp
        guard let key = usableKey(for: signature, reporting: &report) else { return report }
        guard let body = hashes.hash(for: signature) else {
            report.result = .temperror
            report.code = .bodyUnreadable
            report.reason = "the message body could not be read back from its file"
            return report
        }
        report.coversWholeBody = body.coversWholeBody
        if let limit = signature.bodyLength, body.canonicalLength < limit {
            report.result = .permerror
            report.code = .bodyLengthExceeded
            report.reason = "l=\(limit) is longer than the canonicalized body (\(body.canonicalLength) bytes)"
            return report
        }
        let sha1Note = signature.algorithm.usesSHA1 ? "; rsa-sha1 is never valid anyway (RFC 8301 §3.1)" : ""
        guard body.hash == signature.bodyHash else {
            report.result = .fail
            report.code = .bodyHashMismatch
            report.reason = "body hash did not verify (the body was changed)" + sha1Note
            return report
        }
        let signed = SignedHeaderData.build(message: message, fieldIndex: fieldIndex, signature: signature)
        let data = signature.algorithm == .ed25519SHA256 ? SHA256Digest.hash(signed) : signed
        guard key.publicKey.verify(signature: signature.signature, data: data, sha1: signature.algorithm.usesSHA1) else {
            report.result = .fail
            report.code = .signatureMismatch
            report.reason = "signature did not verify (a signed header field was changed, or the wrong key)" + sha1Note
            return report
        }
        if signature.algorithm.usesSHA1 {
            // RFC 8301 §3.1: verifiers MUST NOT consider rsa-sha1 signatures valid.
            report.result = .permerror
            report.code = .sha1Refused
            report.reason = "the rsa-sha1 signature verifies, but SHA-1 is no longer allowed (RFC 8301 §3.1)"
            return report
        }
        report.result = .pass
        report.code = key.testing ? .testingKey : nil
        report.reason = key.testing ? "valid signature; key in testing mode (t=y)" : ""
        return report
    }

    /// What can be reported before the signature is checked, even if it is broken.
    static func report(from tags: TagList) -> DKIMVerification {
        DKIMVerification(
            result: .permerror, reason: "",
            domain: TagList.withoutWhitespace(tags["d"] ?? "").lowercased(),
            selector: TagList.withoutWhitespace(tags["s"] ?? ""),
            algorithm: TagList.withoutWhitespace(tags["a"] ?? "").lowercased(),
            identity: tags["i"].map { TagList.withoutWhitespace($0) },
            signedHeaders: TagList.lowercasedList(tags["h"] ?? ""))
    }

    struct KeyFailure: Swift.Error {
        let result: DKIMResult
        let code: DKIMVerification.Code
        let reason: String
    }

    /// RFC 6376 §6.1.2: query `selector._domainkey.domain`; NXDOMAIN is PERMFAIL (no key),
    /// a failed lookup is TEMPFAIL. With several TXT records the first that reads as a key
    /// record is used (§3.6.2.2 leaves the choice open; parseable-first tolerates a stray
    /// SPF-like record published beside the key).
    /// The signature's key, its size and testing flag put in `report`; nil, with the result,
    /// code and reason put in `report`, when there is none or it cannot be used.
    func usableKey(for signature: DKIMSignature, reporting report: inout DKIMVerification) -> VerificationKey? {
        switch fetchKey(for: signature) {
        case .failure(let failure):
            report.result = failure.result
            report.code = failure.code
            report.reason = failure.reason
            return nil
        case .success(let key):
            report.testing = key.testing
            report.keyBits = key.publicKey.bits
            if let problem = key.problem {
                report.result = .permerror
                report.code = problem.code
                report.reason = problem.reason
                return nil
            }
            return key
        }
    }

    func fetchKey(for signature: DKIMSignature) -> Result<VerificationKey, KeyFailure> {
        let name = signature.selector + "._domainkey." + signature.domain
        let records: [String]
        switch resolver.lookupTXT(name) {
        case .notFound:
            return .failure(KeyFailure(result: .permerror, code: .keyNotFound, reason: "no key for signature: \(name) does not exist"))
        case .temporaryFailure(let why):
            return .failure(KeyFailure(result: .temperror, code: .keyLookupFailed, reason: "key lookup for \(name) failed: \(why)"))
        case .found(let found):
            records = found
        }
        var firstProblem = "no key record at \(name)"
        for (position, text) in records.enumerated() {
            do {
                let record = try DKIMKeyRecord(text)
                return VerificationKey.make(record: record, signature: signature, cache: keyCache)
            } catch {
                if position == 0 { firstProblem = error.description }
            }
        }
        return .failure(KeyFailure(result: .permerror, code: .malformedKeyRecord, reason: firstProblem))
    }
}

/// Where the verifier reads the body it hashes.
public enum DKIMBodySource: Sendable {
    /// The message's own bytes.
    case message
    /// A file holding the whole message, its body at `range`: a message too large to hold in
    /// memory is analysed from a copy without its attachments, and its body hashed from here.
    case file(descriptor: Int32, range: Range<Int>)
}

/// Body hashes of one message, each computed once: signatures with the same body
/// canonicalization, hash algorithm and `l=` share one pass over the body (a message signed
/// with Ed25519 and RSA side by side, RFC 8463, usually has two such signatures).
struct BodyHashes {
    private struct Key: Hashable {
        let relaxed: Bool
        let sha1: Bool
        let limit: Int?
    }

    let message: Message
    let source: DKIMBodySource
    private var computed: [Key: BodyHashComputation] = [:]

    init(message: Message, source: DKIMBodySource) {
        self.message = message
        self.source = source
    }

    /// Nil when the body file cannot be read.
    mutating func hash(for signature: DKIMSignature) -> BodyHashComputation? {
        let key = Key(relaxed: signature.canonicalization.relaxedBody, sha1: signature.algorithm.usesSHA1, limit: signature.bodyLength)
        if let known = computed[key] { return known }
        let result: BodyHashComputation?
        switch source {
        case .message:
            result = BodyHashComputation(bytes: message.bytes, range: message.bodyRange, relaxed: key.relaxed, limit: key.limit, sha1: key.sha1)
        case .file(let descriptor, let range):
            result = BodyHashComputation(descriptor: descriptor, range: range, relaxed: key.relaxed, limit: key.limit, sha1: key.sha1)
        }
        if let result { computed[key] = result }
        return result
    }
}
