package import EventStore
import Trust

/// Reads an account's address as `--account` and the configuration file's `account` give it:
/// `local@domain`, the local part kept as given (RFC 5321 §2.4: it may be case-sensitive) and the
/// domain lowercased in A-labels (`jane@Bücher.example` is `jane@xn--bcher-kva.example`), so
/// one mailbox is one account however its domain is written.
package enum AccountAddress {
    /// The longest address taken (RFC 5321 §4.5.3.1.3: a path of 256 octets holds 254 of address).
    package static let maximumBytes = 254

    /// The account `text` names; nil without text (the implicit account of a single-user store).
    package static func parse(_ text: String?) throws(UsageError) -> Account {
        guard let text, !text.isEmpty else { return .implicit }
        guard let at = text.lastIndex(of: "@") else {
            throw UsageError("--account takes a mailbox address (jane@example.org); got \(text)")
        }
        let local = String(text[..<at])
        let domain = String(text[text.index(after: at)...])
        guard !local.isEmpty, !domain.isEmpty, text.utf8.count <= maximumBytes,
            !text.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value == 0x7F }),
            let ascii = TrustPolicy.asciiHostName(domain)
        else {
            throw UsageError("--account takes a mailbox address (jane@example.org) with a domain name; got \(text)")
        }
        return Account(normalizedAddress: local + "@" + ascii)
    }

    /// `address` with ASCII letters in lowercase: how MTAs compare local parts (Postfix's
    /// tables, Exim's `local_parts`, Dovecot's user names), and so how accounts are matched.
    package static func folded(_ address: String) -> String {
        String(decoding: address.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }, as: UTF8.self)
    }
}
