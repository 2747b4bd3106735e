import ReservoirBase

/// The store's rules for a new version of an event, as pure functions: every backend reads
/// the stored row, asks ``step(stored:alreadyApplied:new:from:)`` what to do, and writes what
/// it answers, so backends cannot disagree on a decision, a sequence number or a history word.
public enum EventRevision {
    public enum Decision: Equatable, Sendable {
        case update
        case unchanged
        case olderThanStored
    }

    /// What one `apply` does: the row to write, the history line to record, the change to
    /// report.
    public struct Step: Equatable, Sendable {
        /// The event's new row; nil when the stored row stays as it is. A backend inserts it
        /// when nothing was stored, and replaces the stored row otherwise.
        public var write: EventRow?
        /// The line to add to the history; nil when nothing is recorded (an unchanged event).
        public var record: HistoryEntry?
        public var change: EventChange

        public init(write: EventRow?, record: HistoryEntry?, change: EventChange) {
            self.write = write
            self.record = record
            self.change = change
        }
    }

    /// The revision step for `event` from `message`, given the stored row for its key (nil
    /// when none) and whether the history already holds `message` for that key.
    public static func step(
        stored row: EventRow?, alreadyApplied: Bool, new event: CalendarEvent,
        from message: MessageProvenance
    ) -> Step {
        guard let row else {
            let created = StoredEvent(
                event: event, sequence: 0, createdAt: message.arrival, updatedAt: message.arrival, proof: message.proof)
            let isCancel = event.status == .cancelled
            return Step(
                write: EventRow(created, after: message),
                record: entry(created, isCancel ? .cancelled : .created, message, summary(from: nil, to: event)),
                change: isCancel ? .cancelled(created, previous: nil) : .created(created))
        }
        let stored = row.stored
        let event = keepingStored(event, stored: stored.event)
        switch decide(
            stored: stored, storedMessageDate: row.lastMessageDate, storedArrival: row.lastArrival,
            alreadyApplied: alreadyApplied, new: event, from: message)
        {
        case .update:
            let updated = StoredEvent(
                event: event, sequence: stored.sequence + 1, uid: stored.uid, createdAt: stored.createdAt, updatedAt: message.arrival,
                proof: message.proof)
            let isCancel = event.status == .cancelled && stored.event.status != .cancelled
            return Step(
                write: EventRow(updated, after: message),
                record: entry(updated, isCancel ? .cancelled : .updated, message, summary(from: stored.event, to: event)),
                change: isCancel ? .cancelled(updated, previous: stored) : .updated(updated, previous: stored))
        case .unchanged:
            return Step(write: nil, record: nil, change: .unchanged(stored))
        case .olderThanStored:
            return Step(
                write: nil, record: entry(stored, .olderThanStored, message, "older than the stored version; not applied"),
                change: .olderThanStored(stored))
        }
    }

    /// A cancellation never erases what it does not restate: a cancelled version without a
    /// start keeps the stored start and end, and one without a place, link or details keeps
    /// the stored ones, so the cancelled event still says what was cancelled and a calendar
    /// can still hold it (RFC 5545 §3.6.1: a stored object needs DTSTART). Any other version
    /// is taken as it is. RFC 5546 §3.2.5 lets an iTIP CANCEL carry only UID, DTSTAMP,
    /// ORGANIZER and SEQUENCE; schema.org markup may cancel with the booking number alone.
    public static func keepingStored(_ new: CalendarEvent, stored: CalendarEvent) -> CalendarEvent {
        guard new.status == .cancelled else { return new }
        var kept = new
        if kept.start == nil {
            kept.start = stored.start
            kept.end = stored.end
        }
        if kept.location == nil { kept.location = stored.location }
        if kept.url == nil { kept.url = stored.url }
        if kept.notes.isEmpty { kept.notes = stored.notes }
        return kept
    }

    public static func decide(
        stored: StoredEvent, storedMessageDate: Int64?, storedArrival: Int64?,
        alreadyApplied: Bool, new event: CalendarEvent,
        from message: MessageProvenance
    ) -> Decision {
        // Only the owner that vouched for the booking may change it: the key holds the owner,
        // so another owner's message never reaches this row.
        if alreadyApplied { return .unchanged }
        if let storedDate = storedMessageDate, let date = message.messageDate {
            if date < storedDate { return .olderThanStored }
            if date == storedDate, let storedArrival, message.arrival < storedArrival { return .olderThanStored }
        }
        return stored.event == event ? .unchanged : .update
    }

    /// The history line recording that the user removed `stored` at `time`.
    public static func forgotten(_ stored: StoredEvent, at time: Int64) -> HistoryEntry {
        HistoryEntry(
            key: stored.event.key, sequence: stored.sequence, change: .forgotten, messageID: nil, path: nil,
            signingDomain: nil, messageDate: nil, appliedAt: time, summary: "removed by the user (reservoir forget)")
    }

    /// Whether `id` names `key`: its booking (container), or the event as `container/item`.
    public static func names(_ id: String, _ key: EventKey) -> Bool {
        id == key.container || id == key.description
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

    /// The history line for `stored` at its current sequence, caused by `message`.
    private static func entry(
        _ stored: StoredEvent, _ change: EventChangeKind, _ message: MessageProvenance,
        _ summary: String
    ) -> HistoryEntry {
        HistoryEntry(
            key: stored.event.key, sequence: stored.sequence, change: change, messageID: message.messageID,
            path: message.path, signingDomain: message.owner.isProven ? message.owner.storedText : nil, messageDate: message.messageDate,
            appliedAt: message.arrival, summary: summary)
    }
}

extension EventRow {
    /// The row of `stored` as last changed by `message`.
    init(_ stored: StoredEvent, after message: MessageProvenance) {
        self.init(stored: stored, lastMessageDate: message.messageDate, lastArrival: message.arrival)
    }
}
