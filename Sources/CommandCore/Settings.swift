package import ICalendar
package import Trust

/// Where DKIM keys come from: the values of `reservoir`'s `--keys`, `--dns-server` and
/// `--dns-timeout`, for code that runs without the argument parser (the filter hook).
package struct KeySettings {
    package var keysFile: String?
    package var dnsServer: String?
    package var dnsTimeout = Self.defaultDNSTimeout

    /// Seconds to wait for a DNS answer, unless `--dns-timeout` says otherwise.
    package static let defaultDNSTimeout = 5

    package init(keysFile: String? = nil, dnsServer: String? = nil, dnsTimeout: Int = Self.defaultDNSTimeout) {
        self.keysFile = keysFile
        self.dnsServer = dnsServer
        self.dnsTimeout = dnsTimeout
    }
}

/// The trust policy switches (see docs/USAGE.md): `--allow-domain`, `--allowed-domains`,
/// `--me`, `--allow-any-domain`, `--allow-unverified`.
package struct PolicySettings {
    package var allowDomain: [String] = []
    package var allowedDomainsFile: String?
    /// The user's addresses (`--me`): markup must come in a message whose signed To or Cc names one.
    package var me: [String] = []
    package var allowAnyDomain = false
    package var allowUnverified = false
    /// `--pass-ca`: the PEM files a Wallet pass's signer must chain to.
    package var passCA: [String] = []
    /// `--allow-pass-type`: the pass type identifiers whose passes are trusted.
    package var allowPassType: [String] = []
    /// `--trust-authserv-id`: the user's own verifier, for forwards.
    package var trustAuthservID: String?
    /// `--authserv-id`: the filter's own, never taken for the user's verifier's.
    package var ownAuthservID: String?
    /// `--trust-arc-sealer`: the ARC sealers whose recorded DKIM result is accepted.
    package var trustARCSealers: [String] = []
    /// `--rail-keys`: the UIC key list rail tickets' signatures are verified with.
    package var railKeys: String?
    /// `--recipient-delimiter`: `jane+trips@` in a signed To or Cc names `jane@`.
    package var recipientDelimiter = RecipientDelimiter.standard

    package init(
        allowDomain: [String] = [], allowedDomainsFile: String? = nil, me: [String] = [],
        allowAnyDomain: Bool = false, allowUnverified: Bool = false, passCA: [String] = [], allowPassType: [String] = [],
        trustAuthservID: String? = nil, ownAuthservID: String? = nil, trustARCSealers: [String] = [], railKeys: String? = nil
    ) {
        self.railKeys = railKeys
        self.passCA = passCA
        self.allowPassType = allowPassType
        self.trustAuthservID = trustAuthservID
        self.ownAuthservID = ownAuthservID
        self.trustARCSealers = trustARCSealers
        self.allowDomain = allowDomain
        self.allowedDomainsFile = allowedDomainsFile
        self.me = me
        self.allowAnyDomain = allowAnyDomain
        self.allowUnverified = allowUnverified
    }
}

/// Where stored events are delivered: the values of `--calendar`, `--netrc`, `--calendar-ca`
/// and `--delete-cancelled` (docs/CALENDARS.md).
package struct CalendarSettings: Sendable, Equatable {
    package var calendars: [String] = []
    package var netrcFile: String?
    package var caFile: String?
    package var deleteCancelled = false
    /// `--no-calendar`: ``calendars`` is empty for this run, whatever was configured.
    package var skipped = false
    /// The login whose netrc entry a CalDAV calendar takes when the netrc has several for its
    /// host: the run's account (``CalDAVSettings/login``).
    package var netrcLogin: String?
    /// The configuration file's export settings (`reminders`, `calendar-color`) the events are
    /// written with; the defaults without a file.
    package var reminders: ReminderSettings = .standard
    package var color: String?

    package init(
        calendars: [String] = [], netrcFile: String? = nil, caFile: String? = nil, deleteCancelled: Bool = false, skipped: Bool = false
    ) {
        self.calendars = calendars
        self.netrcFile = netrcFile
        self.caFile = caFile
        self.deleteCancelled = deleteCancelled
        self.skipped = skipped
    }
}
