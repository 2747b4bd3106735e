import Glibc
import Trust

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
    case passCA = "pass-ca"
    case allowPassType = "allow-pass-type"
    case railKeys = "rail-keys"
    case allowAnyDomain = "allow-any-domain"
    case allowUnverified = "allow-unverified"
    case store
    case account
    case now
    case authservID = "authserv-id"
    case timeout
    case noStore = "no-store"
    case calendar
    case noCalendar = "no-calendar"
    case netrc
    case calendarCA = "calendar-ca"
    case deleteCancelled = "delete-cancelled"
    case includePast = "include-past"
    case retrySpool = "retry-spool"
    case trustAuthservID = "trust-authserv-id"
    case trustARCSealer = "trust-arc-sealer"
    case pendingDays = "pending-days"
    case recipientDelimiter = "recipient-delimiter"

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
        case .passCA, .railKeys: "file"
        case .allowPassType: "identifier"
        case .store: "url"
        case .account: "address"
        case .now: "time"
        case .authservID, .trustAuthservID: "name"
        case .trustARCSealer: "domain"
        case .calendar: "url"
        case .netrc, .calendarCA: "file"
        case .retrySpool: "directory"
        case .pendingDays: "days"
        case .recipientDelimiter: "characters"
        case .allowAnyDomain, .allowUnverified, .noStore, .noCalendar, .deleteCancelled, .includePast: nil
        }
    }

    /// One line of help.
    package var help: String {
        switch self {
        case .keys: "Read DKIM keys from this zone-file subset instead of DNS."
        case .dnsServer: "Query this nameserver for DKIM keys."
        case .dnsTimeout: "Seconds to wait for a DNS answer (default: 5)."
        case .allowDomain: "Accept markup from this From domain (repeatable; a leading dot includes subdomains)."
        case .allowedDomains: "Accept markup from the domains listed in this file, one a line."
        case .me: "Trust markup only in mail whose signed To or Cc names this address (repeatable; @domain for a whole domain)."
        case .passCA: "Trust Wallet passes signed under this CA certificate file (PEM; repeatable), e.g. Apple's WWDR and root certificates."
        case .allowPassType:
            "Trust Wallet passes of this pass type identifier (repeatable; pass.com.example.* for every identifier under it), whoever sent the mail."
        case .railKeys:
            "Trust rail tickets (UIC 918.3 bar codes in PDFs and images) whose railway signature verifies with a key of this UIC public key list (XML), whoever sent the mail."
        case .allowAnyDomain: "Testing: accept markup from any From domain with an aligned DKIM signature."
        case .allowUnverified: "Testing: accept markup without a valid aligned DKIM signature."
        case .store: "Where events are kept: sqlite:PATH (default: $XDG_DATA_HOME/reservoir/events.sqlite3) or postgres://user@host/db."
        case .account:
            "Whose bookings: record and read this mailbox's only, in a store several people share (default: the store's single implicit account)."
        case .now: "Pin the clock (ISO 8601 with offset), for replays and tests."
        case .authservID: "The authserv-id of the Authentication-Results field (default: the host name)."
        case .timeout: "Seconds before the message is passed through with a temperror result (default: 5)."
        case .noStore: "Do not record anything."
        case .calendar: "Deliver stored events to this calendar: a CalDAV collection URL (https://host/path/) or vdir:PATH (repeatable)."
        case .noCalendar:
            "Push nothing to the calendars this run, whatever --calendar or the configuration file says; what is recorded waits for reservoir sync."
        case .netrc: "Read CalDAV credentials from this netrc file (default: ~/.netrc; refused unless mode 0600)."
        case .calendarCA: "Trust this CA certificate file for CalDAV servers (self-signed servers), besides the system's."
        case .deleteCancelled: "Remove cancelled events from calendars instead of keeping them marked cancelled."
        case .includePast: "Store reservations that already ended (archives, replays); normally they are skipped with the note ended."
        case .retrySpool:
            "Keep messages whose reservations met a passing failure (DNS, store, full disk) here for reservoir retry (default: $XDG_STATE_HOME/reservoir/retry)."
        case .trustAuthservID:
            "The authserv-id your own mail server's verifier writes: its topmost Authentication-Results can show a forward came from you (--me)."
        case .trustARCSealer:
            "Weaker trust path, off by default: accept the DKIM result an ARC chain sealed by this domain records (repeatable)."
        case .pendingDays: "Days a genuine sender's reservations wait as pending for reservoir allow or deny (default 30)."
        case .recipientDelimiter:
            "Characters that start a recipient's detail, as Postfix's recipient_delimiter: joe+trips@ is joe@'s account when joe@ is one (default +; empty: none)."
        }
    }

    /// How the configuration file writes the option under its long name (docs/CONFIGURATION.md);
    /// nil for an option the file may not set, for the reason ``fileExclusion`` gives.
    package var fileType: ConfigurationType? {
        switch self {
        case .keys, .dnsServer, .allowedDomains, .store, .account, .authservID, .netrc, .calendarCA, .retrySpool, .trustAuthservID, .railKeys,
            .recipientDelimiter:
            .string
        case .allowDomain, .me, .calendar, .passCA, .allowPassType, .trustARCSealer: .strings
        case .dnsTimeout, .timeout, .pendingDays: .integer
        case .deleteCancelled, .includePast: .boolean
        case .now, .noStore, .noCalendar, .allowAnyDomain, .allowUnverified: nil
        }
    }

    /// Why the file may not set an option: each of these changes one run, not a setup.
    package var fileExclusion: String? {
        switch self {
        case .now: "pins the clock for a replay or a test, one run at a time"
        case .noStore: "turns recording off for one run; a file that did it would make every run record nothing"
        case .noCalendar: "turns calendar delivery off for one run; to turn it off for good, leave calendar out of the file"
        case .allowAnyDomain, .allowUnverified: "is a testing switch, shown loudly in every banner; it is given on the command line only"
        default: nil
        }
    }

    /// The file takes the value as a path: relative to the file's directory, `~/` from `$HOME`.
    package var takesPath: Bool { namesFile || self == .retrySpool }

    /// The option's value names a file that must be readable when the settings are used.
    package var namesFile: Bool {
        switch self {
        case .keys, .allowedDomains, .netrc, .calendarCA, .passCA, .railKeys: true
        default: false
        }
    }

    /// Why `value` is the wrong kind for this option, naming the option that was meant
    /// (`spelled` names an option as the user wrote it: a flag or a file key); nil when it fits.
    /// `--allow-domain` takes domains, never paths; `--allowed-domains` takes a file, and a
    /// value without a slash that has a dot and names no file is a domain.
    package func misuse(of value: String, spelled: (CommonOption) -> String = { $0.flag }) -> String? {
        switch self {
        case .allowDomain where value.utf8.contains(UInt8(ascii: "/")):
            "\(spelled(.allowDomain)) takes a domain, and \(value) is a path: did you mean \(spelled(.allowedDomains)) \(value)?"
        case .allowedDomains
        where !value.utf8.contains(UInt8(ascii: "/")) && value.utf8.contains(UInt8(ascii: ".")) && access(value, F_OK) != 0:
            "\(spelled(.allowedDomains)) takes a file of domains, and \(value) looks like a domain, not an existing file: did you mean \(spelled(.allowDomain)) \(value)?"
        case .recipientDelimiter where RecipientDelimiter(value) == nil:
            "\(spelled(.recipientDelimiter)) takes characters among \(String(decoding: RecipientDelimiter.allowed, as: UTF8.self)) (none: off); got \(value)"
        default: nil
        }
    }

    /// The option whose flag is `text`, if any.
    package init?(flag text: Substring) {
        guard text.hasPrefix("--"), let option = CommonOption(rawValue: String(text.dropFirst(2))) else { return nil }
        self = option
    }
}

/// The TOML type a configuration key takes (TOML 1.0.0 "String", "Array", "Integer", "Boolean").
package enum ConfigurationType: Sendable {
    case string, strings, integer, boolean

    /// As messages name it.
    package var name: String {
        switch self {
        case .string: "a string"
        case .strings: "an array of strings"
        case .integer: "an integer"
        case .boolean: "a boolean (true or false)"
        }
    }
}

/// Which store a command uses.
package enum StoreChoice: Sendable, Equatable {
    /// None: the command records nothing.
    case none
    /// The embedded default (`$XDG_DATA_HOME/reservoir/events.sqlite3`).
    case standard
    /// `sqlite:PATH` or `postgres://…`, as given; `createDirectories` with `--create`.
    case at(String, createDirectories: Bool)

    /// `--store URL` when given, else the default.
    package init(_ url: String?, createDirectories: Bool = false) {
        self = url.map { .at($0, createDirectories: createDirectories) } ?? .standard
    }

    /// The location `EventStoreLocation.open` takes (nil for the default) and how a missing
    /// store is made; nil for no store.
    var location: (url: String?, use: StoreUse)? {
        switch self {
        case .none: nil
        case .standard: (nil, .record(createDirectories: true))
        case .at(let url, let create): (url, .record(createDirectories: create))
        }
    }
}

/// What a command does with its store, which decides whether a missing one is made.
package enum StoreUse: Sendable, Equatable {
    /// Reads it (`events`): it must exist (exit 66 with its path), and is opened read-only when
    /// it cannot be written.
    case read
    /// Changes what it holds without recording mail (`forget`, `sync`): it must exist.
    case update
    /// Records into it: a new store is made where its directory exists, and with its
    /// directories when `createDirectories` (the default location, `--create`).
    case record(createDirectories: Bool)
}
