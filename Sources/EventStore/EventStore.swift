/// Where calendar events live. Every implementation keeps the same contract:
///
/// - one event per ``EventKey``; a later message with the same key updates it, a
///   cancellation marks it cancelled (kept), the same message again changes nothing;
/// - a message older (by `Date:`, then arrival) than the one that last changed an event does
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
}

extension EventStore {
    /// Stores without group commits commit every `apply` on its own.
    public func grouped(_ body: () -> Void) throws(EventStoreError) { body() }
}

/// Decides what a new version of an event does to the stored one. Shared by every backend
/// so they cannot disagree.
public enum EventRevision {
    public enum Decision: Equatable {
        case update
        case unchanged
        case olderThanStored
        case refusedOtherDomain
    }

    public static func decide(stored: StoredEvent, storedMessageDate: Int64?, storedArrival: Int64?,
                              alreadyApplied: Bool, new event: CalendarEvent,
                              from message: MessageProvenance) -> Decision {
        // Only the domain that vouched for the booking may change it.
        if let owner = stored.ownerDomain, owner != message.signingDomain { return .refusedOtherDomain }
        if alreadyApplied { return .unchanged }
        if let storedDate = storedMessageDate, let date = message.messageDate {
            if date < storedDate { return .olderThanStored }
            if date == storedDate, let storedArrival, message.arrival < storedArrival { return .olderThanStored }
        }
        return stored.event == event ? .unchanged : .update
    }

    /// One line describing what changed between two versions, for the history.
    public static func summary(from old: CalendarEvent?, to new: CalendarEvent) -> String {
        guard let old else { return new.status == .cancelled ? "cancelled (first seen)" : "created" }
        var parts: [String] = []
        if old.status != new.status { parts.append("status \(old.status.rawValue.lowercased()) → \(new.status.rawValue.lowercased())") }
        if old.start?.text != new.start?.text { parts.append("start \(old.start?.text ?? "none") → \(new.start?.text ?? "none")") }
        if old.end?.text != new.end?.text { parts.append("end \(old.end?.text ?? "none") → \(new.end?.text ?? "none")") }
        if old.title != new.title { parts.append("title “\(old.title)” → “\(new.title)”") }
        if old.location != new.location { parts.append("location changed") }
        if parts.isEmpty { parts.append("details changed") }
        return parts.joined(separator: "; ")
    }
}

/// A message file a scan has read: its identity across Maildir moves, size and mtime.
public struct ScannedFile: Sendable, Equatable {
    public var key: String
    public var size: Int64
    public var modified: Int64

    public init(key: String, size: Int64, modified: Int64) {
        self.key = key
        self.size = size
        self.modified = modified
    }
}

/// A store that remembers which files a scan has read, so the next scan of an unchanged
/// Maildir reads nothing again.
public protocol ScanStateStore: AnyObject {
    func scannedFiles() throws(EventStoreError) -> [String: ScannedFile]
    /// Records files as read; called after their reservations were applied.
    func markScanned(_ files: [ScannedFile]) throws(EventStoreError)
}
