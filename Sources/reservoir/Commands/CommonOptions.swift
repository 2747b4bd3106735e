import ArgumentParser
import CommandCore
import EventStore
import ReservoirBase

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

/// A group of shared options: each property is named as its option's case (`allowDomain` for
/// `--allow-domain`) and its `@Option` or `@Flag` is made from the option's declaration, so what
/// was given is read off the properties (``given``) and no option is spelled a second time. The
/// reading is ArgumentParser's own: it finds a command's arguments by reflection too.
protocol SharedOptions: ParsableArguments {}

extension SharedOptions {
    /// The options given, for the merge with the configuration file.
    var given: [CommonOption: SettingValue] {
        var given: [CommonOption: SettingValue] = [:]
        for child in Mirror(reflecting: self).children {
            // A property wrapper's storage is labelled with an underscore before the name.
            guard let label = child.label?.dropFirst(), let option = CommonOption.allCases.first(where: { "\($0)" == label }) else { continue }
            switch child.value {
            case let value as Option<String?>: if let text = value.wrappedValue { given[option] = .text(text) }
            case let value as Option<[String]>: if !value.wrappedValue.isEmpty { given[option] = .texts(value.wrappedValue) }
            case let value as Option<Int?>: if let number = value.wrappedValue { given[option] = .number(number) }
            case let value as Flag<Bool>: if value.wrappedValue { given[option] = .flag(true) }
            default: preconditionFailure("\(Self.self).\(label) is \(type(of: child.value)), not a shared option's kind")
            }
        }
        return given
    }
}

/// What `groups` were given, the later on top.
func givenOptions(_ groups: any SharedOptions...) -> [CommonOption: SettingValue] {
    groups.reduce(into: [:]) { given, group in given.merge(group.given) { $1 } }
}

/// Where DKIM keys come from.
struct KeyOptions: SharedOptions {
    @Option(
        name: .long(.keys),
        help: ArgumentHelp(
            .keys,
            discussion: "One record a line: selector._domainkey.domain TXT \"string\" [\"string\" …]. Names absent from the file do not exist."))
    var keys: String?

    @Option(name: .long(.dnsServer), help: ArgumentHelp(.dnsServer))
    var dnsServer: String?

    @Option(name: .long(.dnsTimeout), help: ArgumentHelp(.dnsTimeout))
    var dnsTimeout: Int?

    /// The command line over the configuration file.
    var settings: KeySettings { EffectiveSettings.process(commandLine: given).keys }
}

/// The trust policy switches (see docs/USAGE.md).
struct PolicyOptions: SharedOptions {
    @Option(name: .long(.allowDomain), help: ArgumentHelp(.allowDomain))
    var allowDomain: [String] = []

    @Option(name: .long(.allowedDomains), help: ArgumentHelp(.allowedDomains))
    var allowedDomains: String?

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

    /// The command line over the configuration file.
    var settings: PolicySettings { EffectiveSettings.process(commandLine: given).policy }

    /// The same for `account`: a site account adds its addresses and its table (docs/SITE.md).
    func settings(for account: Account, adding other: [CommonOption: SettingValue] = [:]) -> PolicySettings {
        EffectiveSettings.process(commandLine: other.merging(given) { $1 }.merging(account.given) { $1 }).policy
    }

    /// A domain given as a file or a file as a domain is a usage error naming the option meant.
    func validate() throws {
        for (option, values) in [(CommonOption.allowDomain, allowDomain), (.allowedDomains, allowedDomains.map { [$0] } ?? [])] {
            for value in values {
                if let misuse = option.misuse(of: value) { throw ValidationError(misuse) }
            }
        }
    }
}

/// `--pending-days`: how long a genuine sender's reservations wait for the person's choice.
struct PendingDaysOption: SharedOptions {
    @Option(name: .long(.pendingDays), help: ArgumentHelp(.pendingDays))
    var pendingDays: Int?

    /// `--pending-days`, else the configuration file's `pending-days`, else the default.
    var days: Int { Self.days(given) }

    /// The days `given` on the command line say, over the configuration file's.
    static func days(_ given: [CommonOption: SettingValue] = [:]) -> Int {
        max(0, EffectiveSettings.process(commandLine: given).number(.pendingDays) ?? PendingLimits.defaultDays)
    }
}

struct StoreOptions: SharedOptions {
    @Option(name: .long(.store), help: ArgumentHelp(.store))
    var store: String?

    @Option(name: .long(.account), help: ArgumentHelp(.account))
    var account: String?

    @Option(name: .long(.recipientDelimiter), help: ArgumentHelp(.recipientDelimiter))
    var recipientDelimiter: String?

    func validate() throws {
        if let recipientDelimiter, let misuse = CommonOption.recipientDelimiter.misuse(of: recipientDelimiter) {
            throw ValidationError(misuse)
        }
    }

    /// `--account`, else the configuration file's `account`; the implicit account without either.
    func selectedAccount() throws -> Account { try AccountAddress.parse(EffectiveSettings.process(commandLine: given).account) }

    /// `--store`, else the configuration file's `store`; nil for the default.
    var location: String? { EffectiveSettings.process(commandLine: given).store }

    /// The store `--store` or the configuration file names, or the default.
    var choice: StoreChoice { StoreChoice(location) }

    /// The same, its missing directories made with `--create`.
    func choice(creating: Bool) -> StoreChoice { StoreChoice(location, createDirectories: creating) }
}

/// `--create`, for the commands that record: a new store is otherwise made only in a directory
/// that exists, so that a mistyped `--store` is an error and not a new, empty store.
struct StoreCreationOptions: ParsableArguments {
    @Flag(
        name: .customLong("create"), help: "Make the --store's missing directories (a new store is otherwise made only in a directory that exists).")
    var create = false
}

/// Whether a command that stores keeps reservations that already ended.
struct PastOptions: SharedOptions {
    @Flag(name: .long(.includePast), help: ArgumentHelp(.includePast))
    var includePast = false

    /// `--include-past`, or `include-past = true` in the configuration file.
    var includesPast: Bool { EffectiveSettings.includePast(includePast) }
}

struct ClockOptions: SharedOptions {
    @Option(name: .long(.now), help: ArgumentHelp(.now))
    var now: String?

    func resolve() throws -> Int64 { try wallClock().now() }

    /// The clock of the run: `--now` pinned, else the system's.
    func wallClock() throws -> WallClock { try CommandRunner.wallClock(now) }
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
            account: account, pendingDays: pending?.days ?? PendingDaysOption.days())
    }
}

/// Where stored events are delivered (docs/CALENDARS.md).
struct CalendarOptions: SharedOptions {
    @Option(name: .long(.calendar), help: ArgumentHelp(.calendar))
    var calendar: [String] = []

    @Option(name: .long(.netrc), help: ArgumentHelp(.netrc))
    var netrc: String?

    @Option(name: .long(.calendarCA), help: ArgumentHelp(.calendarCA))
    var calendarCA: String?

    @Flag(name: .long(.deleteCancelled), help: ArgumentHelp(.deleteCancelled))
    var deleteCancelled = false

    /// The command line over the configuration file, for `account` (its calendars, templates
    /// filled in).
    func settings(for account: Account) -> CalendarSettings {
        EffectiveSettings.process(commandLine: given.merging(account.given) { $1 }).calendars
    }
}

extension EffectiveSettings {
    /// The process's configuration file (when it is valid) under `commandLine`: the one place
    /// below `main` where `reservoir`'s commands read it; the libraries are handed the result.
    static func process(commandLine: [CommonOption: SettingValue]) -> EffectiveSettings {
        EffectiveSettings(file: ConfigurationLoad.process.file, commandLine: commandLine)
    }

    /// `--include-past` given, or set in the process's configuration file.
    static func includePast(_ given: Bool) -> Bool {
        given || process(commandLine: [:]).flag(.includePast)
    }
}

extension Account {
    /// `--account` as the settings take it; nothing for the implicit account.
    var given: [CommonOption: SettingValue] { isImplicit ? [:] : [.account: .text(address)] }
}

/// `--no-calendar`, for the commands that record and then push (`filter`, `ingest`, `scan`):
/// one run that leaves the calendars alone, whatever `--calendar` or the configuration file says.
struct NoCalendarOption: SharedOptions {
    @Flag(name: .long(.noCalendar), help: ArgumentHelp(.noCalendar))
    var noCalendar = false

}

extension CalendarOptions {
    /// The calendars of this run: the command line over the configuration file, none with
    /// `--no-calendar`.
    func settings(_ switchOff: NoCalendarOption, for account: Account) -> CalendarSettings {
        EffectiveSettings.process(commandLine: given.merging(switchOff.given) { $1 }.merging(account.given) { $1 }).calendars
    }
}

/// Where messages wait for `reservoir retry` (docs/HOOKS.md, "Nothing lost").
struct RetryOptions: SharedOptions {
    @Option(name: .long(.retrySpool), help: ArgumentHelp(.retrySpool))
    var retrySpool: String?

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
struct MessageHookOptions: SharedOptions {
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
