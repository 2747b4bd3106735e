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
        for (index, s) in report.signatures.enumerated() {
            var line: TerminalText = "signature \(index + 1): dkim=\(s.result.rawValue) d=\(s.domain) s=\(s.selector) a=\(s.algorithm)"
            if let bits = s.keyBits { line += " key=\(bits) bits" }
            if let identity = s.identity { line += " i=\(identity)" }
            if let l = s.bodyLength { line += " l=\(l)" }
            if s.testing { line += " testing" }
            out += line + "\n"
            if !s.reason.isEmpty { out += "  \(s.reason)\n" }
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
            ("signatures", .array(report.signatures.map(jsonValue))),
            ("authenticationResults", .string(authenticationResults.value)),
        ]).serialized()
    }

    static func jsonValue(_ s: DKIMVerification) -> JSONValue {
        JSONBuild.object([
            ("result", .string(s.result.rawValue)),
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
