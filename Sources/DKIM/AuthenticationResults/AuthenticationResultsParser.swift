import MIME
import ReservoirBase

/// Why a field value is not an RFC 8601 `authres-payload`: a code and the byte offset where
/// reading stopped. Equal by code.
public struct AuthenticationResultsParseError: Error, Sendable, Equatable {
    public enum Code: String, Sendable {
        /// Longer than ``AuthenticationResultsParser/maxValueBytes``.
        case tooLong = "too-long"
        /// No token or quoted-string where the authserv-id belongs.
        case missingAuthservID = "missing-authserv-id"
        /// A version that is not a number of at most ``AuthenticationResultsParser/maxVersionDigits`` digits.
        case malformedVersion = "malformed-version"
        /// Something other than `;` where a result must begin.
        case expectedSemicolon = "expected-semicolon"
        /// No result after the authserv-id (RFC 8601 §2.2 asks for `none` then).
        case missingResult = "missing-result"
        /// A `method=result` that does not read.
        case malformedMethod = "malformed-method"
        /// A `reason=` or `ptype.property=value` that does not read.
        case malformedProperty = "malformed-property"
        /// A comment without its `)`, or nested deeper than ``AuthenticationResultsParser/maxCommentDepth``.
        case malformedComment = "malformed-comment"
        /// A quoted-string without its closing quote.
        case unterminatedQuotedString = "unterminated-quoted-string"
        /// More than ``AuthenticationResultsParser/maxResults`` results.
        case tooManyResults = "too-many-results"
        /// More than ``AuthenticationResultsParser/maxProperties`` properties in one result.
        case tooManyProperties = "too-many-properties"
    }

    public let code: Code
    /// Offset in the value where reading stopped.
    public let offset: Int

    public init(_ code: Code, at offset: Int) {
        self.code = code
        self.offset = offset
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
}

extension AuthenticationResultsPayload {
    /// Reads a field value (the bytes after `Authentication-Results:`, folding included).
    /// Never traps; input beyond the limits of ``AuthenticationResultsParser`` is an error.
    public static func parse(_ value: some Collection<UInt8>) -> Result<AuthenticationResultsPayload, AuthenticationResultsParseError> {
        var parser = AuthenticationResultsParser(Array(value))
        do {
            return .success(try parser.payload())
        } catch {
            return .failure(error)
        }
    }

    public static func parse(_ value: String) -> Result<AuthenticationResultsPayload, AuthenticationResultsParseError> {
        parse(Array(value.utf8))
    }

    /// Whether a downstream reader could take this field value for a result of `authservID`
    /// (RFC 8601 §5: such fields arriving with a message are forged and must be removed).
    ///
    /// A valid payload claims the id it names, compared case-insensitively (RFC 8601 §2.5) and
    /// without white space around it (a quoted `"mx.example "` is ours too). A value that is not
    /// one claims it when its first token or quoted-string is that id, or when the value, with
    /// comments, white space, quotes and backslashes left out, starts with it: a lenient reader
    /// comparing prefixes would take it for ours.
    ///
    /// A reader may decode the value before it compares: Python's `email` (`policy.default`)
    /// decodes RFC 2047 encoded words anywhere in it, inside a token or a quoted-string too,
    /// in any charset, and a script may lowercase with Unicode rules. So the value claims the
    /// id too when, with its encoded words decoded (``HeaderText/decode(_:at:)``, up to
    /// ``maxDecodingRounds`` times, for a reader that decodes what it decoded) and the letters
    /// whose Unicode lowercase or case fold is ASCII folded to it (``asciiFolded(_:)``), it
    /// claims it by the rules above.
    public static func claims(_ value: some Collection<UInt8>, authservID: String) -> Bool {
        let bytes = Array(value)
        if claimsAsWritten(bytes, authservID: authservID) { return true }
        // RFC 2047 §5 puts encoded words in unstructured text, comments and phrases only, and
        // RFC 8601 §2.2 has none in an authserv-id; readers decode them there all the same.
        guard bytes.contains(where: { $0 >= 0x80 }) || HeaderText.containsMarker(bytes) else { return false }
        var view = bytes
        for _ in 0..<maxDecodingRounds {
            let decoded = asciiFolded(HeaderText.decode(view).text)
            if decoded == view { return false }
            if claimsAsWritten(decoded, authservID: authservID) { return true }
            view = decoded
        }
        return false
    }

    /// How many times ``claims(_:authservID:)`` decodes the encoded words of a value: a genuine
    /// server writes none, Python's `email` decodes once, a script may decode again.
    public static let maxDecodingRounds = 4

    /// `text` as UTF-8 with the characters whose Unicode lowercase mapping or case fold is
    /// ASCII replaced by it (KELVIN SIGN is `k`, LATIN SMALL LETTER LONG S `s`, the Latin
    /// ligatures `ff` … `st`, SHARP S `ss`), as `str.lower()` or `str.casefold()` in Python
    /// would compare them, and the characters `str.strip()` and `str.split()` take for white
    /// space (Unicode's White_Space, U+001C–U+001F) as a space; everything else as it is.
    static func asciiFolded(_ text: String) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            let folded: String? =
                switch scalar.value {
                case 0x1C...0x1F: " "
                case _ where scalar.value > 0x7F && scalar.properties.isWhitespace: " "
                case 0x212A: "k"
                case 0x017F: "s"
                case 0x00DF, 0x1E9E: "ss"
                case 0xFB00: "ff"
                case 0xFB01: "fi"
                case 0xFB02: "fl"
                case 0xFB03: "ffi"
                case 0xFB04: "ffl"
                case 0xFB05, 0xFB06: "st"
                default: nil
                }
            if let folded { out += folded.utf8 } else { out += String(scalar).utf8 }
        }
        return out
    }

    /// ``claims(_:authservID:)`` on the value as it stands.
    static func claimsAsWritten(_ bytes: [UInt8], authservID: String) -> Bool {
        let ours = Array(authservID.utf8).map(ASCII.lowercased)
        var parser = AuthenticationResultsParser(bytes)
        do {
            return Self.equalIgnoringCase(trimmed(try parser.payload().authservID), trimmed(authservID))
        } catch {}
        var leading = AuthenticationResultsParser(bytes)
        if let id = try? leading.leadingAuthservID(), equalIgnoringCase(trimmed(id), trimmed(authservID)) { return true }
        return !ours.isEmpty && AuthenticationResultsParser.squashed(bytes, limit: ours.count).starts(with: ours)
    }

    static func trimmed(_ id: String) -> String {
        id.trimmingASCII(AuthenticationResultsSyntax.isWhitespace)
    }

    /// RFC 8601 §2.5: authserv-ids compare case-insensitively.
    static func equalIgnoringCase(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && a.utf8.elementsEqual(b.utf8) { ASCII.lowercased($0) == ASCII.lowercased($1) }
    }
}

/// A cursor over one field value that reads RFC 8601 §2.2's grammar, with CFWS (RFC 5322
/// §3.2.2) wherever the grammar allows it, a leading comment included.
package struct AuthenticationResultsParser {
    /// Longest value read (a field from a server is a few hundred bytes).
    package static let maxValueBytes = 65_536
    /// Most results in one field.
    package static let maxResults = 256
    /// Most properties in one result.
    package static let maxProperties = 64
    /// Deepest comment nesting (RFC 5322 §3.2.2 comments nest).
    package static let maxCommentDepth = 32
    /// Most digits of a version number.
    package static let maxVersionDigits = 9

    typealias ParseError = AuthenticationResultsParseError

    let bytes: [UInt8]
    var i = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    var atEnd: Bool { i >= bytes.count }

    func peek() -> UInt8? { i < bytes.count ? bytes[i] : nil }

    func fail(_ code: ParseError.Code) -> ParseError { ParseError(code, at: i) }

    // RFC 8601 §2.2: authres-payload = [CFWS] authserv-id [ CFWS authres-version ]
    //                                  ( no-result / 1*resinfo ) [CFWS] CRLF
    mutating func payload() throws(ParseError) -> AuthenticationResultsPayload {
        guard bytes.count <= Self.maxValueBytes else { throw fail(.tooLong) }
        var payload = AuthenticationResultsPayload(authservID: try leadingAuthservID(), results: [])
        try skipCFWS()
        if let b = peek(), isDigit(b) {
            payload.version = try number()
            try skipCFWS()
        }
        guard peek() == UInt8(ascii: ";") else { throw fail(atEnd ? .missingResult : .expectedSemicolon) }
        // no-result = [CFWS] ";" [CFWS] "none"
        var probe = self
        probe.i += 1
        try probe.skipCFWS()
        if probe.keyword()?.lowercased() == "none" {
            try probe.skipCFWS()
            if probe.atEnd { return payload }
        }
        while !atEnd {
            guard peek() == UInt8(ascii: ";") else { throw fail(.expectedSemicolon) }
            i += 1
            try skipCFWS()
            // A trailing ";" with nothing after it is read as the end (some servers write one).
            if atEnd { break }
            guard payload.results.count < Self.maxResults else { throw fail(.tooManyResults) }
            payload.results.append(try resultInfo())
        }
        guard !payload.results.isEmpty else { throw fail(.missingResult) }
        return payload
    }

    /// The authserv-id, after any CFWS: a token or a quoted-string (RFC 8601 §2.2 `value`).
    mutating func leadingAuthservID() throws(ParseError) -> String {
        try skipCFWS()
        guard let id = try value() else { throw fail(.missingAuthservID) }
        return id
    }

    // resinfo = [CFWS] ";" methodspec [ CFWS reasonspec ] [ CFWS 1*propspec ]
    // methodspec = [CFWS] method [CFWS] "=" [CFWS] result
    // method = Keyword [ [CFWS] "/" [CFWS] method-version ]
    mutating func resultInfo() throws(ParseError) -> AuthenticationResultsPayload.ResultInfo {
        guard let method = keyword() else { throw fail(.malformedMethod) }
        var info = AuthenticationResultsPayload.ResultInfo(method: method.lowercased(), result: "")
        try skipCFWS()
        if peek() == UInt8(ascii: "/") {
            i += 1
            try skipCFWS()
            guard let b = peek(), isDigit(b) else { throw fail(.malformedMethod) }
            info.methodVersion = try number()
            try skipCFWS()
        }
        guard peek() == UInt8(ascii: "=") else { throw fail(.malformedMethod) }
        i += 1
        try skipCFWS()
        guard let result = keyword() else { throw fail(.malformedMethod) }
        info.result = result.lowercased()
        while true {
            try skipCFWS()
            guard let b = peek(), b != UInt8(ascii: ";") else { return info }
            guard let name = keyword() else { throw fail(.malformedProperty) }
            try skipCFWS()
            // reasonspec = "reason" [CFWS] "=" [CFWS] value; read wherever it stands, once.
            if peek() == UInt8(ascii: "="), name.lowercased() == "reason", info.reason == nil {
                i += 1
                try skipCFWS()
                guard let reason = try value() else { throw fail(.malformedProperty) }
                info.reason = reason
                continue
            }
            // propspec = ptype [CFWS] "." [CFWS] property [CFWS] "=" pvalue
            guard peek() == UInt8(ascii: ".") else { throw fail(.malformedProperty) }
            i += 1
            try skipCFWS()
            guard let property = keyword() else { throw fail(.malformedProperty) }
            try skipCFWS()
            guard peek() == UInt8(ascii: "=") else { throw fail(.malformedProperty) }
            i += 1
            try skipCFWS()
            guard info.properties.count < Self.maxProperties else { throw fail(.tooManyProperties) }
            info.properties.append(
                AuthenticationResultsPayload.Property(
                    type: name.lowercased(), name: property.lowercased(),
                    value: try propertyValue()))
        }
    }

    /// pvalue = [CFWS] ( value / [ [ local-part ] "@" ] domain-name ) [CFWS]: a quoted-string
    /// (with an `@domain` after it when it is a quoted local-part), or a run of printable
    /// characters up to white space, a comment, a quote or `;`.
    mutating func propertyValue() throws(ParseError) -> String {
        if peek() == UInt8(ascii: "\"") {
            var text = try quotedString()
            if peek() == UInt8(ascii: "@") { text += run() }
            return text
        }
        let text = run()
        guard !text.isEmpty else { throw fail(.malformedProperty) }
        return text
    }

    /// Printable bytes (and UTF-8) up to white space, `(`, `)`, `"`, `;` or a control.
    mutating func run() -> String {
        let start = i
        while let b = peek(), b > 0x20, b != 0x7F, b != UInt8(ascii: "("), b != UInt8(ascii: ")"),
            b != UInt8(ascii: "\""), b != UInt8(ascii: ";")
        {
            i += 1
        }
        return String(decoding: bytes[start..<i], as: UTF8.self)
    }

    /// RFC 8601 §2.2 value: RFC 2045 token or quoted-string; nil when neither starts here.
    /// Bytes above 0x7F are read as token characters (UTF-8, RFC 6532).
    mutating func value() throws(ParseError) -> String? {
        if peek() == UInt8(ascii: "\"") { return try quotedString() }
        let start = i
        while let b = peek(), AuthenticationResultsSyntax.isTokenByte(b) || b >= 0x80 { i += 1 }
        return i > start ? String(decoding: bytes[start..<i], as: UTF8.self) : nil
    }

    /// RFC 5322 §3.2.4 quoted-string: quoted-pairs unescaped, folding line breaks removed.
    mutating func quotedString() throws(ParseError) -> String {
        let open = i
        i += 1
        var text: [UInt8] = []
        while let b = peek() {
            i += 1
            switch b {
            case UInt8(ascii: "\""):
                return String(decoding: text, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard let escaped = peek() else { throw ParseError(.unterminatedQuotedString, at: open) }
                text.append(escaped)
                i += 1
            case 0x0D, 0x0A:
                // RFC 5322 §3.2.2: unfolding removes the CRLF of FWS.
                continue
            default:
                text.append(b)
            }
        }
        throw ParseError(.unterminatedQuotedString, at: open)
    }

    /// RFC 5321 Ldh-str (letters, digits, hyphens); nil when none starts here.
    mutating func keyword() -> String? {
        let start = i
        while let b = peek(), AuthenticationResultsSyntax.isKeywordByte(b) { i += 1 }
        return i > start ? String(decoding: bytes[start..<i], as: UTF8.self) : nil
    }

    /// 1*DIGIT, at most ``maxVersionDigits`` of them.
    mutating func number() throws(ParseError) -> Int {
        let start = i
        var value = 0
        while let b = peek(), isDigit(b) {
            guard i - start < Self.maxVersionDigits else { throw fail(.malformedVersion) }
            value = value * 10 + Int(b - 0x30)
            i += 1
        }
        return value
    }

    func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }

    /// RFC 5322 §3.2.2 CFWS: white space, folding, and comments, which nest and hold quoted-pairs.
    mutating func skipCFWS() throws(ParseError) {
        while let b = peek() {
            if AuthenticationResultsSyntax.isWhitespace(b) {
                i += 1
            } else if b == UInt8(ascii: "(") {
                try skipComment()
            } else {
                return
            }
        }
    }

    mutating func skipComment() throws(ParseError) {
        let open = i
        var depth = 0
        while let b = peek() {
            i += 1
            switch b {
            case UInt8(ascii: "("):
                depth += 1
                guard depth <= Self.maxCommentDepth else { throw ParseError(.malformedComment, at: open) }
            case UInt8(ascii: ")"):
                depth -= 1
                if depth == 0 { return }
            case UInt8(ascii: "\\"):
                if !atEnd { i += 1 }
            default:
                break
            }
        }
        throw ParseError(.malformedComment, at: open)
    }

    /// The value's first `limit` bytes as a lenient reader might compare them: comments (to
    /// their end or to the end of the value), white space, quotes and backslashes left out,
    /// ASCII letters lowercased.
    static func squashed(_ bytes: [UInt8], limit: Int) -> [UInt8] {
        var out: [UInt8] = []
        var depth = 0
        var index = 0
        while index < bytes.count, out.count < limit {
            let b = bytes[index]
            index += 1
            if b == UInt8(ascii: "(") {
                depth += 1
            } else if b == UInt8(ascii: ")"), depth > 0 {
                depth -= 1
            } else if depth == 0, !AuthenticationResultsSyntax.isWhitespace(b), b != UInt8(ascii: "\""), b != UInt8(ascii: "\\") {
                out.append(ASCII.lowercased(b))
            }
        }
        return out
    }
}
