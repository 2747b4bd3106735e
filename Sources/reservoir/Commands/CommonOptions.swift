import ArgumentParser
import Pipeline

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

/// The values of `KeyOptions`, for code that runs without the argument parser (the filter hook).
struct KeySettings {
    var keysFile: String?
    var dnsServer: String?
    var dnsTimeout = Self.defaultDNSTimeout

    /// Seconds to wait for a DNS answer, unless `--dns-timeout` says otherwise.
    static let defaultDNSTimeout = 5
}

/// The trust policy switches (see docs/USAGE.md).
struct PolicyOptions: ParsableArguments {
    @Option(name: .customLong("allow-domain"), help: ArgumentHelp("Accept markup from this From domain (repeatable; a leading dot includes subdomains).", valueName: "domain"))
    var allowDomain: [String] = []

    @Option(name: .customLong("allowed-domains"), help: ArgumentHelp("Accept markup from the domains listed in this file, one a line.", valueName: "file"))
    var allowedDomainsFile: String?

    @Flag(name: .customLong("allow-any-domain"), help: "Testing: accept markup from any From domain with an aligned DKIM signature.")
    var allowAnyDomain = false

    @Flag(name: .customLong("allow-unverified"), help: "Testing: accept markup without a valid aligned DKIM signature.")
    var allowUnverified = false

    var settings: PolicySettings {
        PolicySettings(allowDomain: allowDomain, allowedDomainsFile: allowedDomainsFile,
                       allowAnyDomain: allowAnyDomain, allowUnverified: allowUnverified)
    }
}

/// The values of `PolicyOptions`.
struct PolicySettings {
    var allowDomain: [String] = []
    var allowedDomainsFile: String?
    var allowAnyDomain = false
    var allowUnverified = false
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

    func resolve() throws -> Int64 { try Self.resolve(now) }

    static func resolve(_ now: String?) throws -> Int64 {
        guard let now else { return Clock.systemNow() }
        guard let epoch = Clock.parse(now) else {
            throw ValidationError("--now must be an ISO 8601 date-time with an offset, e.g. 2026-11-22T12:00:00Z (got \(now))")
        }
        return epoch
    }
}
