/// Where calendar events live. Every implementation keeps the same contract:
///
/// - one event per ``EventKey``; a later message with the same key updates it, a
///   cancellation marks it cancelled (kept), the same message again changes nothing;
/// - a message older (by its signed send time, then arrival) than the one that last changed an event does
///   not overwrite it;
/// - only the signing domain that created an event may change it;
/// - every change is recorded in the history with the message that caused it;
/// - concurrent writers (parallel deliveries) never lose a change nor create a duplicate.
public protocol EventStore: AnyObject {
    func apply(_ event: CalendarEvent, from message: MessageProvenance) throws(EventStoreError) -> EventChange
    /// All stored events ordered by start time.
    func events() throws(EventStoreError) -> [StoredEvent]
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
}

extension EventStore {
    /// Stores without group commits commit every `apply` on its own.
    public func grouped(_ body: () -> Void) throws(EventStoreError) { body() }
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
