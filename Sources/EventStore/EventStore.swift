public import ReservoirBase

/// Where calendar events live. Every implementation keeps the same contract:
///
/// - a store handle holds one ``Account``'s bookings: it reads, changes and lists that
///   account's events, history and deliveries only, whatever account a key names;
/// - one event per ``EventKey``; a later message with the same key updates it, a
///   cancellation marks it cancelled (kept, with the times and place it does not restate:
///   ``EventRevision/keepingStored(_:stored:)``), the same message again changes nothing;
/// - a message older (by its signed send time, then arrival) than the one that last changed an event does
///   not overwrite it;
/// - an event is filed under the owner of the proof that vouched for its message, so only
///   that owner's messages reach it;
/// - every change is recorded in the history with the message that caused it;
/// - concurrent writers (parallel deliveries) never lose a change nor create a duplicate.
public protocol EventStore: AnyObject {
    /// Whose bookings this handle holds.
    var account: Account { get }
    /// The role the store logs in as when row-level security does not hold it; nil otherwise
    /// (the default: a store without such a boundary).
    func roleBypassingRowSecurity() throws(EventStoreError) -> String?
    /// Applies the version `revise` makes of the event stored under `key`: it is given that
    /// event (nil when none is stored) inside the transaction that writes, and returns the
    /// version to apply, whose key is taken to be `key` filed under the handle's account and the
    /// owner of `message` (as every version is). A version relative to the stored one
    /// (an invitation's cancellation changes the status and keeps the rest, RFC 5546 §3.2.5)
    /// is made this way, so that no other writer's change falls between the read and the
    /// write. `revise` may be called more than once when a backend retries.
    func apply(
        _ key: EventKey, from message: MessageProvenance, revising revise: (StoredEvent?) -> CalendarEvent
    ) throws(EventStoreError) -> EventChange
    /// All stored events ordered by start time.
    func events() throws(EventStoreError) -> [StoredEvent]
    /// The stored items of booking `container` that `owner` owns (every instance of an
    /// invitation's UID), ordered by start time.
    func events(inBooking container: String, ownedBy owner: BookingOwner) throws(EventStoreError) -> [StoredEvent]
    func event(_ key: EventKey) throws(EventStoreError) -> StoredEvent?
    /// History of every item of one booking (or of every booking whose container or item
    /// matches `id`), oldest first.
    func history(_ id: String) throws(EventStoreError) -> [HistoryEntry]
    /// Runs `body`, whose `apply` calls are committed together when it returns: all of them or,
    /// when this throws, none. An `apply` that fails inside still undoes only its own change.
    /// A scan groups a few dozen messages this way instead of committing each one.
    func grouped(_ body: () -> Void) throws(EventStoreError)
    /// Removes the events of booking `id` (a container), or the one event `id` names as
    /// `container/item`, recording a `forgotten` line in each one's history; returns them as
    /// they were. A calendar that holds one of them still has its record, without an event, so
    /// the next push removes it there (``DeliveryLedger/forgottenDeliveries(to:)``).
    func forget(_ id: String, at time: Int64) throws(EventStoreError) -> [StoredEvent]

    // The store's other roles: each is this store through that role's protocol, or nil when
    // it does not keep it (a test's memory store keeps none). Every store states each one, so
    // a caller names the role it needs instead of casting, and a store that gains a role's
    // conformance without saying so does not compile.

    /// Every account of the store (`reservoir accounts`).
    var directory: (any AccountDirectory)? { get }
    /// Which Maildir files a scan has read.
    var scanState: (any ScanStateStore)? { get }
    /// How far `reservoir watch` has read each IMAP mailbox.
    var imapState: (any IMAPStateStore)? { get }
    /// What each calendar holds of the account's events.
    var ledger: (any DeliveryLedger)? { get }
    /// The sender domains waiting for the person's choice, and the choices.
    var senders: (any SenderStore)? { get }
}

/// The one path that sees every account of a store: which accounts hold bookings, with their
/// counts (`reservoir accounts`). Nothing else reads across accounts.
public protocol AccountDirectory: AnyObject {
    func accounts() throws(EventStoreError) -> [AccountSummary]
}

/// One account of a store and what it holds.
public struct AccountSummary: Sendable, Equatable {
    public var account: Account
    public var events: Int
    /// Calendar copies not yet at their event's sequence: over every destination tried, as the
    /// store counts them, or over the account's configured calendars when its reader knows them
    /// (``calendarsKnown``), events never tried included.
    public var pendingDeliveries: Int
    /// Whether ``pendingDeliveries`` counts over the account's configured calendars.
    public var calendarsKnown = false
    /// When the oldest waiting copy's event last changed (Unix seconds); nil when none waits.
    public var oldestWaiting: Int64?
    /// The sender domains whose reservations wait for the person's choice.
    public var pendingSenders: [String] = []

    public init(account: Account, events: Int, pendingDeliveries: Int) {
        self.account = account
        self.events = events
        self.pendingDeliveries = pendingDeliveries
    }
}

extension EventStore {
    /// Applies `event` as the new version of its key.
    public func apply(_ event: CalendarEvent, from message: MessageProvenance) throws(EventStoreError) -> EventChange {
        try apply(event.key, from: message) { _ in event }
    }

    /// Stores without group commits commit every `apply` on its own.
    public func grouped(_ body: () -> Void) throws(EventStoreError) { body() }

    /// The role this handle logs in as if the database's row-level security does not hold it
    /// (a PostgreSQL superuser or a role with BYPASSRLS); nil for a store without such a
    /// boundary, or when it holds.
    public func roleBypassingRowSecurity() throws(EventStoreError) -> String? { nil }
}

/// A message file a scan has read: its identity across Maildir moves, size and mtime, and what
/// reading it came to under which settings, so that a change of the trust settings reads again
/// the messages whose outcome it could change (`reservoir scan`, docs/USAGE.md).
public struct ScannedFile: Sendable, Equatable {
    public var key: String
    public var size: Int64
    public var modified: Int64
    /// What the reading came to, as the pipeline's `ScanOutcome` writes it (`none`, `trusted`,
    /// `untrusted-domain-not-allowed`, …); nil for a file an older reservoir recorded.
    public var outcome: String?
    /// The fingerprint of the settings that outcome depended on when it was read; nil with
    /// ``outcome``.
    public var settings: String?

    public init(key: String, size: Int64, modified: Int64, outcome: String? = nil, settings: String? = nil) {
        self.key = key
        self.size = size
        self.modified = modified
        self.outcome = outcome
        self.settings = settings
    }
}

/// A store that remembers which files a scan has read, so the next scan of an unchanged
/// Maildir reads nothing again.
public protocol ScanStateStore: AnyObject {
    func scannedFiles() throws(EventStoreError) -> [String: ScannedFile]
    /// Records files as read (their outcome and settings included); called after their
    /// reservations were applied.
    func markScanned(_ files: [ScannedFile]) throws(EventStoreError)
}

/// Where reading an IMAP mailbox stopped: the mailbox's UIDVALIDITY and the highest UID read
/// (RFC 9051 §2.3.1.1: UIDs only grow while UIDVALIDITY stays the same).
public struct IMAPMailboxState: Sendable, Equatable {
    public var uidValidity: Int64
    public var lastUID: Int64

    public init(uidValidity: Int64, lastUID: Int64) {
        self.uidValidity = uidValidity
        self.lastUID = lastUID
    }
}

/// A store that remembers, per account and mailbox URL, how far `reservoir watch` has read, so
/// the next run fetches only messages with a higher UID.
public protocol IMAPStateStore: AnyObject {
    /// The state recorded for `mailboxURL` (its form without user information), nil when none.
    func imapMailboxState(_ mailboxURL: String) throws(EventStoreError) -> IMAPMailboxState?
    /// Records the state after the messages up to `state.lastUID` were applied.
    func recordIMAPMailboxState(_ mailboxURL: String, _ state: IMAPMailboxState) throws(EventStoreError)
}
