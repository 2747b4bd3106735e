import EventStore
import ReservoirBase

@testable import Feed

/// A stored event at a given instant (UTC), for the page and the feed.
func storedEvent(
    container: String = "IWDSCA", item: String = "1", title: String = "Reservation: EPIC Steak",
    start epoch: Int64 = 1_936_400_000, offset: Int? = -25_200, status: EventStatus = .confirmed,
    location: String? = "EPIC Steak, 369 The Embarcadero", owner: BookingOwner? = .domain("epicsteak.example"), updatedAt: Int64 = 1_795_000_000,
    notes: String = "", url: String? = nil, end: Int64? = nil
) -> StoredEvent {
    let local = offset.map { civilText(epoch + Int64($0)) } ?? civilText(epoch)
    let start = EventTime(text: local, local: local, offsetSeconds: offset, epochSeconds: offset == nil ? nil : epoch)
    let endTime = end.map { endEpoch in
        let endLocal = offset.map { civilText(endEpoch + Int64($0)) } ?? civilText(endEpoch)
        return EventTime(text: endLocal, local: endLocal, offsetSeconds: offset, epochSeconds: offset == nil ? nil : endEpoch)
    }
    let event = CalendarEvent(
        key: EventKey(owner: owner ?? .unproven, container: container, item: item), category: .food, title: title, start: start, end: endTime,
        location: location, notes: notes, url: url, status: status, reservationJSON: "{}")
    return StoredEvent(event: event, sequence: 0, createdAt: updatedAt, updatedAt: updatedAt, proof: owner == nil ? nil : .signedMail)
}

/// `YYYY-MM-DDTHH:MM:SS` of a Unix time.
func civilText(_ epoch: Int64) -> String {
    String(UpcomingPage.isoUTC(epoch).dropLast())
}

/// A store in memory; `failure` makes every read fail.
final class MemoryStore: EventStore {
    var stored: [StoredEvent]
    var entries: [HistoryEntry]
    var failure: EventStoreError?
    let account = Account.implicit

    init(_ stored: [StoredEvent], history: [HistoryEntry] = [], failure: EventStoreError? = nil) {
        self.stored = stored
        self.entries = history
        self.failure = failure
    }

    func apply(
        _ key: EventKey, from message: MessageProvenance, revising revise: (StoredEvent?) -> CalendarEvent
    ) throws(EventStoreError) -> EventChange {
        throw EventStoreError(.readOnly, "memory store")
    }

    func forget(_ id: String, at time: Int64) throws(EventStoreError) -> [StoredEvent] {
        throw EventStoreError(.readOnly, "memory store")
    }

    func events() throws(EventStoreError) -> [StoredEvent] {
        if let failure { throw failure }
        return stored.sortedByStart()
    }

    func event(_ key: EventKey) throws(EventStoreError) -> StoredEvent? {
        try events().first { $0.event.key == key }
    }

    func events(inBooking container: String, ownedBy owner: BookingOwner) throws(EventStoreError) -> [StoredEvent] {
        try events().filter { $0.event.key.container == container }
    }

    func history(_ id: String) throws(EventStoreError) -> [HistoryEntry] {
        if let failure { throw failure }
        return entries.filter { $0.key.container == id }
    }

    // A memory store keeps events and their history only.
    var directory: (any AccountDirectory)? { nil }
    var scanState: (any ScanStateStore)? { nil }
    var imapState: (any IMAPStateStore)? { nil }
    var ledger: (any DeliveryLedger)? { nil }
    var senders: (any SenderStore)? { nil }
}
