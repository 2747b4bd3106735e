/// The characters that separate a recipient's detail from its mailbox (`joe+trips@example.org`
/// is `joe@example.org` with the detail `trips`, RFC 5233 §1), as Postfix's
/// `recipient_delimiter` (a set of characters since Postfix 2.11: `+-` means either) and
/// Dovecot's name them. `--recipient-delimiter`, or the configuration file's
/// `recipient-delimiter`; `+` unless set; empty turns it off.
///
/// A detail address becomes its base's account only when the base is an account (the milter's
/// recipients, `--account`): the address as written is looked up first, as Postfix looks up
/// `joe+trips@` before `joe@`, so a listed `a+b@` stays its own account. A signed To or Cc
/// naming `joe+trips@` names `joe@` for the recipient binding (``TrustPolicy/recipients``).
public struct RecipientDelimiter: Sendable, Equatable {
    /// Postfix's and Dovecot's usual setting.
    public static let standard = RecipientDelimiter(characters: [UInt8(ascii: "+")])

    /// The characters a delimiter may be: RFC 5322 §3.2.3 atext that is neither a letter nor a
    /// digit, and `.`, less `%`, `!` and `/` (recipients holding those are no account of the
    /// milter's). A letter or digit would cut ordinary names apart.
    public static let allowed = Array("+-_=.#$&'*?^`{|}~".utf8)

    /// In the order given, each once.
    public let characters: [UInt8]

    private init(characters: [UInt8]) {
        self.characters = characters
    }

    /// `text` as a set of delimiters; nil when it holds a character outside ``allowed``.
    public init?(_ text: String) {
        var characters: [UInt8] = []
        for byte in text.utf8 {
            guard Self.allowed.contains(byte) else { return nil }
            if !characters.contains(byte) { characters.append(byte) }
        }
        self.characters = characters
    }

    /// The setting `text` gives (nil: not set), the standard one when it is not valid: a value
    /// that is not is refused where it is read (the command line, the configuration file).
    public init(setting text: String?) {
        self = text.flatMap(RecipientDelimiter.init) ?? .standard
    }

    /// `address` (`local@domain`) without its detail: the local part up to the first delimiter
    /// character, as Postfix's `split_addr` and Dovecot cut it; nil when nothing is cut. Not cut,
    /// as Postfix does not cut them: a local part starting with a delimiter (`+trips@` has no
    /// mailbox before it), `postmaster` (RFC 5321 §4.5.1) and `MAILER-DAEMON`, and with `-`
    /// among the delimiters `owner-…` and `…-request` (mailing list addresses).
    public func base(of address: String) -> String? {
        guard !characters.isEmpty, let at = address.utf8.lastIndex(of: UInt8(ascii: "@")) else { return nil }
        let local = address.utf8[..<at]
        let lowered = String(decoding: local.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }, as: UTF8.self)
        if lowered == "postmaster" || lowered == "mailer-daemon" { return nil }
        if characters.contains(UInt8(ascii: "-")), lowered.hasPrefix("owner-") || lowered.hasSuffix("-request") { return nil }
        guard let cut = local.firstIndex(where: { characters.contains($0) }), cut != local.startIndex else { return nil }
        return String(decoding: address.utf8[..<cut], as: UTF8.self) + String(decoding: address.utf8[at...], as: UTF8.self)
    }
}
