import ArgumentParser
import CommandCore

/// Where DKIM keys come from.
struct KeyOptions: ParsableArguments {
    @Option(name: .customLong("keys"), help: ArgumentHelp(
        "Read DKIM keys from this zone-file subset instead of DNS.",
        discussion: "One record a line: selector._domainkey.domain TXT \"string\" [\"string\" …]. Names absent from the file do not exist.",
        valueName: "file"))
    var keysFile: String?

    @Option(name: .customLong("dns-server"), help: ArgumentHelp("Query this nameserver for DKIM keys.", valueName: "host[:port]"))
    var dnsServer: String?

    @Option(name: .customLong("dns-timeout"), help: ArgumentHelp("Seconds to wait for a DNS answer.", valueName: "seconds"))
    var dnsTimeout: Int = KeySettings.defaultDNSTimeout

    var settings: KeySettings { KeySettings(keysFile: keysFile, dnsServer: dnsServer, dnsTimeout: dnsTimeout) }
}

/// The trust policy switches (see docs/USAGE.md).
struct PolicyOptions: ParsableArguments {
    @Option(name: .customLong("allow-domain"), help: ArgumentHelp("Accept markup from this From domain (repeatable; a leading dot includes subdomains).", valueName: "domain"))
    var allowDomain: [String] = []

    @Option(name: .customLong("allowed-domains"), help: ArgumentHelp("Accept markup from the domains listed in this file, one a line.", valueName: "file"))
    var allowedDomainsFile: String?

    @Option(name: .customLong("me"), help: ArgumentHelp("Trust markup only in mail whose signed To or Cc names this address (repeatable; @domain for a whole domain).", valueName: "address"))
    var me: [String] = []

    @Flag(name: .customLong("allow-any-domain"), help: "Testing: accept markup from any From domain with an aligned DKIM signature.")
    var allowAnyDomain = false

    @Flag(name: .customLong("allow-unverified"), help: "Testing: accept markup without a valid aligned DKIM signature.")
    var allowUnverified = false

    var settings: PolicySettings {
        PolicySettings(allowDomain: allowDomain, allowedDomainsFile: allowedDomainsFile, me: me,
                       allowAnyDomain: allowAnyDomain, allowUnverified: allowUnverified)
    }
}

struct StoreOptions: ParsableArguments {
    @Option(name: .customLong("store"), help: ArgumentHelp(
        "Where events are kept: sqlite:PATH (default: $XDG_DATA_HOME/reservoir/events.sqlite3) or postgres://user@host/db.",
        valueName: "url"))
    var store: String?
}

struct ClockOptions: ParsableArguments {
    @Option(name: .customLong("now"), help: ArgumentHelp("Pin the clock (ISO 8601 with offset), for replays and tests.", valueName: "time"))
    var now: String?

    func resolve() throws -> Int64 { try CommandRunner.clock(now) }
}

extension CommandRunner {
    init(keys: KeyOptions?, policy: PolicyOptions?, store: StoreOptions?, clock: ClockOptions, includePast: Bool) throws {
        try self.init(keys: keys?.settings, policy: policy?.settings, store: store.map(\.store),
                      now: clock.now, includePast: includePast)
    }
}
