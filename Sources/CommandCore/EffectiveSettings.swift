package import EventStore
import ICalendar
import Trust

/// The settings a run uses: the configuration file's values with the command line's on top
/// (an option given replaces its key, an array included), and where each came from.
package struct EffectiveSettings: Sendable, Equatable {
    package private(set) var values: [CommonOption: SettingValue] = [:]
    package private(set) var sources: [CommonOption: SettingSource] = [:]
    /// The file's `[accounts."…"]` tables, for ``scoped(to:)``.
    private var accountTables: [String: AccountSettings] = [:]
    private var filePath: String?
    /// The file's export settings, which every calendar of the run writes with.
    private var reminders: ReminderSettings?
    private var calendarColor: String?

    /// The command line's paths get `~` and `$HOME` expanded from `home` (``HomePath``); the
    /// file's were when it was read.
    package init(file: ConfigurationFile?, commandLine: [CommonOption: SettingValue], home: String? = HomePath.processHome) {
        if let file {
            for (option, value) in file.values {
                values[option] = value
                sources[option] = .file(file.path, line: file.lines[option] ?? 0)
            }
        }
        for (option, value) in commandLine {
            values[option] = HomePath.expand(option, value, home: home)
            sources[option] = .commandLine
        }
        accountTables = file?.accounts ?? [:]
        filePath = file?.path
        reminders = file?.reminders
        calendarColor = file?.calendarColor
        if let address = text(.account), var account = try? AccountAddress.parse(address), !account.isImplicit {
            // A listed account under its listed spelling, whatever the case of the local part
            // given: the milter files `Jane@` and `jane@` under one account
            // (``MilterSettings/account(forRecipient:)``), and so does every hook.
            // A detail address (`joe+trips@`, RFC 5233) is its base's account when the base is
            // listed and the address as written is not, as Postfix's `recipient_delimiter` and
            // Dovecot's `:user` take it: a Postfix `pipe` hands `${mailbox}` with its detail.
            let base = RecipientDelimiter(setting: text(.recipientDelimiter)).base(of: account.address)
            if let listed = listedAccount(account.address) ?? base.flatMap(listedAccount), listed != account.address {
                account = Account(normalizedAddress: listed)
                values[.account] = .text(listed)
            }
            apply(account, accountTables[account.address] ?? AccountSettings(), file: filePath)
        }
    }

    /// The listed account `address` names, whatever the case of its local part, under its
    /// listed spelling; nil when no table lists it.
    private func listedAccount(_ address: String) -> String? {
        if accountTables[address] != nil { return address }
        return accountTables.keys.sorted().first(where: { AccountAddress.folded($0) == AccountAddress.folded(address) })
    }

    /// The settings of a run for `account` (the milter's recipients): these, with the account's
    /// own added (``apply(_:_:file:)``). Made from settings without an account.
    package func scoped(to account: Account) -> EffectiveSettings {
        var scoped = self
        guard !account.isImplicit else { return scoped }
        scoped.values[.account] = .text(account.address)
        scoped.apply(account, accountTables[account.address] ?? AccountSettings(), file: filePath)
        return scoped
    }

    /// A site account's settings over the site's (docs/SITE.md): the account's address and its
    /// aliases bind its mail to it (`--me`), its domains and pass types are trusted besides the
    /// site's, its calendars replace the site's unless the command line names some, and every
    /// calendar template is filled in for it.
    private mutating func apply(_ account: Account, _ settings: AccountSettings, file: String?) {
        var me = texts(.me)
        for address in [account.address] + settings.aliases where !me.contains(address) { me.append(address) }
        values[.me] = .texts(me)
        if sources[.me] == nil { sources[.me] = .account(account.address) }
        for (option, added) in [(CommonOption.allowDomain, settings.allowDomain), (.allowPassType, settings.allowPassType)] where !added.isEmpty {
            values[option] = .texts(texts(option) + added)
            if sources[option] == nil { sources[option] = .account(account.address) }
        }
        if sources[.calendar] != .commandLine, let calendars = settings.calendar {
            values[.calendar] = .texts(calendars)
            sources[.calendar] = file.map { .file($0, line: settings.line) } ?? .account(account.address)
        }
        if case .texts(let calendars) = values[.calendar] {
            values[.calendar] = .texts(calendars.map { AccountTemplate.expand($0, for: account) })
        }
    }

    package func source(_ option: CommonOption) -> SettingSource { sources[option] ?? .standard }

    package func text(_ option: CommonOption) -> String? {
        if case .text(let text) = values[option] { text } else { nil }
    }

    package func texts(_ option: CommonOption) -> [String] {
        if case .texts(let texts) = values[option] { texts } else { [] }
    }

    package func number(_ option: CommonOption) -> Int? {
        if case .number(let n) = values[option] { n } else { nil }
    }

    package func flag(_ option: CommonOption) -> Bool {
        if case .flag(let set) = values[option] { set } else { false }
    }

    package var keys: KeySettings {
        KeySettings(keysFile: text(.keys), dnsServer: text(.dnsServer), dnsTimeout: number(.dnsTimeout) ?? KeySettings.defaultDNSTimeout)
    }

    package var policy: PolicySettings {
        var settings = PolicySettings(
            allowDomain: texts(.allowDomain), allowedDomainsFile: text(.allowedDomains), me: texts(.me),
            allowAnyDomain: flag(.allowAnyDomain), allowUnverified: flag(.allowUnverified), passCA: texts(.passCA),
            allowPassType: texts(.allowPassType), trustAuthservID: text(.trustAuthservID), ownAuthservID: text(.authservID),
            trustARCSealers: texts(.trustARCSealer), railKeys: text(.railKeys))
        settings.recipientDelimiter = RecipientDelimiter(setting: text(.recipientDelimiter))
        return settings
    }

    /// The calendars to push to: none with `--no-calendar`, which overrides `--calendar` and the
    /// file's `calendar` for one run.
    package var calendars: CalendarSettings {
        var settings = CalendarSettings(
            calendars: flag(.noCalendar) ? [] : texts(.calendar), netrcFile: text(.netrc), caFile: text(.calendarCA),
            deleteCancelled: flag(.deleteCancelled), skipped: flag(.noCalendar))
        settings.reminders = reminders ?? .standard
        settings.color = calendarColor
        // A site's account logs in to its calendars as itself when the netrc holds its entry.
        settings.netrcLogin = account.flatMap { try? AccountAddress.parse($0) }.flatMap { $0.isImplicit ? nil : $0.address }
        return settings
    }

    package var store: String? { text(.store) }
    /// `--account` or the file's `account`, as written (``AccountAddress/parse(_:)`` reads it).
    package var account: String? { text(.account) }
    /// `retry-spool`, else the default (``RetrySpool/locate(_:environment:)``); nil without a home.
    package var retrySpool: RetrySpool? { RetrySpool.locate(text(.retrySpool)) }
    package var timeout: Int { number(.timeout) ?? FilterHook.defaultTimeout }
}

extension CommonOption {
    /// The value `text` gives this option on the command line, added to what `settings`
    /// holds (a repeatable option appends); nil when it is not of the option's kind.
    package func commandLineValue(_ text: String, after previous: SettingValue?) -> SettingValue? {
        switch declaration.kind {
        case .string: return .text(text)
        case .strings:
            if case .texts(let earlier) = previous { return .texts(earlier + [text]) }
            return .texts([text])
        case .integer: return Int(text).map(SettingValue.number)
        case .boolean: return nil
        }
    }
}
