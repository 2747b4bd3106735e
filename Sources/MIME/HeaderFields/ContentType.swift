import ReservoirBase

/// A Content-Type value (RFC 2045 §5.1): media type, subtype and parameters.
public struct ContentType: Sendable, Equatable {
    /// Lowercased top-level type, e.g. "text".
    public internal(set) var type: String
    /// Lowercased subtype, e.g. "html".
    public internal(set) var subtype: String
    /// Parameters by lowercased name, values decoded (quoted strings unquoted, RFC 2231
    /// continuations joined and charset-decoded, RFC 2047 words in values decoded).
    public internal(set) var parameters: [String: String]

    public init(type: String, subtype: String, parameters: [String: String] = [:]) {
        self.type = type.lowercased()
        self.subtype = subtype.lowercased()
        self.parameters = parameters
    }

    /// "type/subtype".
    public var mediaType: String { type + "/" + subtype }
    /// The charset parameter, if any, as written.
    public var charset: String? { parameters["charset"] }
    public var isMultipart: Bool { type == "multipart" }

    /// RFC 2045 §5.2: the default when there is no (readable) Content-Type.
    public static let textPlain = ContentType(type: "text", subtype: "plain", parameters: ["charset": "us-ascii"])
    /// RFC 2046 §5.1.5: the default inside multipart/digest.
    public static let messageRFC822 = ContentType(type: "message", subtype: "rfc822")

    /// Parses a Content-Type field value; nil when it has no "type/subtype" (the caller then uses
    /// the default, RFC 2045 §5.2).
    public static func parse<C: Collection>(_ value: C) -> ContentType? where C.Element == UInt8 {
        let (head, parameters) = ParameterizedValue.parse(HeaderText.unfold(value))
        guard let slash = head.firstIndex(of: UInt8(ascii: "/")) else { return nil }
        let type = String(decoding: head[..<slash], as: UTF8.self)
        let subtype = String(decoding: head[(slash + 1)...], as: UTF8.self)
        guard !type.isEmpty, !subtype.isEmpty else { return nil }
        return ContentType(type: type, subtype: subtype, parameters: parameters)
    }
}

/// A Content-Disposition value (RFC 2183): "inline" or "attachment" and parameters.
public struct ContentDisposition: Sendable, Equatable {
    /// Lowercased disposition type.
    public internal(set) var type: String
    public internal(set) var parameters: [String: String]

    public static func parse<C: Collection>(_ value: C) -> ContentDisposition where C.Element == UInt8 {
        let (head, parameters) = ParameterizedValue.parse(HeaderText.unfold(value))
        return ContentDisposition(type: String(decoding: head, as: UTF8.self).lowercased(), parameters: parameters)
    }
}

/// `token *(";" parameter)` as Content-Type and Content-Disposition share it (RFC 2045 §5.1,
/// RFC 2183 §2), with RFC 2231 extended parameters.
enum ParameterizedValue {
    /// Parameters read per field value; more are ignored.
    static let maxParameters = 256
    /// Continuation sections joined per RFC 2231 parameter; later sections are ignored.
    static let maxSections = 1_000

    /// The leading token (comments and white space removed, lowercased) and the parameters.
    static func parse(_ value: [UInt8]) -> (head: [UInt8], parameters: [String: String]) {
        var i = 0
        let n = value.count
        var head: [UInt8] = []
        // The head runs to the first ";" outside comments.
        var depth = 0
        while i < n {
            let c = value[i]
            if c == UInt8(ascii: "(") {
                depth += 1
            } else if c == UInt8(ascii: ")"), depth > 0 {
                depth -= 1
            } else if depth == 0 {
                if c == UInt8(ascii: ";") { break }
                if c == 0x20 || c == 0x09, let slash = head.firstIndex(of: UInt8(ascii: "/")), slash + 1 < head.count {
                    // "multipart/mixed boundary=x": a sender forgot the ";". White space after a
                    // complete type/subtype followed by a parameter-looking word ends the head.
                    var j = i
                    while j < n, value[j] == 0x20 || value[j] == 0x09 { j += 1 }
                    if j < n, value[j] != UInt8(ascii: ";"), value[j] != UInt8(ascii: "("), value[j] != UInt8(ascii: "/"),
                        value[j..<n].contains(UInt8(ascii: "="))
                    {
                        break
                    }
                }
                if c != 0x20 && c != 0x09 && c != UInt8(ascii: "\"") { head.append(ASCII.lowercased(c)) }
            }
            i += 1
        }
        var plain: [String: String] = [:]
        var extended: [String: [Int: (encoded: Bool, value: [UInt8])]] = [:]
        var count = 0
        while i < n, count < maxParameters {
            i += 1  // past ";"
            let parameter = readParameter(value, &i)
            guard let (name, raw) = parameter, !name.isEmpty else { continue }
            count += 1
            // RFC 2231 §3–4: name*N (continuation) and a trailing "*" (charset'lang'%XX).
            // On UTF-8: String.firstIndex(of:) walks grapheme clusters (2,600 instructions for
            // "charset", a third of the parse).
            if let star = name.utf8.firstIndex(of: UInt8(ascii: "*")) {
                let base = String(name[..<star])
                let rest = name[name.index(after: star)...]
                let encoded = rest.hasSuffix("*") || rest.isEmpty
                let digits = rest.hasSuffix("*") ? rest.dropLast() : rest[...]
                let index = digits.isEmpty ? 0 : Int(digits) ?? -1
                guard index >= 0, index < maxSections else { continue }
                if extended[base, default: [:]][index] == nil {
                    extended[base, default: [:]][index] = (encoded, raw.bytes)
                }
            } else if plain[name] == nil {
                plain[name] = decodePlain(raw.bytes)
            }
        }
        for (name, sections) in extended {
            plain[name] = joinSections(sections)
        }
        return (head, plain)
    }

    /// Reads `name = value` up to the next ";" outside quotes. The value is a quoted string or
    /// everything up to ";" or a comment after white space, trimmed (senders leave values with
    /// specials and spaces unquoted).
    static func readParameter(_ v: [UInt8], _ i: inout Int) -> (String, (bytes: [UInt8], quoted: Bool))? {
        let n = v.count
        func skipCFWS() {
            while i < n {
                if v[i] == 0x20 || v[i] == 0x09 {
                    i += 1
                    continue
                }
                if v[i] == UInt8(ascii: "(") {
                    var depth = 0
                    while i < n {
                        if v[i] == UInt8(ascii: "(") { depth += 1 }
                        if v[i] == UInt8(ascii: ")") {
                            depth -= 1
                            if depth == 0 {
                                i += 1
                                break
                            }
                        }
                        i += 1
                    }
                    continue
                }
                break
            }
        }
        skipCFWS()
        var name: [UInt8] = []
        while i < n, v[i] != UInt8(ascii: "="), v[i] != UInt8(ascii: ";") {
            if v[i] != 0x20 && v[i] != 0x09 { name.append(ASCII.lowercased(v[i])) }
            i += 1
        }
        guard i < n, v[i] == UInt8(ascii: "=") else { return nil }
        i += 1
        skipCFWS()
        var value: [UInt8] = []
        var quoted = false
        if i < n, v[i] == UInt8(ascii: "\"") {
            quoted = true
            i += 1
            while i < n, v[i] != UInt8(ascii: "\"") {
                if v[i] == UInt8(ascii: "\\"), i + 1 < n { i += 1 }
                value.append(v[i])
                i += 1
            }
            // Skip to the next ";".
            while i < n, v[i] != UInt8(ascii: ";") { i += 1 }
        } else {
            while i < n, v[i] != UInt8(ascii: ";") {
                // A comment after the value ("us-ascii (Plain text)"); "(" inside a token is kept.
                if v[i] == UInt8(ascii: "("), value.isEmpty || value.last == 0x20 || value.last == 0x09 { break }
                value.append(v[i])
                i += 1
            }
            while i < n, v[i] != UInt8(ascii: ";") { i += 1 }
            while let last = value.last, last == 0x20 || last == 0x09 { value.removeLast() }
        }
        return (String(decoding: name, as: UTF8.self), (value, quoted))
    }

    /// A plain value: RFC 2047 encoded words decoded (not allowed there by RFC 2047 §5, written
    /// by many mailers), raw 8-bit bytes read as UTF-8 with the windows-1252 fallback.
    static func decodePlain(_ bytes: [UInt8]) -> String {
        var ignored: [MIMEDiagnostic] = []
        return String(decoding: HeaderText.decodeEncodedWords(bytes, at: 0, diagnostics: &ignored), as: UTF8.self)
    }

    /// RFC 2231 §4.1: percent-decode every encoded section, concatenate the octets of all
    /// sections in order, then decode once with the charset of section 0.
    static func joinSections(_ sections: [Int: (encoded: Bool, value: [UInt8])]) -> String {
        var octets: [UInt8] = []
        var charset: Charset? = nil
        for index in sections.keys.sorted() {
            guard let section = sections[index] else { continue }
            var value = section.value[...]
            if index == sections.keys.min(), section.encoded {
                // charset'language'value; both may be empty.
                let parts = value.split(separator: UInt8(ascii: "'"), maxSplits: 2, omittingEmptySubsequences: false)
                if parts.count == 3 {
                    let label = String(decoding: parts[0], as: UTF8.self)
                    if !label.isEmpty { charset = Charset(label: label) }
                    value = parts[2]
                }
            }
            if section.encoded { octets.append(contentsOf: percentDecode(value)) } else { octets.append(contentsOf: value) }
        }
        return (charset ?? Charset(label: "utf-8")).decode(octets).text
    }

    static func percentDecode(_ value: ArraySlice<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(value.count)
        var i = value.startIndex
        while i < value.endIndex {
            if value[i] == UInt8(ascii: "%"), i + 2 < value.endIndex,
                let h = QuotedPrintable.hexValue(value[i + 1]), let l = QuotedPrintable.hexValue(value[i + 2])
            {
                out.append(h << 4 | l)
                i += 3
            } else {
                out.append(value[i])
                i += 1
            }
        }
        return out
    }
}
