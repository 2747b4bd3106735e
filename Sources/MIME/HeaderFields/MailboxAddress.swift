import ReservoirBase

/// One mailbox of an address list (RFC 5322 §3.4): a display name, if any, and an addr-spec.
public struct MailboxAddress: Sendable, Equatable, CustomStringConvertible {
    /// The phrase before the angle address, unquoted and RFC 2047 decoded; for a bare addr-spec,
    /// the text of a trailing comment (the old `user@host (Real Name)` form).
    public internal(set) var displayName: String?
    /// The addr-spec as written (route removed, white space and comments dropped).
    public internal(set) var address: String
    /// The part after the last "@", lowercased, trailing dot removed; "" when there is none.
    public internal(set) var domain: String

    public init(displayName: String?, address: String) {
        self.displayName = displayName
        self.address = address
        // On UTF-8, ASCII folded by byte: the Character-based search and Unicode lowercasing
        // took 7,800 instructions for one address, every message.
        let utf8 = address.utf8
        if let at = utf8.lastIndex(of: UInt8(ascii: "@")) {
            let tail = address[utf8.index(after: at)...]
            var domain =
                tail.utf8.allSatisfy { $0 < 0x80 }
                ? String(decoding: tail.utf8.map(ASCII.lowercased), as: UTF8.self) : tail.lowercased()
            while domain.utf8.last == UInt8(ascii: ".") { domain.removeLast() }
            self.domain = domain
        } else {
            self.domain = ""
        }
    }

    public var description: String {
        if let displayName, !displayName.isEmpty { return "\(displayName) <\(address)>" }
        return address
    }

    /// RFC 5322 §3.2.3 specials that stand alone in an address list ("." and quotes aside).
    static let addressSpecials = ASCIISet("<>,:;@[]")

    /// Every mailbox of an address-list value (RFC 5322 §3.4: mailboxes and groups; §4.4
    /// obsolete forms: empty list members, routes). Never fails; unreadable members are skipped.
    public static func parseList<C: Collection>(_ value: C) -> [MailboxAddress] where C.Element == UInt8 {
        let unfolded = HeaderText.unfold(value)
        let tokens = StructuredLexer.tokens(unfolded, specials: Self.addressSpecials)
        var result: [MailboxAddress] = []
        var builder = MailboxBuilder()
        var inAngle = false
        for lexed in tokens {
            switch lexed.token {
            case .special(UInt8(ascii: "<")) where !inAngle:
                inAngle = true
                builder.sawAngle = true
            case .special(UInt8(ascii: ">")) where inAngle:
                inAngle = false
            case .special(UInt8(ascii: ",")) where !inAngle:
                builder.finish(into: &result)
            case .special(UInt8(ascii: ":")) where !inAngle:
                // RFC 5322 §3.4: a group's display name ends with ":"; the name itself is dropped.
                builder = MailboxBuilder()
            case .special(UInt8(ascii: ":")) where inAngle && builder.address.first == UInt8(ascii: "@"):
                // RFC 5322 §4.4 obs-route: "@a,@b:" before the addr-spec is dropped.
                builder.address.removeAll()
            case .special(UInt8(ascii: ";")) where !inAngle:
                builder.finish(into: &result)
            case .special(let c):
                if inAngle || !builder.sawAngle {
                    if inAngle { builder.address.append(c) } else { builder.appendPhrase(c, lexed.spaceBefore, raw: [c]) }
                }
            case .comment(let text):
                if builder.comment == nil { builder.comment = text }
            case .atom(let bytes), .literal(let bytes):
                if inAngle {
                    builder.address.append(contentsOf: bytes)
                } else if !builder.sawAngle {
                    builder.appendPhrase(nil, lexed.spaceBefore, raw: bytes)
                }
            case .quoted(let bytes):
                if inAngle {
                    builder.address.append(UInt8(ascii: "\""))
                    builder.address.append(contentsOf: bytes)
                    builder.address.append(UInt8(ascii: "\""))
                } else if !builder.sawAngle {
                    builder.appendPhrase(nil, lexed.spaceBefore, raw: bytes, quoted: true)
                }
            }
        }
        builder.finish(into: &result)
        return result
    }
}

/// Collects the tokens of one list member.
private struct MailboxBuilder {
    /// The phrase as written, words separated by single spaces (for a display name).
    var phrase: [UInt8] = []
    /// The phrase tokens concatenated as written (for a bare addr-spec: `"a b"@c` or `a.b@c`).
    var bare: [UInt8] = []
    var address: [UInt8] = []
    var comment: [UInt8]? = nil
    var sawAngle = false
    var hasPhrase = false

    mutating func appendPhrase(_ special: UInt8?, _ spaceBefore: Bool, raw: [UInt8], quoted: Bool = false) {
        if hasPhrase { phrase.append(0x20) }
        phrase.append(contentsOf: raw)
        if spaceBefore && !bare.isEmpty { bare.append(0x20) }
        if quoted { bare.append(UInt8(ascii: "\"")) }
        bare.append(contentsOf: raw)
        if quoted { bare.append(UInt8(ascii: "\"")) }
        hasPhrase = true
    }

    mutating func finish(into result: inout [MailboxAddress]) {
        defer { self = MailboxBuilder() }
        if sawAngle {
            let address = String(decoding: UTF8Repair.repair(self.address), as: UTF8.self)
            guard !address.isEmpty else { return }
            var ignored: [MIMEDiagnostic] = []
            let name = hasPhrase ? String(decoding: HeaderText.decodeEncodedWords(phrase, at: 0, diagnostics: &ignored), as: UTF8.self) : nil
            result.append(MailboxAddress(displayName: name.flatMap { $0.isEmpty ? nil : $0 }, address: address))
        } else if hasPhrase {
            // A bare addr-spec; white space inside it is not part of the address.
            let compact = bare.filter { $0 != 0x20 }
            let address = String(decoding: UTF8Repair.repair(compact), as: UTF8.self)
            var ignored: [MIMEDiagnostic] = []
            let name = comment.map {
                String(decoding: HeaderText.decodeEncodedWords(HeaderText.unfold($0), at: 0, diagnostics: &ignored), as: UTF8.self)
            }
            result.append(MailboxAddress(displayName: name.flatMap { $0.isEmpty ? nil : $0 }, address: address))
        }
    }
}
