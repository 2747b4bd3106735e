import ArgumentParser
import CommandCore
import EventStore

extension ArgumentHelp {
    /// The help of a shared option, from the one table (`CommonOption`).
    init(_ option: CommonOption, discussion: String = "") {
        self.init(option.help, discussion: discussion, valueName: option.valueName)
    }
}

extension NameSpecification {
    /// The long name of a shared option, from the one table.
    static func long(_ option: CommonOption) -> NameSpecification { .customLong(option.rawValue) }
}

/// Where DKIM keys come from.
struct KeyOptions: ParsableArguments {
    @Option(
        name: .long(.keys),
        help: ArgumentHelp(
            .keys,
            discussion: "One record a line: selector._domainkey.domain TXT \"string\" [\"string\" …]. Names absent from the file do not exist."))
    var keysFile: String?

    @Option(name: .long(.dnsServer), help: ArgumentHelp(.dnsServer))
    var dnsServer: String?

    @Option(name: .long(.dnsTimeout), help: ArgumentHelp(.dnsTimeout))
    var dnsTimeout: Int?

    /// The options given, for the merge with the configuration file.
    var given: [CommonOption: SettingValue] {
        var given: [CommonOption: SettingValue] = [:]
        if let keysFile { given[.keys] = .text(keysFile) }
        if let dnsServer { given[.dnsServer] = .text(dnsServer) }
        if let dnsTimeout { given[.dnsTimeout] = .number(dnsTimeout) }
        return given
    }

    /// The command line over the configuration file.
    var settings: KeySettings { EffectiveSettings.process(commandLine: given).keys }
}

/// The trust policy switches (see docs/USAGE.md).
struct PolicyOptions: ParsableArguments {
    @Option(name: .long(.allowDomain), help: ArgumentHelp(.allowDomain))
    var allowDomain: [String] = []

    @Option(name: .long(.allowedDomains), help: ArgumentHelp(.allowedDomains))
    var allowedDomainsFile: String?

    @Option(name: .long(.me), help: ArgumentHelp(.me))
    var me: [String] = []

    @Option(name: .long(.passCA), help: ArgumentHelp(.passCA))
    var passCA: [String] = []

    @Option(name: .long(.railKeys), help: ArgumentHelp(.railKeys))
    var railKeys: String?

    @Option(name: .long(.allowPassType), help: ArgumentHelp(.allowPassType))
    var allowPassType: [String] = []

    @Flag(name: .long(.allowAnyDomain), help: ArgumentHelp(.allowAnyDomain))
    var allowAnyDomain = false

    @Flag(name: .long(.allowUnverified), help: ArgumentHelp(.allowUnverified))
    var allowUnverified = false

    @Option(name: .long(.trustAuthservID), help: ArgumentHelp(.trustAuthservID))
    var trustAuthservID: String?

    @Option(name: .long(.trustARCSealer), help: ArgumentHelp(.trustARCSealer))
    var trustARCSealer: [String] = []

    var given: [CommonOption: SettingValue] {
        var given: [CommonOption: SettingValue] = [:]
        if !allowDomain.isEmpty { given[.allowDomain] = .texts(allowDomain) }
        if let allowedDomainsFile { given[.allowedDomains] = .text(allowedDomainsFile) }
        if !me.isEmpty { given[.me] = .texts(me) }
        if !passCA.isEmpty { given[.passCA] = .texts(passCA) }
        if let railKeys { given[.railKeys] = .text(railKeys) }
        if !allowPassType.isEmpty { given[.allowPassType] = .texts(allowPassType) }
        if allowAnyDomain { given[.allowAnyDomain] = .flag(true) }
        if allowUnverified { given[.allowUnverified] = .flag(true) }
        if let trustAuthservID { given[.trustAuthservID] = .text(trustAuthservID) }
        if !trustARCSealer.isEmpty { given[.trustARCSealer] = .texts(trustARCSealer) }
        return given
    }

    /// The command line over the configuration file.
    var settings: PolicySettings { EffectiveSettings.process(commandLine: given).policy }

    /// The same for `account`: a site account adds its addresses and its table (docs/SITE.md).
    func settings(for account: Account, adding other: [CommonOption: SettingValue] = [:]) -> PolicySettings {
        EffectiveSettings.process(commandLine: other.merging(given) { $1 }.merging(account.given) { $1 }).policy
    }

    /// A domain given as a file or a file as a domain is a usage error naming the option meant.
    func validate() throws {
        for (option, values) in [(CommonOption.allowDomain, allowDomain), (.allowedDomains, allowedDomainsFile.map { [$0] } ?? [])] {
            for value in values {
                if let misuse = option.misuse(of: value) { throw ValidationError(misuse) }
            }
        }
    }
}

/// `--pending-days`: how long a genuine sender's reservations wait for the person's choice.
struct PendingDaysOption: ParsableArguments {
    @Option(name: .long(.pendingDays), help: ArgumentHelp(.pendingDays))
    var pendingDays: Int?

    var given: [CommonOption: SettingValue] { pendingDays.map { [.pendingDays: .number($0)] } ?? [:] }

    /// `--pending-days`, else the configuration file's `pending-days`, else the default.
    var days: Int { max(0, EffectiveSettings.process(commandLine: given).number(.pendingDays) ?? PendingLimits.defaultDays) }
}

struct StoreOptions: ParsableArguments {
    @Option(name: .long(.store), help: ArgumentHelp(.store))
    var storeArgument: String?

    @Option(name: .long(.account), help: ArgumentHelp(.account))
    var accountArgument: String?

    @Option(name: .long(.recipientDelimiter), help: ArgumentHelp(.recipientDelimiter))
    var recipientDelimiterArgument: String?

    var given: [CommonOption: SettingValue] {
        var given: [CommonOption: SettingValue] = [:]
        if let storeArgument { given[.store] = .text(storeArgument) }
        if let accountArgument { given[.account] = .text(accountArgument) }
        if let recipientDelimiterArgument { given[.recipientDelimiter] = .text(recipientDelimiterArgument) }
        return given
    }

    func validate() throws {
        if let recipientDelimiterArgument, let misuse = CommonOption.recipientDelimiter.misuse(of: recipientDelimiterArgument) {
            throw ValidationError(misuse)
        }
    }

    /// `--account`, else the configuration file's `account`; the implicit account without either.
    func account() throws -> Account { try AccountAddress.parse(EffectiveSettings.process(commandLine: given).account) }

    /// `--store`, else the configuration file's `store`; nil for the default.
    var store: String? { EffectiveSettings.process(commandLine: given).store }

    /// The store `--store` or the configuration file names, or the default.
    var choice: StoreChoice { StoreChoice(store) }

    /// The same, its missing directories made with `--create`.
    func choice(creating: Bool) -> StoreChoice { StoreChoice(store, createDirectories: creating) }
}

/// `--create`, for the commands that record: a new store is otherwise made only in a directory
/// that exists, so that a mistyped `--store` is an error and not a new, empty store.
struct StoreCreationOptions: ParsableArguments {
    @Flag(
        name: .customLong("create"), help: "Make the --store's missing directories (a new store is otherwise made only in a directory that exists).")
    var create = false
}

/// Whether a command that stores keeps reservations that already ended.
struct PastOptions: ParsableArguments {
    @Flag(name: .long(.includePast), help: ArgumentHelp(.includePast))
    var includePastFlag = false

    /// `--include-past`, or `include-past = true` in the configuration file.
    var includePast: Bool { EffectiveSettings.includePast(includePastFlag) }
}

struct ClockOptions: ParsableArguments {
    @Option(name: .long(.now), help: ArgumentHelp(.now))
    var now: String?

    func resolve() throws -> Int64 { try CommandRunner.clock(now) }
}

extension CommandRunner {
    /// `storeOptions`: the command's `--recipient-delimiter`, which the recipient binding reads too.
    init(
        keys: KeyOptions?, policy: PolicyOptions?, store: StoreChoice, clock: ClockOptions, includePast: Bool,
        account: Account = .implicit, pending: PendingDaysOption? = nil, storeOptions: StoreOptions? = nil
    ) throws {
        try self.init(
            keys: keys?.settings, policy: policy?.settings(for: account, adding: storeOptions?.given ?? [:]), store: store, now: clock.now,
            includePast: includePast,
            account: account, pendingDays: pending?.days)
    }
}

/// Where stored events are delivered (docs/CALENDARS.md).
struct CalendarOptions: ParsableArguments {
    @Option(name: .long(.calendar), help: ArgumentHelp(.calendar))
    var calendars: [String] = []

    @Option(name: .long(.netrc), help: ArgumentHelp(.netrc))
    var netrcFile: String?

    @Option(name: .long(.calendarCA), help: ArgumentHelp(.calendarCA))
    var caFile: String?

    @Flag(name: .long(.deleteCancelled), help: ArgumentHelp(.deleteCancelled))
    var deleteCancelled = false

    var given: [CommonOption: SettingValue] {
        var given: [CommonOption: SettingValue] = [:]
        if !calendars.isEmpty { given[.calendar] = .texts(calendars) }
        if let netrcFile { given[.netrc] = .text(netrcFile) }
        if let caFile { given[.calendarCA] = .text(caFile) }
        if deleteCancelled { given[.deleteCancelled] = .flag(true) }
        return given
    }

    /// The command line over the configuration file, for `account` (its calendars, templates
    /// filled in).
    func settings(for account: Account) -> CalendarSettings {
        EffectiveSettings.process(commandLine: given.merging(account.given) { $1 }).calendars
    }
}

extension Account {
    /// `--account` as the settings take it; nothing for the implicit account.
    var given: [CommonOption: SettingValue] { isImplicit ? [:] : [.account: .text(address)] }
}

/// `--no-calendar`, for the commands that record and then push (`filter`, `ingest`, `scan`):
/// one run that leaves the calendars alone, whatever `--calendar` or the configuration file says.
struct NoCalendarOption: ParsableArguments {
    @Flag(name: .long(.noCalendar), help: ArgumentHelp(.noCalendar))
    var noCalendar = false

    var given: [CommonOption: SettingValue] { noCalendar ? [.noCalendar: .flag(true)] : [:] }
}

extension CalendarOptions {
    /// The calendars of this run: the command line over the configuration file, none with
    /// `--no-calendar`.
    func settings(_ switchOff: NoCalendarOption, for account: Account) -> CalendarSettings {
        EffectiveSettings.process(commandLine: given.merging(switchOff.given) { $1 }.merging(account.given) { $1 }).calendars
    }
}

/// Where messages wait for `reservoir retry` (docs/HOOKS.md, "Nothing lost").
struct RetryOptions: ParsableArguments {
    @Option(name: .long(.retrySpool), help: ArgumentHelp(.retrySpool))
    var retrySpool: String?

    var given: [CommonOption: SettingValue] { retrySpool.map { [.retrySpool: .text($0)] } ?? [:] }

    /// `--retry-spool`, else the configuration file's `retry-spool`, else the default; nil
    /// without a home directory.
    var spool: RetrySpool? { EffectiveSettings.process(commandLine: given).retrySpool }
}

/// `--log-level`, `--syslog` and `--metrics` of the programs that run as services (`milter`,
/// `serve`), declared for help and the manual pages: the programs read them themselves
/// (ServiceLog's `ServiceOptions`).
struct ServiceOutputOptions: ParsableArguments {
    @Option(name: .customLong("log-level"), help: ArgumentHelp("error, warning, info or debug (default info).", valueName: "level"))
    var logLevel: String?

    @Flag(name: .customLong("syslog"), help: "Log to syslog(3), facility mail, instead of standard error.")
    var syslog = false

    @Option(
        name: .customLong("metrics"),
        help: ArgumentHelp("Answer GET /metrics (Prometheus) and GET /healthz on PORT (127.0.0.1), HOST:PORT or [IPV6]:PORT.", valueName: "address"))
    var metrics: String?
}

/// The options of a hook that reads one message from the MTA (`filter`, `milter`) beside the
/// store's and the policy's: the authserv-id of its results, its time budget, `--no-store`.
struct MessageHookOptions: ParsableArguments {
    @Option(name: .long(.authservID), help: ArgumentHelp(.authservID))
    var authservID: String?

    @Option(name: .long(.timeout), help: ArgumentHelp(.timeout))
    var timeout: Int?

    @Flag(name: .long(.noStore), help: ArgumentHelp(.noStore))
    var noStore = false
}

/// The options of every command that records messages into the store: the DKIM keys, the
/// trust policy, the store and whether to create it, the clock, and reservations that already
/// ended. One group, so a command that records names them once (`recording.keys`, …).
struct RecordingOptions: ParsableArguments {
    @OptionGroup var keys: KeyOptions
    @OptionGroup var policy: PolicyOptions
    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var creation: StoreCreationOptions
    @OptionGroup var clock: ClockOptions
    @OptionGroup var past: PastOptions
}
