public import DKIM
import Glibc
public import Pipeline
public import Trust

/// The RFC 8601 `Authentication-Results` field Reservoir writes for the DKIM results of one
/// message.
///
/// Nothing taken from the message reaches the field but the signing domain, selector and
/// identity, each reduced to printable ASCII and quoted when it is not a token, so a hostile
/// signature cannot inject a line break or a second result (RFC 8601 §2.2). `reason=` is a
/// fixed phrase per ``DKIMVerification/Code`` (``reasonPhrase(_:)``), never message text.
public struct AuthenticationResults: Sendable {
    /// A verdict on the whole message that replaces the result of every signature (and stands
    /// alone when there is none), with its own fixed reason: a time budget run out, or a
    /// policy that refuses the message whatever its signatures say.
    public struct MessageResult: Sendable {
        public var result: DKIMResult
        /// A fixed phrase: a literal, so it can never hold text from the message.
        public var reason: StaticString

        public init(result: DKIMResult, reason: StaticString) {
            self.result = result
            self.reason = reason
        }

        /// What the filter writes when its time budget runs out before the analysis ends.
        public static let timeBudgetExceeded = MessageResult(result: .temperror, reason: "time budget exceeded")
        /// A valid signature of a message with several From fields or addresses: which author
        /// it vouches for is ambiguous (RFC 8601 §2.7.1 `policy`; DMARC rejects such mail,
        /// RFC 7489 §6.6.1).
        public static let multipleFrom = MessageResult(result: .policy, reason: "multiple From fields")
        /// A valid signature of a message with more header fields than are read: a second From
        /// could stand past the limit.
        public static let headerLimit = MessageResult(result: .policy, reason: "too many header fields")

        /// The `policy` result a refusal makes of a valid signature; nil for a refusal that does not.
        public static func policy(for refusal: TrustRefusal) -> MessageResult? {
            switch refusal {
            case .multipleFrom: .multipleFrom
            case .headerLimit: .headerLimit
            default: nil
            }
        }
    }

    /// The authserv-id as written: printable ASCII (``AuthenticationResultsPayload/printable(_:)``).
    public let authservID: String
    public let signatures: [DKIMVerification]
    public let messageResult: MessageResult?
    /// A policy that replaces the result of each signature that passed (and only those): the
    /// signature holds, but the message it is on cannot be vouched for.
    public let passPolicy: MessageResult?

    public init(
        authservID: String, signatures: [DKIMVerification], messageResult: MessageResult? = nil,
        passPolicy: MessageResult? = nil
    ) {
        self.authservID = Self.writtenID(authservID)
        self.signatures = signatures
        self.messageResult = messageResult
        self.passPolicy = passPolicy
    }

    public init(report: MessageReport, authservID: String, messageResult: MessageResult? = nil) {
        self.init(
            authservID: authservID, signatures: report.signatures, messageResult: messageResult,
            passPolicy: Self.passPolicy(report.trust))
    }

    /// The result a valid signature is written with instead of `pass` (``policyRefusal(_:)``).
    public static func passPolicy(_ trust: TrustDecision) -> MessageResult? {
        policyRefusal(trust).flatMap(MessageResult.policy(for:))
    }

    /// The refusal of the trust decision that makes a valid signature `policy`: one that leaves
    /// the author ambiguous (several From, fields past the header limit). `reservoir verify`
    /// reports it beside each passing signature, as the filter writes it.
    public static func policyRefusal(_ trust: TrustDecision) -> TrustRefusal? {
        trust.refusals.first { MessageResult.policy(for: $0) != nil }
    }

    /// The authserv-id as it goes into the field, and so as the filter compares incoming
    /// fields with it.
    public static func writtenID(_ authservID: String) -> String {
        AuthenticationResultsPayload.printable(authservID)
    }

    /// The host name, as RFC 8601 §2.5 suggests for the authserv-id.
    public static func defaultAuthservID() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? "localhost" : name
    }

    /// The results as a payload: one `dkim=` result per signature with `header.d`, `header.s`
    /// and `header.i`, and `reason=` for a result other than pass; `dkim=none` without a
    /// signature (RFC 8601 §2.7.1).
    public var payload: AuthenticationResultsPayload {
        var results = signatures.map { signature -> AuthenticationResultsPayload.ResultInfo in
            var info = AuthenticationResultsPayload.ResultInfo(method: "dkim", result: signature.result.rawValue)
            if let messageResult {
                info.result = messageResult.result.rawValue
                info.reason = messageResult.reason.description
            } else if signature.result == .pass, let passPolicy {
                info.result = passPolicy.result.rawValue
                info.reason = passPolicy.reason.description
            } else if signature.result != .pass, let code = signature.code {
                info.reason = Self.reasonPhrase(code)
            }
            let printable = AuthenticationResultsPayload.printable
            info.properties = [
                AuthenticationResultsPayload.Property(type: "header", name: "d", value: printable(signature.domain)),
                AuthenticationResultsPayload.Property(type: "header", name: "s", value: printable(signature.selector)),
            ]
            if let identity = signature.identity {
                info.properties.append(AuthenticationResultsPayload.Property(type: "header", name: "i", value: printable(identity)))
            }
            return info
        }
        if results.isEmpty {
            results = [
                AuthenticationResultsPayload.ResultInfo(
                    method: "dkim", result: messageResult?.result.rawValue ?? DKIMResult.none.rawValue,
                    reason: messageResult?.reason.description)
            ]
        }
        return AuthenticationResultsPayload(authservID: authservID, results: results)
    }

    /// The field value (after `Authentication-Results:`), unfolded.
    public var value: String { payload.formatted }

    /// The whole field, folded before each result, ending with the given line break.
    public func field(lineEnding: String = "\r\n") -> String {
        "Authentication-Results: " + value.replacingSemicolonSpaces(with: ";" + lineEnding + "\t") + lineEnding
    }

    /// The `reason=` of a result: a fixed phrase per code.
    public static func reasonPhrase(_ code: DKIMVerification.Code) -> String {
        switch code {
        case .tooManySignatures: "too many signatures"
        case .malformedSignature: "malformed signature"
        case .missingTag: "required tag missing"
        case .malformedTag: "malformed tag value"
        case .unsupportedVersion: "unsupported version"
        case .unsupportedAlgorithm: "unsupported algorithm"
        case .unsupportedCanonicalization: "unsupported canonicalization"
        case .unsupportedQueryMethod: "unsupported query method"
        case .fromNotSigned: "From not signed"
        case .identityMismatch: "identity outside the signing domain"
        case .invalidTimestamps: "expiration before timestamp"
        case .expired: "signature expired"
        case .futureTimestamp: "timestamp in the future"
        case .keyNotFound: "no key for signature"
        case .keyLookupFailed: "key lookup failed"
        case .malformedKeyRecord: "malformed key record"
        case .keyRevoked: "key revoked"
        case .keyTypeMismatch: "key type does not match algorithm"
        case .keyHashNotAllowed: "hash not allowed by key"
        case .keyNotForEmail: "key not for email"
        case .malformedKey: "unusable key"
        case .keyTooShort: "key too short"
        case .keyTooLong: "key too long"
        case .bodyUnreadable: "body could not be read"
        case .bodyLengthExceeded: "body length limit beyond body"
        case .bodyHashMismatch: "body hash did not verify"
        case .signatureMismatch: "signature did not verify"
        case .sha1Refused: "rsa-sha1 not accepted"
        case .testingKey: "key in testing mode"
        }
    }
}

extension String {
    /// `; ` outside quoted-strings replaced, for folding before each result.
    fileprivate func replacingSemicolonSpaces(with replacement: String) -> String {
        var out = ""
        var inQuotes = false
        var escaped = false
        var pendingSpace = false
        for ch in self {
            if pendingSpace {
                pendingSpace = false
                if ch == " " {
                    out += replacement
                    continue
                }
                out += ";"
            }
            if escaped {
                escaped = false
                out.append(ch)
                continue
            }
            if ch == "\\" && inQuotes {
                escaped = true
                out.append(ch)
                continue
            }
            if ch == "\"" { inQuotes.toggle() }
            if ch == ";" && !inQuotes {
                pendingSpace = true
                continue
            }
            out.append(ch)
        }
        if pendingSpace { out += ";" }
        return out
    }
}
