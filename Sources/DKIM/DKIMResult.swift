/// RFC 8601 §2.7.1 `dkim=` result names.
public enum DKIMResult: String, Sendable {
    case pass, fail, neutral, temperror, permerror, policy, none
}

/// The verdict on one DKIM-Signature header field, with what a person needs to judge it.
public struct DKIMVerification: Sendable {
    public var result: DKIMResult
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

    public init(result: DKIMResult, reason: String, domain: String = "", selector: String = "", algorithm: String = "",
                identity: String? = nil, testing: Bool = false, bodyLength: Int? = nil, coversWholeBody: Bool = true,
                signedHeaders: [String] = [], keyBits: Int? = nil, canonicalization: DKIMCanonicalization? = nil,
                timestamp: Int64? = nil) {
        self.result = result
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
