/// The options the commands share, spelled once: `reservoir`'s argument parser declares them
/// from here, and the filter hook's own argument reader (``FilterHook/init(arguments:)``)
/// reads by it.
package enum CommonOption: String, CaseIterable, Sendable {
    case keys
    case dnsServer = "dns-server"
    case dnsTimeout = "dns-timeout"
    case allowDomain = "allow-domain"
    case allowedDomains = "allowed-domains"
    case me
    case allowAnyDomain = "allow-any-domain"
    case allowUnverified = "allow-unverified"
    case store
    case now
    case authservID = "authserv-id"
    case timeout
    case noStore = "no-store"
    case calendar
    case netrc
    case calendarCA = "calendar-ca"
    case deleteCancelled = "delete-cancelled"
    case includePast = "include-past"

    /// The long name as typed, `--` included.
    package var flag: String { "--" + rawValue }

    /// The name of the value it takes; nil for a flag.
    package var valueName: String? {
        switch self {
        case .keys, .allowedDomains: "file"
        case .dnsServer: "host[:port]"
        case .dnsTimeout, .timeout: "seconds"
        case .allowDomain: "domain"
        case .me: "address"
        case .store: "url"
        case .now: "time"
        case .authservID: "name"
        case .calendar: "url"
        case .netrc, .calendarCA: "file"
        case .allowAnyDomain, .allowUnverified, .noStore, .deleteCancelled, .includePast: nil
        }
    }

    /// One line of help.
    package var help: String {
        switch self {
        case .keys: "Read DKIM keys from this zone-file subset instead of DNS."
        case .dnsServer: "Query this nameserver for DKIM keys."
        case .dnsTimeout: "Seconds to wait for a DNS answer."
        case .allowDomain: "Accept markup from this From domain (repeatable; a leading dot includes subdomains)."
        case .allowedDomains: "Accept markup from the domains listed in this file, one a line."
        case .me: "Trust markup only in mail whose signed To or Cc names this address (repeatable; @domain for a whole domain)."
        case .allowAnyDomain: "Testing: accept markup from any From domain with an aligned DKIM signature."
        case .allowUnverified: "Testing: accept markup without a valid aligned DKIM signature."
        case .store: "Where events are kept: sqlite:PATH (default: $XDG_DATA_HOME/reservoir/events.sqlite3) or postgres://user@host/db."
        case .now: "Pin the clock (ISO 8601 with offset), for replays and tests."
        case .authservID: "The authserv-id of the Authentication-Results field (default: the host name)."
        case .timeout: "Seconds before the message is passed through with a temperror result."
        case .noStore: "Do not record anything."
        case .calendar: "Deliver stored events to this calendar: a CalDAV collection URL (https://host/path/) or vdir:PATH (repeatable)."
        case .netrc: "Read CalDAV credentials from this netrc file (default: ~/.netrc; refused unless mode 0600)."
        case .calendarCA: "Trust this CA certificate file for CalDAV servers (self-signed servers), besides the system's."
        case .deleteCancelled: "Remove cancelled events from calendars instead of keeping them marked cancelled."
        case .includePast: "Store reservations that already ended (archives, replays); normally they are skipped with the note ended."
        }
    }

    /// The option whose flag is `text`, if any.
    package init?(flag text: Substring) {
        guard text.hasPrefix("--"), let option = CommonOption(rawValue: String(text.dropFirst(2))) else { return nil }
        self = option
    }
}

/// Which store a command uses.
package enum StoreChoice: Sendable, Equatable {
    /// None: the command records nothing.
    case none
    /// The embedded default (`$XDG_DATA_HOME/reservoir/events.sqlite3`).
    case standard
    /// `sqlite:PATH` or `postgres://…`, as given.
    case at(String)

    /// `--store URL` when given, else the default.
    package init(_ url: String?) {
        self = url.map(StoreChoice.at) ?? .standard
    }

    /// The location `EventStoreLocation.open` takes: nil for the default.
    var location: String?? {
        switch self {
        case .none: nil
        case .standard: .some(nil)
        case .at(let url): .some(url)
        }
    }
}
