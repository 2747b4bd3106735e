import Glibc
public import DKIM

/// An RFC 8601 `Authentication-Results` header field for the DKIM results of one message.
///
/// Every value taken from the message (domains, selectors, reasons) is reduced to printable
/// ASCII and quoted when it is not a token, so a hostile signature cannot inject a line break
/// or a second result into the field (RFC 8601 §2.2, RFC 2045 §5.1 token/quoted-string).
public struct AuthenticationResults: Sendable {
    /// Longest reason copied into the field.
    public static let maxReasonLength = 120

    public let authservID: String
    public let signatures: [DKIMVerification]

    public init(authservID: String, signatures: [DKIMVerification]) {
        self.authservID = Self.sanitized(authservID)
        self.signatures = signatures
    }

    public init(report: MessageReport, authservID: String) {
        self.init(authservID: authservID, signatures: report.signatures)
    }

    /// The host name, as RFC 8601 §2.5 suggests for the authserv-id.
    public static func defaultAuthservID() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? "localhost" : name
    }

    /// The field value (after `Authentication-Results:`), unfolded.
    public var value: String {
        guard !signatures.isEmpty else { return "\(authservID); dkim=none" }
        let results = signatures.map { signature -> String in
            var parts = ["dkim=\(signature.result.rawValue)"]
            if signature.result != .pass, !signature.reason.isEmpty {
                parts.append("reason=\(Self.quotedString(String(signature.reason.prefix(Self.maxReasonLength))))")
            }
            parts.append("header.d=\(Self.pvalue(signature.domain))")
            parts.append("header.s=\(Self.pvalue(signature.selector))")
            if let identity = signature.identity {
                parts.append("header.i=\(Self.pvalue(identity))")
            }
            return parts.joined(separator: " ")
        }
        return "\(authservID); " + results.joined(separator: "; ")
    }

    /// The whole field, folded before each result, ending with the given line break.
    public func field(lineEnding: String = "\r\n") -> String {
        "Authentication-Results: " + value.replacingSemicolonSpaces(with: ";" + lineEnding + "\t") + lineEnding
    }

    /// RFC 2045 token characters: printable ASCII except SPACE and tspecials.
    static func isToken(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { b in
            b > 0x20 && b < 0x7F && !"()<>@,;:\\\"/[]?=".utf8.contains(b)
        }
    }

    /// A domain or local-part@domain passes as is when it is made of token characters and
    /// `@`; anything else is quoted.
    static func pvalue(_ text: String) -> String {
        let clean = sanitized(text)
        let parts = clean.split(separator: "@", omittingEmptySubsequences: false)
        if parts.count <= 2, parts.allSatisfy({ $0.isEmpty || isToken(String($0)) }), !clean.isEmpty {
            return clean
        }
        return quotedString(clean)
    }

    static func quotedString(_ text: String) -> String {
        var out = "\""
        for scalar in sanitized(text).unicodeScalars {
            if scalar == "\"" || scalar == "\\" { out += "\\" }
            out.unicodeScalars.append(scalar)
        }
        return out + "\""
    }

    /// Printable ASCII only: line breaks and controls become spaces, other characters `?`.
    static func sanitized(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            if scalar.value >= 0x20 && scalar.value < 0x7F {
                out.unicodeScalars.append(scalar)
            } else if scalar.value < 0x20 || scalar.value == 0x7F {
                out += " "
            } else {
                out += "?"
            }
        }
        return out
    }
}

extension String {
    fileprivate func replacingSemicolonSpaces(with replacement: String) -> String {
        var out = ""
        var inQuotes = false
        var escaped = false
        var pendingSpace = false
        for ch in self {
            if pendingSpace {
                pendingSpace = false
                if ch == " " { out += replacement; continue }
                out += ";"
            }
            if escaped { escaped = false; out.append(ch); continue }
            if ch == "\\" && inQuotes { escaped = true; out.append(ch); continue }
            if ch == "\"" { inQuotes.toggle() }
            if ch == ";" && !inQuotes { pendingSpace = true; continue }
            out.append(ch)
        }
        if pendingSpace { out += ";" }
        return out
    }
}
