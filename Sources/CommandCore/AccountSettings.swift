package import EventStore

/// What the site configuration adds for one account (`[accounts."jane@example.org"]`,
/// docs/SITE.md): the addresses that are also the person's (recipient binding, like `--me`),
/// the calendars their bookings go to, and senders and pass types trusted for them besides the
/// site's.
package struct AccountSettings: Sendable, Equatable {
    /// Other addresses of the person: with the account's own, the signed To or Cc must name one.
    package var aliases: [String] = []
    /// Where the account's events go, instead of the site's `calendar`; nil to use the site's.
    package var calendar: [String]?
    /// Domains trusted for this account, in addition to the site's.
    package var allowDomain: [String] = []
    /// Pass types trusted for this account, in addition to the site's.
    package var allowPassType: [String] = []
    /// The mailboxes `reservoir watch` reads into this account (`imaps://…` URLs, checked by
    /// the command).
    package var watch: [String] = []
    /// The account's Maildirs, read by `reservoir scan --all-accounts` into this account
    /// (absolute paths; a template's placeholders filled in), instead of the site's `maildir`.
    package var maildir: [String] = []
    /// The line of the account's table, for `reservoir config`.
    package var line = 0

    package init(
        aliases: [String] = [], calendar: [String]? = nil, allowDomain: [String] = [], allowPassType: [String] = [], line: Int = 0
    ) {
        self.aliases = aliases
        self.calendar = calendar
        self.allowDomain = allowDomain
        self.allowPassType = allowPassType
        self.line = line
    }

    /// The keys an account's table takes: the shared options declared for it
    /// (``CommonOption/inAccountTables``) and the account's own.
    static let keys = ["aliases"] + CommonOption.allCases.filter(\.inAccountTables).map(\.rawValue) + ["watch", "maildir"]
}

/// The Maildirs `reservoir scan --all-accounts` reads (docs/SITE.md, "Catching up after an
/// outage"): each account's own `maildir`, else the site's `maildir` template filled in for it.
package enum AccountMaildirs {
    /// `account`'s Maildirs in `file`: its table's, else the site's template filled in
    /// (``AccountTemplate/expand(_:for:)``: each placeholder one path segment, so no local part
    /// leaves the directory the template names); none for the implicit account.
    package static func maildirs(for account: Account, in file: ConfigurationFile?) -> [String] {
        guard let file, !account.isImplicit else { return [] }
        if let own = file.accounts[account.address]?.maildir, !own.isEmpty {
            return own.map { AccountTemplate.expand($0, for: account) }
        }
        return file.maildir.map { AccountTemplate.expand($0, for: account) }
    }

    /// One account to read: its Maildirs, and whether a table of the configuration lists it.
    package struct Entry: Sendable, Equatable {
        package var account: Account
        package var maildirs: [String]
        /// False for an account only the store holds (one the milter filed from an
        /// `--account-domain`): its Maildir may be gone with the mailbox.
        package var listed: Bool
    }

    /// The accounts to read and their Maildirs, in address order: every `[accounts."…"]` table,
    /// and each named account of `stored` that the site's template gives a Maildir, each once.
    package static func plan(file: ConfigurationFile?, stored: [Account]) -> [Entry] {
        let tables = Set(file?.accounts.keys.map { $0 } ?? [])
        var entries = tables.map { Entry(account: Account(normalizedAddress: $0), maildirs: [], listed: true) }
        for account in Set(stored.filter { !$0.isImplicit && !tables.contains($0.address) }.map(\.address)) {
            entries.append(Entry(account: Account(normalizedAddress: account), maildirs: [], listed: false))
        }
        for index in entries.indices { entries[index].maildirs = maildirs(for: entries[index].account, in: file) }
        return entries.filter { $0.listed || !$0.maildirs.isEmpty }.sorted { $0.account.address < $1.account.address }
    }
}

/// `{account}`, `{local}` and `{domain}` in a calendar destination, so one line of the site's
/// configuration serves every account of a Nextcloud or Radicale
/// (`https://dav.example.org/dav/calendars/{account}/reservations/`).
package enum AccountTemplate {
    package static let placeholders = ["{account}", "{local}", "{domain}"]

    /// The account a template in the site's settings is checked with.
    static let sample = Account(normalizedAddress: "jane@example.org")

    /// Whether `text` names a placeholder.
    package static func isTemplate(_ text: String) -> Bool {
        placeholders.contains { text.contains($0) }
    }

    /// `text` with each placeholder replaced by `account`'s part, made safe as one path
    /// segment (``component(_:)``); `text` itself for the implicit account.
    package static func expand(_ text: String, for account: Account) -> String {
        guard !account.isImplicit, isTemplate(text), let at = account.address.lastIndex(of: "@") else { return text }
        let local = String(account.address[..<at])
        let domain = String(account.address[account.address.index(after: at)...])
        return
            text
            .replacing("{account}", with: component(account.address))
            .replacing("{local}", with: component(local))
            .replacing("{domain}", with: component(domain))
    }

    /// `value` with every byte but letters, digits and `@ + _ - ~` (and `.` past the first
    /// byte) written `%XX`. A local part may hold `/`, `?`, `#` or be `..`: as written it could
    /// leave the directory or collection the template names (RFC 3986 §5.2.4 removes dot
    /// segments), so none of them reaches a path unencoded.
    package static func component(_ value: String) -> String {
        var encoded = ""
        for (index, byte) in value.utf8.enumerated() {
            let plain =
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x40 || byte == 0x2B || byte == 0x5F || byte == 0x2D || byte == 0x7E || (byte == 0x2E && index > 0)
            if plain {
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                let hex = Array("0123456789ABCDEF".utf8)
                encoded += "%" + String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]], as: UTF8.self)
            }
        }
        return encoded
    }
}
