/// RFC 8601 §2.7.1 `dkim=` result names.
public enum DKIMResult: String, Sendable {
    case pass, fail, neutral, temperror, permerror, policy, none
}

/// The verdict on one DKIM-Signature header field, with what a person needs to judge it.
public struct DKIMVerification: Sendable {
    /// Why a signature did not pass (or passed with a caveat), as a stable code. The words for
    /// people are in ``reason``; output meant for programs (the `reason=` of
    /// Authentication-Results) is chosen by code, so it never carries text from the message.
    public enum Code: String, Sendable, CaseIterable {
        /// More than ``DKIMLimits/maxSignatures`` signatures: this one was not verified.
        case tooManySignatures = "too-many-signatures"
        /// The tag list cannot be read (RFC 6376 §3.2).
        case malformedSignature = "malformed-signature"
        /// A required tag is absent (RFC 6376 §3.5).
        case missingTag = "missing-tag"
        /// A tag value that does not read (base64, number, domain, selector, `i=`).
        case malformedTag = "malformed-tag"
        /// `v=` is not 1.
        case unsupportedVersion = "unsupported-version"
        /// `a=` names an algorithm not verified here.
        case unsupportedAlgorithm = "unsupported-algorithm"
        /// `c=` names an unknown canonicalization.
        case unsupportedCanonicalization = "unsupported-canonicalization"
        /// `q=` lists no supported query method.
        case unsupportedQueryMethod = "unsupported-query-method"
        /// `h=` does not include From (RFC 6376 §5.4).
        case fromNotSigned = "from-not-signed"
        /// The `i=` domain is not `d=` or below it (RFC 6376 §3.5), or not `d=` itself under a key with `t=s`.
        case identityMismatch = "identity-mismatch"
        /// `x=` is before `t=`.
        case invalidTimestamps = "invalid-timestamps"
        /// `x=` has passed.
        case expired
        /// `t=` lies in the future beyond ``DKIMLimits/futureTimestampMarginSeconds``.
        case futureTimestamp = "future-timestamp"
        /// No key record at the selector (NXDOMAIN, RFC 6376 §6.1.2).
        case keyNotFound = "key-not-found"
        /// The key lookup failed for now (RFC 6376 §6.1.2 TEMPFAIL).
        case keyLookupFailed = "key-lookup-failed"
        /// No TXT record there reads as a key record.
        case malformedKeyRecord = "malformed-key-record"
        /// `p=` is empty (RFC 6376 §3.6.1).
        case keyRevoked = "key-revoked"
        /// `k=` does not match `a=`.
        case keyTypeMismatch = "key-type-mismatch"
        /// The key's `h=` does not allow the signature's hash.
        case keyHashNotAllowed = "key-hash-not-allowed"
        /// The key's `s=` does not include email.
        case keyNotForEmail = "key-not-for-email"
        /// `p=` is not a usable public key.
        case malformedKey = "malformed-key"
        /// RSA key under ``DKIMLimits/minimumRSAKeyBits`` (RFC 8301 §3.2).
        case keyTooShort = "key-too-short"
        /// RSA key over ``DKIMLimits/maximumRSAKeyBits``.
        case keyTooLong = "key-too-long"
        /// The body could not be read back from the spool file.
        case bodyUnreadable = "body-unreadable"
        /// `l=` is longer than the canonicalized body.
        case bodyLengthExceeded = "body-length-exceeded"
        /// The body hash differs: the body was changed.
        case bodyHashMismatch = "body-hash-mismatch"
        /// The signature does not verify: a signed header field was changed, or another key.
        case signatureMismatch = "signature-mismatch"
        /// An rsa-sha1 signature, never valid (RFC 8301 §3.1).
        case sha1Refused = "sha1-refused"
        /// A pass under a key with `t=y` (RFC 6376 §3.6.1).
        case testingKey = "testing-key"
    }

    public var result: DKIMResult
    /// Why, as a code; nil for a plain pass.
    public var code: Code?
    /// Why, in words; empty for a plain pass.
    public var reason: String
    /// The signing domain (`d=`), lowercased; empty when the field had none.
    public var domain: String
    public var selector: String
    /// The `a=` tag as written (`rsa-sha256`, `ed25519-sha256`, …).
    public var algorithm: String
    /// The `i=` tag, when present.
    public var identity: String?
    /// The key record says `t=y`: the domain is testing DKIM (RFC 6376 §3.6.1).
    public var testing: Bool
    /// The `l=` body length limit, when present.
    public var bodyLength: Int?
    /// False when `l=` leaves part of the body unsigned (RFC 6376 §8.2).
    public var coversWholeBody: Bool
    /// The `h=` list, lowercased, in signature order.
    public var signedHeaders: [String]
    /// Size of the public key in bits, once the key was read.
    public var keyBits: Int?
    /// The `c=` tag, once the signature was read: how the signed view reads header and body.
    public var canonicalization: DKIMCanonicalization?
    /// The `t=` tag (Unix seconds), once the signature was read: when the signer signed.
    public var timestamp: Int64?

    public init(
        result: DKIMResult, code: Code? = nil, reason: String, domain: String = "", selector: String = "", algorithm: String = "",
        identity: String? = nil, testing: Bool = false, bodyLength: Int? = nil, coversWholeBody: Bool = true,
        signedHeaders: [String] = [], keyBits: Int? = nil, canonicalization: DKIMCanonicalization? = nil,
        timestamp: Int64? = nil
    ) {
        self.result = result
        self.code = code
        self.reason = reason
        self.domain = domain
        self.selector = selector
        self.algorithm = algorithm
        self.identity = identity
        self.testing = testing
        self.bodyLength = bodyLength
        self.coversWholeBody = coversWholeBody
        self.signedHeaders = signedHeaders
        self.keyBits = keyBits
        self.canonicalization = canonicalization
        self.timestamp = timestamp
    }
}

/// The limits of the DKIM stage.
public enum DKIMLimits {
    /// Signatures verified per message; later ones get `policy` ("too many signatures"), so a
    /// message cannot make the verifier fetch keys and hash without end.
    public static let maxSignatures = 16
    /// RSA keys shorter than this never pass (RFC 8301 §3.2).
    public static let minimumRSAKeyBits = 1024
    /// RSA keys longer than this are refused as a denial-of-service guard (RFC 8301 §3.2
    /// requires verifiers to handle up to 4096).
    public static let maximumRSAKeyBits = 8192
    /// How far `t=` may lie in the future (clock skew) before the signature is refused
    /// (RFC 6376 §3.5: verifiers MAY ignore signatures with a future timestamp).
    public static let futureTimestampMarginSeconds: Int64 = 15 * 60
    /// Most entries read from an `h=` list.
    public static let maxSignedHeaders = 256
    /// Bytes handed to the digest at once while streaming the body.
    static let bodyChunkSize = 64 * 1024
}
