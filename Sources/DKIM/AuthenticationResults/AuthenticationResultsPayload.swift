import MIME
import ReservoirBase

/// The value of one `Authentication-Results` field (RFC 8601 §2.2 `authres-payload`): the
/// authserv-id of the server that wrote it and the results it found.
///
/// ``parse(_:)`` reads a field value as it stands in a message (folded, with comments);
/// ``formatted`` writes one that ``parse(_:)`` reads back to the same payload.
public struct AuthenticationResultsPayload: Sendable, Equatable {
    /// The authserv-id, unquoted. RFC 8601 §2.5: compared case-insensitively.
    public var authservID: String
    /// The version after the authserv-id (`mx.example 1;`); RFC 8601 §2.2 defines only 1.
    public var version: Int?
    /// The results in field order; empty for `none` (RFC 8601 §2.2 no-result).
    public var results: [ResultInfo]

    public init(authservID: String, version: Int? = nil, results: [ResultInfo]) {
        self.authservID = authservID
        self.version = version
        self.results = results
    }

    /// One `resinfo`: `method[/version]=result reason=... ptype.property=pvalue ...`.
    public struct ResultInfo: Sendable, Equatable {
        /// The method keyword, lowercased (`dkim`, `spf`, …).
        public var method: String
        public var methodVersion: Int?
        /// The result keyword, lowercased (`pass`, `fail`, …; RFC 8601 §2.7).
        public var result: String
        /// The `reason=` value, unquoted.
        public var reason: String?
        public var properties: [Property]

        public init(method: String, methodVersion: Int? = nil, result: String, reason: String? = nil, properties: [Property] = []) {
            self.method = method
            self.methodVersion = methodVersion
            self.result = result
            self.reason = reason
            self.properties = properties
        }
    }

    /// One `propspec`: `ptype.property=pvalue` (`header.d=example.com`).
    public struct Property: Sendable, Equatable {
        /// `smtp`, `header`, `body`, `policy`, lowercased.
        public var type: String
        /// The property keyword, lowercased.
        public var name: String
        /// The value, unquoted.
        public var value: String

        public init(type: String, name: String, value: String) {
            self.type = type
            self.name = name
            self.value = value
        }
    }

    /// The payload as a field value, unfolded: the authserv-id and every value quoted unless
    /// it is a token (an authserv-id or pvalue may also hold `@`), keywords as they are.
    /// Text is reduced to printable ASCII first (``printable(_:)``), so a value can never
    /// carry a line break or a second result.
    public var formatted: String {
        var out = Self.value(authservID, allowAt: false)
        if let version { out += " " + String(version) }
        guard !results.isEmpty else { return out + "; none" }
        for info in results {
            out += "; " + Self.keyword(info.method)
            if let version = info.methodVersion { out += "/" + String(version) }
            out += "=" + Self.keyword(info.result)
            if let reason = info.reason { out += " reason=" + Self.quoted(reason) }
            for property in info.properties {
                out += " " + Self.keyword(property.type) + "." + Self.keyword(property.name) + "=" + Self.value(property.value, allowAt: true)
            }
        }
        return out
    }

    /// A token as it stands; anything else as a quoted-string. With `allowAt`, `@` counts as a
    /// token character too (RFC 8601 §2.2 pvalue: `[ [ local-part ] "@" ] domain-name`).
    static func value(_ text: String, allowAt: Bool) -> String {
        let clean = printable(text)
        let bare = !clean.isEmpty && clean.utf8.allSatisfy { AuthenticationResultsSyntax.isTokenByte($0) || (allowAt && $0 == UInt8(ascii: "@")) }
        return bare ? clean : quoted(clean)
    }

    /// RFC 5322 §3.2.4 quoted-string, with `"` and `\` as quoted-pairs.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in printable(text).unicodeScalars {
            if scalar == "\"" || scalar == "\\" { out += "\\" }
            out.unicodeScalars.append(scalar)
        }
        return out + "\""
    }

    /// A keyword (RFC 5321 Ldh-str), lowercased; other characters are left out, and `x` stands
    /// for a keyword with none left, so the field stays well formed.
    static func keyword(_ text: String) -> String {
        let kept = text.utf8.filter(AuthenticationResultsSyntax.isKeywordByte).map(ASCII.lowercased)
        return kept.isEmpty ? "x" : String(decoding: kept, as: UTF8.self)
    }

    /// Printable ASCII only: line breaks and other controls become spaces, other characters `?`.
    public static func printable(_ text: String) -> String {
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

/// Character classes of RFC 8601 §2.2.
package enum AuthenticationResultsSyntax {
    /// RFC 2045 §5.1 token: any US-ASCII character except SPACE, controls and tspecials
    /// (`()<>@,;:\"/[]?=`).
    @inline(__always)
    static func isTokenByte(_ b: UInt8) -> Bool {
        guard b > 0x20, b < 0x7F else { return false }
        switch b {
        case UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "@"),
            UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: ":"), UInt8(ascii: "\\"), UInt8(ascii: "\""),
            UInt8(ascii: "/"), UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "?"), UInt8(ascii: "="):
            return false
        default:
            return true
        }
    }

    /// RFC 5321 Ldh-str: letters, digits, hyphen.
    @inline(__always)
    static func isKeywordByte(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || ((b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A) || b == UInt8(ascii: "-")
    }

    /// White space, including the CR and LF of folding (RFC 5322 §3.2.2 FWS).
    @inline(__always)
    static func isWhitespace(_ b: UInt8) -> Bool {
        b == 0x20 || b == 0x09 || b == 0x0D || b == 0x0A
    }
}
