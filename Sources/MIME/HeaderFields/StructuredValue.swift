/// A lexical token of a structured header field value (RFC 5322 §3.2).
enum StructuredToken: Equatable {
    /// A run of characters that are not white space or one of the specials that end a word here.
    case atom([UInt8])
    /// A quoted string's content, quoted-pairs resolved (RFC 5322 §3.2.4).
    case quoted([UInt8])
    /// A comment's content, nested comments flattened (RFC 5322 §3.2.2).
    case comment([UInt8])
    /// A domain literal including its brackets (RFC 5322 §3.4.1).
    case literal([UInt8])
    case special(UInt8)
}

/// A set of ASCII bytes as a bit mask: asked once per byte of a structured value, where a
/// `Set<UInt8>` hashed every byte.
struct ASCIISet {
    private var low: UInt64 = 0
    private var high: UInt64 = 0

    init(_ members: String) {
        for b in members.utf8 where b < 0x80 {
            if b < 64 { low |= 1 << UInt64(b) } else { high |= 1 << UInt64(b - 64) }
        }
    }

    @inline(__always)
    func contains(_ b: UInt8) -> Bool {
        b < 64 ? low & (1 << UInt64(b)) != 0 : b < 128 && high & (1 << UInt64(b - 64)) != 0
    }
}

/// A token and whether white space came before it.
struct LexedToken {
    let token: StructuredToken
    let spaceBefore: Bool
}

/// Splits an unfolded structured value into tokens. `specials` are the characters that stand
/// alone; everything else between white space, quotes, comments and specials is an atom.
/// Unterminated quotes and comments run to the end of the value.
enum StructuredLexer {
    /// Nesting depth of comments followed; deeper parentheses are read as comment text.
    static let maxCommentDepth = 64

    static func tokens(_ value: [UInt8], specials: ASCIISet) -> [LexedToken] {
        var result: [LexedToken] = []
        var i = 0
        var space = false
        let n = value.count
        while i < n {
            let c = value[i]
            if c == 0x20 || c == 0x09 || c == 0x0D || c == 0x0A {
                space = true
                i += 1
                continue
            }
            if c == UInt8(ascii: "\"") {
                var content: [UInt8] = []
                i += 1
                while i < n, value[i] != UInt8(ascii: "\"") {
                    if value[i] == UInt8(ascii: "\\"), i + 1 < n { i += 1 }
                    if value[i] != 0x0D && value[i] != 0x0A { content.append(value[i]) }
                    i += 1
                }
                i += 1
                result.append(LexedToken(token: .quoted(content), spaceBefore: space))
            } else if c == UInt8(ascii: "(") {
                var depth = 1
                var content: [UInt8] = []
                i += 1
                while i < n {
                    let d = value[i]
                    if d == UInt8(ascii: "\\"), i + 1 < n {
                        content.append(value[i + 1])
                        i += 2
                        continue
                    }
                    if d == UInt8(ascii: "("), depth < maxCommentDepth { depth += 1 }
                    if d == UInt8(ascii: ")") {
                        depth -= 1
                        if depth == 0 { break }
                    }
                    content.append(d)
                    i += 1
                }
                i += 1
                result.append(LexedToken(token: .comment(content), spaceBefore: space))
            } else if c == UInt8(ascii: "["), specials.contains(c) {
                let start = i
                while i < n, value[i] != UInt8(ascii: "]") { i += 1 }
                i = min(i + 1, n)
                result.append(LexedToken(token: .literal(Array(value[start..<i])), spaceBefore: space))
            } else if specials.contains(c) {
                result.append(LexedToken(token: .special(c), spaceBefore: space))
                i += 1
            } else {
                let start = i
                while i < n {
                    let d = value[i]
                    if d == 0x20 || d == 0x09 || d == 0x0D || d == 0x0A || d == UInt8(ascii: "\"")
                        || d == UInt8(ascii: "(") || specials.contains(d)
                    {
                        break
                    }
                    i += 1
                }
                result.append(LexedToken(token: .atom(Array(value[start..<i])), spaceBefore: space))
            }
            space = false
        }
        return result
    }

    /// The value with comments removed, each replaced by a space (RFC 5322 §3.2.2 CFWS).
    static func stripComments(_ value: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(value.count)
        var depth = 0
        var inQuote = false
        var i = 0
        while i < value.count {
            let c = value[i]
            if depth == 0, c == UInt8(ascii: "\"") { inQuote.toggle() }
            if c == UInt8(ascii: "\\"), i + 1 < value.count, inQuote || depth > 0 {
                if depth == 0 {
                    out.append(c)
                    out.append(value[i + 1])
                }
                i += 2
                continue
            }
            if !inQuote, c == UInt8(ascii: "(") {
                depth += 1
                if depth == 1 { out.append(0x20) }
            } else if !inQuote, c == UInt8(ascii: ")"), depth > 0 {
                depth -= 1
            } else if depth == 0 {
                out.append(c)
            }
            i += 1
        }
        return out
    }
}
