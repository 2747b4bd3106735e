import DKIM
import JSON
import MIME
import Mailbox
import Markup
public import Pipeline
import Trust

/// `reservoir verify`: one line per DKIM-Signature with its RFC 8601 result and reason, and
/// whether a passing signature vouches for the From domain.
public enum VerificationRenderer {
    /// One line per signature for people; the tags and reasons, read from the message, are
    /// escaped (``TerminalText``).
    public static func text(_ report: MessageReport) -> String {
        var out: TerminalText = ""
        if report.signatures.isEmpty {
            out += "dkim=none: the message has no DKIM-Signature field\n"
        }
        let policy = AuthenticationResults.policyRefusal(report.trust)
        for (index, s) in report.signatures.enumerated() {
            var line: TerminalText = "signature \(index + 1): dkim=\(s.result.rawValue) d=\(s.domain) s=\(s.selector) a=\(s.algorithm)"
            if let bits = s.keyBits { line += " key=\(bits) bits" }
            if let identity = s.identity { line += " i=\(identity)" }
            if let l = s.bodyLength { line += " l=\(l)" }
            if s.testing { line += " testing" }
            out += line + "\n"
            if !s.reason.isEmpty { out += "  \(s.reason)\n" }
            if let written = policyResult(s, policy) {
                out += "  policy: written dkim=\(written.result.rawValue) reason=\"\(written.reason.description)\": \(policy?.sentence ?? "")\n"
            }
        }
        let from = report.trust.fromDomain ?? "(no single From domain)"
        if let vouching = report.trust.vouchingDomain {
            out += "From \(from): vouched for by \(vouching)\n"
        } else {
            out += "From \(from): no valid aligned signature\n"
        }
        return out.text
    }

    public static func json(_ report: MessageReport, authenticationResults: AuthenticationResults) -> String {
        JSONBuild.object([
            ("file", report.origin.path.map(JSONValue.string)),
            ("fromDomain", report.trust.fromDomain.map(JSONValue.string)),
            ("vouchingDomain", report.trust.vouchingDomain.map(JSONValue.string)),
            ("signatures", .array(report.signatures.map { jsonValue($0, policy: AuthenticationResults.policyRefusal(report.trust)) })),
            ("authenticationResults", .string(authenticationResults.value)),
        ]).serialized()
    }

    /// What the filter writes for a signature that passed on a message the policy refuses as
    /// ambiguous (``AuthenticationResults/policyRefusal(_:)``); nil when it writes the
    /// signature's own result.
    static func policyResult(_ s: DKIMVerification, _ policy: TrustRefusal?) -> AuthenticationResults.MessageResult? {
        guard s.result == .pass, let policy else { return nil }
        return AuthenticationResults.MessageResult.policy(for: policy)
    }

    /// One signature: the cryptographic `result` and, when the filter writes another for it,
    /// `policy` `{"result": "policy", "reason": "multiple From fields", "refusal": "multiple-from"}`.
    static func jsonValue(_ s: DKIMVerification, policy: TrustRefusal? = nil) -> JSONValue {
        let written = policyResult(s, policy)
        return JSONBuild.object([
            ("result", .string(s.result.rawValue)),
            (
                "policy",
                written.map {
                    JSONBuild.object([
                        ("result", .string($0.result.rawValue)), ("reason", .string($0.reason.description)),
                        ("refusal", policy.map { .string($0.code.rawValue) }),
                    ])
                }
            ),
            ("code", s.code.map { .string($0.rawValue) }),
            ("reason", .string(s.reason)),
            ("domain", .string(s.domain)),
            ("selector", .string(s.selector)),
            ("algorithm", .string(s.algorithm)),
            ("identity", s.identity.map(JSONValue.string)),
            ("keyBits", s.keyBits.map { .number(Double($0)) }),
            ("bodyLength", s.bodyLength.map { .number(Double($0)) }),
            ("coversWholeBody", .bool(s.coversWholeBody)),
            ("testing", .bool(s.testing)),
            ("signedHeaders", .array(s.signedHeaders.map(JSONValue.string))),
        ])
    }
}
