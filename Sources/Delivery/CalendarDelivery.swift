public import EventStore
import Glibc
public import ICalendar
import ReservoirBase

/// Pushes stored events to calendar destinations and records what each destination holds.
///
/// For each event a destination does not hold at its current SEQUENCE: claim it in the store
/// (so that concurrent processes push each change once), write it with a conditional request
/// and record the outcome (RFC 4791 §5.3.2, RFC 7232 §3). An event never pushed there is
/// created with `If-None-Match: *`. A copy the destination holds, or one the create finds, is
/// read first and the store's revision rule decides: a copy whose SEQUENCE is at least the
/// stored one is kept (an edit made there, or another host's push); an older one is merged
/// with the store's revision (``CalendarObjectMerge``: what Reservoir owns is replaced, what
/// the person added there is kept) and written with `If-Match` and the tag read, read again
/// when that fails. A cancellation is pushed as the event with `STATUS:CANCELLED`
/// and its higher SEQUENCE, or removed with ``Options/deleteCancelled``.
///
/// Nothing here changes the store's events: a failed push leaves the event waiting, and the
/// next push or `reservoir sync` finds it again.
public struct CalendarDelivery {
    public struct Options: Sendable {
        /// Remove cancelled events from the destination instead of keeping them cancelled.
        public var deleteCancelled: Bool
        /// Longest single request.
        public var requestTimeoutMilliseconds: Int64

        public init(deleteCancelled: Bool = false, requestTimeoutMilliseconds: Int64 = Self.defaultRequestTimeoutMilliseconds) {
            self.deleteCancelled = deleteCancelled
            self.requestTimeoutMilliseconds = requestTimeoutMilliseconds
        }

        /// A request's time limit unless a deadline is nearer.
        public static let defaultRequestTimeoutMilliseconds: Int64 = 10_000
    }

    /// How long a claim holds: longer than the requests of one event take together (a read
    /// and up to ``writeAttempts`` writes, each after a read: seven of at most 10 s), so a live
    /// pusher keeps it; a dead one's claim expires and the event is taken up again.
    public static let claimSeconds: Int64 = 120

    private let ledger: any DeliveryLedger
    private let destinations: [(destination: CalendarDestination, collection: any CalendarCollection)]
    private let options: Options
    private let owner: String
    private let clock: () -> Int64
    private let writer: ICalendarWriter

    /// `clock` gives Unix seconds (the records' times and the claims' expiry); `writer` writes
    /// the objects (its reminders).
    public init(
        ledger: any DeliveryLedger, destinations: [(destination: CalendarDestination, collection: any CalendarCollection)],
        options: Options = Options(), writer: ICalendarWriter = ICalendarWriter(), clock: @escaping () -> Int64
    ) {
        self.writer = writer
        self.ledger = ledger
        self.destinations = destinations
        self.options = options
        self.clock = clock
        self.owner = Self.ownerName()
    }

    /// Pushes the events of `keys` (those a message just changed) to every destination; the
    /// events a destination already holds at their SEQUENCE are left alone.
    public func push(_ keys: [EventKey], deadline: Deadline = .none) -> [DeliveryAttempt] {
        forEachDestination(
            list: { _ in keys },
            attempt: { key, destination, collection in pushOne(key, pending: nil, to: destination, collection, deadline: deadline) })
    }

    /// Pushes every event a destination does not hold at its current SEQUENCE (`reservoir sync`,
    /// and `scan` after it records).
    public func pushPending(deadline: Deadline = .none) -> [DeliveryAttempt] {
        forEachDestination(
            list: { destination throws(EventStoreError) in try ledger.pendingDeliveries(to: destination.name) },
            attempt: { entry, destination, collection in
                pushOne(entry.event.event.key, pending: entry, to: destination, collection, deadline: deadline)
            })
    }

    /// Removes from every destination the copies of events the store no longer holds
    /// (`reservoir forget`). The user asked for them to go: a copy changed there since is removed
    /// too. `reservoir sync` and `scan` run this with ``pushPending(deadline:)``.
    public func removeForgotten(deadline: Deadline = .none) -> [DeliveryAttempt] {
        forEachDestination(
            list: { destination throws(EventStoreError) in try ledger.forgottenDeliveries(to: destination.name) },
            attempt: { record, destination, collection in removeOne(record, from: destination, collection, deadline: deadline) })
    }

    /// Runs `attempt` on each item `list` gives for each destination. A destination whose list
    /// the store cannot give is reported once. After a failure that says the destination itself
    /// is down, silent or refuses the credentials, its other items wait for the next run instead
    /// of each waiting for its own time-out.
    private func forEachDestination<Item>(
        list: (CalendarDestination) throws(EventStoreError) -> [Item],
        attempt: (Item, CalendarDestination, any CalendarCollection) -> DeliveryAttempt?
    ) -> [DeliveryAttempt] {
        var attempts: [DeliveryAttempt] = []
        for (destination, collection) in destinations {
            let items: [Item]
            do {
                items = try list(destination)
            } catch {
                attempts.append(
                    DeliveryAttempt(
                        destination: destination, key: nil, uid: nil, sequence: nil,
                        outcome: .failed(DeliveryFailure(.localFile, "the store failed: \(error.message)"))))
                continue
            }
            for item in items {
                guard let made = attempt(item, destination, collection) else { continue }
                attempts.append(made)
                if made.outcome.endsDestination { break }
            }
        }
        return attempts
    }

    private func removeOne(
        _ record: DeliveryRecord, from destination: CalendarDestination, _ collection: any CalendarCollection, deadline: Deadline
    ) -> DeliveryAttempt {
        let key = record.key
        func attempt(_ outcome: DeliveryOutcome) -> DeliveryAttempt {
            DeliveryAttempt(
                destination: destination, key: key, uid: record.uid, sequence: record.deliveredSequence,
                outcome: outcome)
        }
        if deadline.hasPassed { return attempt(.failed(DeliveryFailure(.outOfTime, "the time budget ended first"))) }
        do {
            let now = clock()
            guard
                try ledger.claimDelivery(
                    of: key, uid: record.uid, to: destination.name, by: owner, now: now, until: now + Self.claimSeconds)
            else {
                return attempt(.claimedElsewhere)
            }
            let name = Self.resourceName(uid: record.uid)
            // The tag of the copy pushed first; when the copy changed there since, it goes anyway.
            var answer = collection.delete(name, etag: record.etag, deadline: deadline)
            if answer == .preconditionFailed { answer = collection.delete(name, etag: nil, deadline: deadline) }
            switch answer {
            case .done, .notFound:
                try ledger.finishDelivery(of: key, to: destination.name, by: owner, result: .removed, at: clock())
                return attempt(.deleted)
            case .preconditionFailed:
                let failure = DeliveryFailure(.conflict, "the copy changed while removing it")
                try ledger.finishDelivery(of: key, to: destination.name, by: owner, result: .failed(reason: failure.description), at: clock())
                return attempt(.failed(failure))
            case .failed(let failure):
                try ledger.finishDelivery(of: key, to: destination.name, by: owner, result: .failed(reason: failure.description), at: clock())
                return attempt(.failed(failure))
            }
        } catch {
            return attempt(.failed(DeliveryFailure(.localFile, "the store failed: \(error.message)")))
        }
    }

    /// What waits for each destination after a push: events it does not hold at their
    /// SEQUENCE, with the last failure.
    public func waiting() throws(EventStoreError) -> [(destination: CalendarDestination, pending: PendingDelivery)] {
        var result: [(destination: CalendarDestination, pending: PendingDelivery)] = []
        for (destination, _) in destinations {
            for pending in try ledger.pendingDeliveries(to: destination.name) {
                result.append((destination, pending))
            }
        }
        return result
    }

    /// Copies of forgotten events each destination still holds, with the last failure.
    public func waitingRemovals() throws(EventStoreError) -> [(destination: CalendarDestination, record: DeliveryRecord)] {
        var result: [(destination: CalendarDestination, record: DeliveryRecord)] = []
        for (destination, _) in destinations {
            for record in try ledger.forgottenDeliveries(to: destination.name) {
                result.append((destination, record))
            }
        }
        return result
    }

    /// One event to one destination; nil when there was nothing to do (up to date).
    private func pushOne(
        _ key: EventKey, pending known: PendingDelivery?, to destination: CalendarDestination, _ collection: any CalendarCollection,
        deadline: Deadline
    ) -> DeliveryAttempt? {
        var known = known
        func attempt(_ outcome: DeliveryOutcome, _ event: StoredEvent?) -> DeliveryAttempt {
            DeliveryAttempt(
                destination: destination, key: key, uid: event?.uid ?? key.calendarUID, sequence: event?.sequence, outcome: outcome)
        }
        if deadline.hasPassed {
            return attempt(.failed(DeliveryFailure(.outOfTime, "the time budget ended first")), known?.event)
        }
        do {
            // The record keeps the copy's UID, which the event was created with.
            if known == nil { known = try ledger.pendingDelivery(of: key, to: destination.name) }
            guard let uid = known?.event.uid else { return nil }
            let now = clock()
            guard
                try ledger.claimDelivery(of: key, uid: uid, to: destination.name, by: owner, now: now, until: now + Self.claimSeconds)
            else {
                return attempt(.claimedElsewhere, known?.event)
            }
            // Read under the claim: another process may have pushed it since the list was made.
            guard let pending = try ledger.pendingDelivery(of: key, to: destination.name) else {
                try ledger.finishDelivery(of: key, to: destination.name, by: owner, result: .released, at: clock())
                return nil
            }
            var unreadable: CalendarObjectMerge.Unreadable?
            let (outcome, result) = deliver(pending, to: collection, deadline: deadline, unreadable: &unreadable)
            try ledger.finishDelivery(of: key, to: destination.name, by: owner, result: result, at: clock())
            var made = attempt(outcome, pending.event)
            made.replacedUnreadableCopy = unreadable
            return made
        } catch {
            return attempt(.failed(DeliveryFailure(.localFile, "the store failed: \(error.message)")), known?.event)
        }
    }

    /// The requests for one event, and what to record. `unreadable` says why a copy found at
    /// the destination was replaced without keeping the person's additions.
    func deliver(
        _ pending: PendingDelivery, to collection: any CalendarCollection, deadline: Deadline,
        unreadable: inout CalendarObjectMerge.Unreadable?
    ) -> (DeliveryOutcome, DeliveryResult) {
        let stored = pending.event
        let name = Self.resourceName(uid: stored.uid)
        let sequence = stored.sequence
        let knownTag = pending.record?.etag
        let heldBefore = pending.record?.deliveredSequence != nil

        func failed(_ failure: DeliveryFailure) -> (DeliveryOutcome, DeliveryResult) {
            (.failed(failure), .failed(reason: failure.description))
        }
        func delivered(_ outcome: DeliveryOutcome, _ etag: String?) -> (DeliveryOutcome, DeliveryResult) {
            (outcome, .delivered(sequence: sequence, etag: etag))
        }

        if stored.event.status == .cancelled && options.deleteCancelled {
            var tag = knownTag
            for _ in 0..<2 {
                if deadline.hasPassed { return failed(DeliveryFailure(.outOfTime, "the time budget ended first")) }
                switch collection.delete(name, etag: tag, deadline: deadline) {
                case .done, .notFound: return delivered(.deleted, nil)
                case .failed(let failure): return failed(failure)
                case .preconditionFailed:
                    switch readBack(name, collection, deadline, sequence: sequence) {
                    case .keep(let remoteTag, let remoteSequence) where remoteSequence > sequence:
                        return delivered(.keptNewerCopy, remoteTag)
                    case .keep(let remoteTag, _): tag = remoteTag
                    case .replace(let remoteTag, _): tag = remoteTag
                    case .missing: return delivered(.deleted, nil)
                    case .failed(let failure): return failed(failure)
                    }
                }
            }
            return failed(DeliveryFailure(.conflict, "the copy at the destination changed twice while removing it"))
        }

        let ours = writer.object(stored)
        var body = ours
        let changed: DeliveryOutcome = stored.event.status == .cancelled ? .cancelled : (heldBefore ? .updated : .created)
        var condition: WriteCondition = .create
        // A copy the destination holds may carry what the person added there (their alarms,
        // notes, categories): it is read, merged with this revision (``CalendarObjectMerge``)
        // and written back on the condition of the tag read (RFC 7232 §3.1 `If-Match`), so an
        // edit made between the read and the write fails the write and is read in turn.
        // Nil when the read decided the outcome.
        func readAndMerge(untagged: String? = nil) -> (DeliveryOutcome, DeliveryResult)? {
            switch readBack(name, collection, deadline, sequence: sequence, untagged: untagged) {
            case .keep(let remoteTag, let remoteSequence):
                return delivered(remoteSequence > sequence ? .keptNewerCopy : .alreadyThere, remoteTag)
            case .replace(let remoteTag, let remoteBody):
                condition = .replace(etag: remoteTag)
                let merged = CalendarObjectMerge.merge(server: remoteBody ?? "", ours: ours)
                body = merged.text
                unreadable = merged.unreadable
            case .missing:
                condition = .create
                body = ours
                unreadable = nil
            case .failed(let failure):
                return failed(failure)
            }
            return nil
        }
        // Never pushed here: created without a read; a copy already there fails the create. A
        // server that sends no tag with the copy is written on the tag of the last push, which
        // holds only while the copy is the one pushed.
        if let knownTag {
            if deadline.hasPassed { return failed(DeliveryFailure(.outOfTime, "the time budget ended first")) }
            if let decided = readAndMerge(untagged: knownTag) { return decided }
        }
        for _ in 0..<Self.writeAttempts {
            if deadline.hasPassed { return failed(DeliveryFailure(.outOfTime, "the time budget ended first")) }
            switch collection.put(name, body: body, condition: condition, deadline: deadline) {
            case .done(let etag, _):
                return delivered(changed, etag)
            case .failed(let failure):
                return failed(failure)
            case .notFound:
                // Removed at the destination since the read: created again, as the booking
                // still exists.
                condition = .create
                body = ours
                unreadable = nil
            case .preconditionFailed:
                if let decided = readAndMerge() { return decided }
            }
        }
        return failed(DeliveryFailure(.conflict, "the copy at the destination changed while pushing"))
    }

    /// Writes of one event before it is a ``DeliveryFailure/Code/conflict``: each after a read
    /// of the copy, which a failed `If-Match` repeats (RFC 7232 §3.1).
    static let writeAttempts = 3

    private enum ReadBack {
        /// The destination's copy is at least as new (`sequence` ≥ stored): keep it.
        case keep(etag: String?, sequence: Int)
        /// The destination's copy is older: replace the one with this tag; its text to merge.
        case replace(etag: String, body: String?)
        case missing
        case failed(DeliveryFailure)
    }

    /// Reads the destination's copy and applies the revision rule against the stored
    /// `sequence`; `untagged` is the tag to replace a copy read without one.
    private func readBack(
        _ name: String, _ collection: any CalendarCollection, _ deadline: Deadline, sequence: Int, untagged: String? = nil
    ) -> ReadBack {
        switch collection.get(name, deadline: deadline) {
        case .notFound: return .missing
        case .failed(let failure): return .failed(failure)
        case .preconditionFailed: return .failed(DeliveryFailure(.refused, "a read was answered 412"))
        case .done(let tag, let body):
            let etag = tag ?? untagged
            let remote = body.flatMap(CalendarObjectRevision.sequence(of:))
            guard let remote else {
                // Not a calendar object: not ours to keep; replace it when it can be named.
                guard let etag else { return .failed(DeliveryFailure(.refused, "\(name) at the destination is not an event and has no tag")) }
                return .replace(etag: etag, body: body)
            }
            if remote >= sequence { return .keep(etag: tag, sequence: remote) }
            guard let etag else { return .failed(DeliveryFailure(.refused, "\(name) at the destination has no tag to replace")) }
            return .replace(etag: etag, body: body)
        }
    }

    /// The resource name of an event: its UID and `.ics` (RFC 4791 §4.1 leaves the name to the
    /// client; vdirsyncer and most servers use the UID).
    public static func resourceName(uid: String) -> String {
        uid + ".ics"
    }

    /// Names this process in claims: host, process and a random part.
    static func ownerName() -> String {
        var host = [CChar](repeating: 0, count: 256)
        gethostname(&host, host.count - 1)
        let hostName = host.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return "\(hostName)/\(getpid())/\(String(UInt64.random(in: 0...UInt64.max), radix: 16))"
    }
}

/// What happened to one event at one destination.
public enum DeliveryOutcome: Sendable, Equatable {
    case created
    case updated
    case cancelled
    case deleted
    /// The destination held the same revision already (pushed before a crash, or by another host).
    case alreadyThere
    /// The destination held a newer revision (SEQUENCE higher than the store's): kept.
    case keptNewerCopy
    /// Another process holds the claim and is pushing it.
    case claimedElsewhere
    case failed(DeliveryFailure)

    /// A failure that says the destination itself cannot be reached or used now, so the other
    /// events need not be tried in this run.
    var endsDestination: Bool {
        guard case .failed(let failure) = self else { return false }
        switch failure.code {
        case .unreachable, .timeout, .tls, .unauthorized, .outOfTime: return true
        case .serverError, .refused, .localFile, .conflict: return false
        }
    }

    /// A stable word for JSON and logs.
    public var word: String {
        switch self {
        case .created: "created"
        case .updated: "updated"
        case .cancelled: "cancelled"
        case .deleted: "deleted"
        case .alreadyThere: "already-there"
        case .keptNewerCopy: "kept-newer-copy"
        case .claimedElsewhere: "claimed-elsewhere"
        case .failed: "failed"
        }
    }
}

/// One event pushed (or not) to one destination.
public struct DeliveryAttempt: Sendable, Equatable {
    public var destination: CalendarDestination
    /// Nil when the destination could not even be listed.
    public var key: EventKey?
    public var uid: String?
    public var sequence: Int?
    public var outcome: DeliveryOutcome
    /// Set when a copy changed at the destination could not be read to merge it
    /// (``CalendarObjectMerge``), so it was replaced by the store's revision as it is.
    public var replacedUnreadableCopy: CalendarObjectMerge.Unreadable?

    public init(
        destination: CalendarDestination, key: EventKey?, uid: String?, sequence: Int?, outcome: DeliveryOutcome,
        replacedUnreadableCopy: CalendarObjectMerge.Unreadable? = nil
    ) {
        self.destination = destination
        self.key = key
        self.uid = uid
        self.sequence = sequence
        self.outcome = outcome
        self.replacedUnreadableCopy = replacedUnreadableCopy
    }
}
