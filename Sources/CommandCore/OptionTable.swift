import EventStore
import Glibc
import Trust

/// The options the commands share, each declared once (``declaration``): `reservoir`'s argument
/// parser names and explains them from here, the configuration file's reader takes its keys,
/// kinds and paths from here (``ConfigurationFile``), `reservoir config` lists and defaults them
/// from here, the filter hook's and the milter's own argument readers read by it, and the man
/// pages are made from the parser's help.
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

    /// Everything said of the option, in one place.
    package var declaration: OptionDeclaration {
        switch self {
        case .keys:
            .init(.string, "file", "Read DKIM keys from this zone-file subset instead of DNS.", value: .readableFile, standard: "(DNS)")
        case .dnsServer:
            .init(.string, "host[:port]", "Query this nameserver for DKIM keys.", standard: "(the system's resolvers, /etc/resolv.conf)")
        case .dnsTimeout:
            .init(.integer, "seconds", "Seconds to wait for a DNS answer (default: 5).", standard: "5")
        case .allowDomain:
            .init(
                .strings, "domain", "Accept markup from this From domain (repeatable; a leading dot includes subdomains).", where: .alsoAccountTables,
                standard: "[]")
        case .allowedDomains:
            .init(.string, "file", "Accept markup from the domains listed in this file, one a line.", value: .readableFile)
        case .me:
            .init(
                .strings, "address", "Trust markup only in mail whose signed To or Cc names this address (repeatable; @domain for a whole domain).",
                standard: "[]")
        case .passCA:
            .init(
                .strings, "file",
                "Trust Wallet passes signed under this CA certificate file (PEM; repeatable), e.g. Apple's WWDR and root certificates.",
                value: .readableFile, standard: "[]")
        case .allowPassType:
            .init(
                .strings, "identifier",
                "Trust Wallet passes of this pass type identifier (repeatable; pass.com.example.* for every identifier under it), whoever sent the mail.",
                where: .alsoAccountTables, standard: "[]")
        case .railKeys:
            .init(
                .string, "file",
                "Trust rail tickets (UIC 918.3 bar codes in PDFs and images) whose railway signature verifies with a key of this UIC public key list (XML), whoever sent the mail.",
                value: .readableFile)
        case .allowAnyDomain:
            .flag(
                "Testing: accept markup from any From domain with an aligned DKIM signature.",
                where: .commandLineOnly(because: "is a testing switch, shown loudly in every banner; it is given on the command line only"))
        case .allowUnverified:
            .flag(
                "Testing: accept markup without a valid aligned DKIM signature.",
                where: .commandLineOnly(because: "is a testing switch, shown loudly in every banner; it is given on the command line only"))
        case .store:
            .init(
                .string, "url",
                "Where events are kept: sqlite:PATH (default: $XDG_DATA_HOME/reservoir/events.sqlite3) or postgres://user@host/db.",
                standard: nil)
        case .account:
            .init(
                .string, "address",
                "Whose bookings: record and read this mailbox's only, in a store several people share (default: the store's single implicit account).",
                standard: "(the store's implicit account)")
        case .now:
            .init(
                .string, "time", "Pin the clock (ISO 8601 with offset), for replays and tests.",
                where: .commandLineOnly(because: "pins the clock for a replay or a test, one run at a time"))
        case .authservID:
            .init(.string, "name", "The authserv-id of the Authentication-Results field (default: the host name).", standard: nil)
        case .timeout:
            .init(.integer, "seconds", "Seconds before the message is passed through with a temperror result (default: 5).", standard: "5")
        case .noStore:
            .flag(
                "Do not record anything.",
                where: .commandLineOnly(because: "turns recording off for one run; a file that did it would make every run record nothing"))
        case .calendar:
            .init(
                .strings, "url",
                "Deliver stored events to this calendar: a CalDAV collection URL (https://host/path/) or vdir:PATH (repeatable).",
                where: .alsoAccountTables, standard: "[]")
        case .noCalendar:
            .flag(
                "Push nothing to the calendars this run, whatever --calendar or the configuration file says; what is recorded waits for reservoir sync.",
                where: .commandLineOnly(because: "turns calendar delivery off for one run; to turn it off for good, leave calendar out of the file"))
        case .netrc:
            .init(
                .string, "file", "Read CalDAV credentials from this netrc file (default: ~/.netrc; refused unless mode 0600).", value: .readableFile,
                standard: nil)
        case .calendarCA:
            .init(
                .string, "file", "Trust this CA certificate file for CalDAV servers (self-signed servers), besides the system's.",
                value: .readableFile, standard: "(the system's CA certificates)")
        case .deleteCancelled:
            .flag("Remove cancelled events from calendars instead of keeping them marked cancelled.")
        case .includePast:
            .flag("Store reservations that already ended (archives, replays); normally they are skipped with the note ended.")
        case .retrySpool:
            .init(
                .string, "directory",
                "Keep messages whose reservations met a passing failure (DNS, store, full disk) here for reservoir retry (default: $XDG_STATE_HOME/reservoir/retry).",
                value: .path, standard: nil)
        case .trustAuthservID:
            .init(
                .string, "name",
                "The authserv-id your own mail server's verifier writes: its topmost Authentication-Results can show a forward came from you (--me).")
        case .trustARCSealer:
            .init(
                .strings, "domain",
                "Weaker trust path, off by default: accept the DKIM result an ARC chain sealed by this domain records (repeatable).",
                standard: "[]")
        case .pendingDays:
            .init(
                .integer, "days", "Days a genuine sender's reservations wait as pending for reservoir allow or deny (default 30).",
                standard: String(PendingLimits.defaultDays))
        case .recipientDelimiter:
            .init(
                .string, "characters",
                "Characters that start a recipient's detail, as Postfix's recipient_delimiter: joe+trips@ is joe@'s account when joe@ is one (default +; empty: none).",
                standard: "\"+\"")
        }
    }

    /// The long name as typed, `--` included.
    package var flag: String { "--" + rawValue }

    /// The name of the value it takes; nil for a flag.
    package var valueName: String? { declaration.valueName }

    /// One line of help.
    package var help: String { declaration.help }

    /// How the configuration file writes the option under its long name (docs/CONFIGURATION.md);
    /// nil for an option the file may not set, for the reason ``fileExclusion`` gives.
    package var fileType: ConfigurationType? {
        if case .commandLineOnly = declaration.place { nil } else { declaration.kind }
    }

    /// Why the file may not set an option: each of these changes one run, not a setup.
    package var fileExclusion: String? {
        if case .commandLineOnly(let reason) = declaration.place { reason } else { nil }
    }

    /// The file takes the value as a path: relative to the file's directory, `~/` from `$HOME`.
    package var takesPath: Bool { declaration.value != .plain }

    /// The option's value names a file that must be readable when the settings are used.
    package var namesFile: Bool { declaration.value == .readableFile }

    /// Whether an `[accounts."…"]` table may set it (docs/SITE.md).
    package var inAccountTables: Bool { declaration.place == .alsoAccountTables }

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

/// What one shared option is: the kind of value it takes, its help, where it may be given and
/// what applies without it. ``CommonOption/declaration`` holds one for each.
package struct OptionDeclaration: Sendable {
    /// Where an option may be given.
    package enum Place: Sendable, Equatable {
        /// On the command line and in the configuration file.
        case everywhere
        /// There and in an `[accounts."…"]` table too, which adds to the site's value or
        /// replaces it (docs/SITE.md).
        case alsoAccountTables
        /// On the command line only, for the reason given (each changes one run, not a setup).
        case commandLineOnly(because: String)
    }

    /// How a value is taken.
    package enum Value: Sendable, Equatable {
        /// As written.
        case plain
        /// As a path: relative to the configuration file's directory, `~/` from `$HOME`.
        case path
        /// As a path to a file that must be readable when the settings are used.
        case readableFile
    }

    /// Its kind; `.boolean` for a flag.
    package let kind: ConfigurationType
    /// The name of the value it takes; nil for a flag.
    package let valueName: String?
    package let help: String
    package let place: Place
    package let value: Value
    /// What applies without it, as `reservoir config` shows it: a value as TOML writes it, or
    /// what happens in parentheses; nil where it is found when used (a path from the home
    /// directory, the host name), or for nothing.
    package let standard: String?

    init(
        _ kind: ConfigurationType, _ valueName: String, _ help: String, where place: Place = .everywhere, value: Value = .plain,
        standard: String? = nil
    ) {
        self.kind = kind
        self.valueName = valueName
        self.help = help
        self.place = place
        self.value = value
        self.standard = standard
    }

    private init(flag help: String, place: Place) {
        kind = .boolean
        valueName = nil
        self.help = help
        self.place = place
        value = .plain
        standard = "false"
    }

    /// A switch: off unless given.
    static func flag(_ help: String, where place: Place = .everywhere) -> OptionDeclaration { OptionDeclaration(flag: help, place: place) }
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
