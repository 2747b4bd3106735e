import ArgumentParser
import CommandCore

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
    var dnsTimeout: Int = KeySettings.defaultDNSTimeout

    var settings: KeySettings { KeySettings(keysFile: keysFile, dnsServer: dnsServer, dnsTimeout: dnsTimeout) }
}

/// The trust policy switches (see docs/USAGE.md).
struct PolicyOptions: ParsableArguments {
    @Option(name: .long(.allowDomain), help: ArgumentHelp(.allowDomain))
    var allowDomain: [String] = []

    @Option(name: .long(.allowedDomains), help: ArgumentHelp(.allowedDomains))
    var allowedDomainsFile: String?

    @Option(name: .long(.me), help: ArgumentHelp(.me))
    var me: [String] = []

    @Flag(name: .long(.allowAnyDomain), help: ArgumentHelp(.allowAnyDomain))
    var allowAnyDomain = false

    @Flag(name: .long(.allowUnverified), help: ArgumentHelp(.allowUnverified))
    var allowUnverified = false

    var settings: PolicySettings {
        PolicySettings(
            allowDomain: allowDomain, allowedDomainsFile: allowedDomainsFile, me: me,
            allowAnyDomain: allowAnyDomain, allowUnverified: allowUnverified)
    }
}

struct StoreOptions: ParsableArguments {
    @Option(name: .long(.store), help: ArgumentHelp(.store))
    var store: String?

    /// The store `--store` names, or the default.
    var choice: StoreChoice { StoreChoice(store) }
}

/// Whether a command that stores keeps reservations that already ended.
struct PastOptions: ParsableArguments {
    @Flag(name: .long(.includePast), help: ArgumentHelp(.includePast))
    var includePast = false
}

struct ClockOptions: ParsableArguments {
    @Option(name: .long(.now), help: ArgumentHelp(.now))
    var now: String?

    func resolve() throws -> Int64 { try CommandRunner.clock(now) }
}

extension CommandRunner {
    init(keys: KeyOptions?, policy: PolicyOptions?, store: StoreChoice, clock: ClockOptions, includePast: Bool) throws {
        try self.init(keys: keys?.settings, policy: policy?.settings, store: store, now: clock.now, includePast: includePast)
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

    var settings: CalendarSettings {
        CalendarSettings(calendars: calendars, netrcFile: netrcFile, caFile: caFile, deleteCancelled: deleteCancelled)
    }
}
