import EventStore
import Foundation
import ReservoirBase
import Testing

/// The outbox every backend keeps: an event waits for a destination until the destination
/// holds its current SEQUENCE, and one claim at a time pushes it.
@Suite("Delivery ledger contract")
struct DeliveryLedgerContractTests {
    static let key = EventKey(owner: .domain("epicsteak.example"), container: "IWDSCA", item: "1")
    static let radicale = "caldav:https://cal.example/jane/calendar/"
    static let vdir = "vdir:/home/jane/calendars/reservations"

    @Test("a new event waits for every destination until it is delivered at its sequence", arguments: StoreBackend.available)
    func waitsUntilDelivered(backend: StoreBackend) throws {
        let fresh = try backend.makeStore()
        defer { fresh.cleanup() }
        let ledger = try #require(fresh.store.ledger)
        _ = try fresh.store.apply(dinner(at: "2031-05-12T19:30:00"), from: message("<a@x>", date: 1000))

        for destination in [Self.radicale, Self.vdir] {
            let pending = try ledger.pendingDeliveries(to: destination)
            #expect(pending.map(\.event.event.key) == [Self.key])
            #expect(pending.first?.record == nil)
        }
        #expect(try ledger.claimDelivery(of: Self.key, uid: Self.key.calendarUID, to: Self.radicale, by: "host/1", now: 100, until: 220))
        try ledger.finishDelivery(of: Self.key, to: Self.radicale, by: "host/1", result: .delivered(sequence: 0, etag: "\"e1\""), at: 101)
        #expect(try ledger.pendingDeliveries(to: Self.radicale).isEmpty)
        #expect(try ledger.pendingDelivery(of: Self.key, to: Self.radicale) == nil)
        // The other destination still waits.
        #expect(try ledger.pendingDeliveries(to: Self.vdir).count == 1)

        // Moving the booking raises the sequence: the event waits again, with the tag of the copy pushed.
        _ = try fresh.store.apply(dinner(at: "2031-05-12T18:30:00"), from: message("<b@x>", date: 2000))
        let again = try #require(try ledger.pendingDelivery(of: Self.key, to: Self.radicale))
        #expect(again.event.sequence == 1)
        #expect(again.record?.deliveredSequence == 0)
        #expect(again.record?.etag == "\"e1\"")

        // A second handle (another process) sees the same records.
        let other = try #require(try fresh.reopen().ledger)
        #expect(try other.deliveryRecords().map(\.destination) == [Self.radicale, Self.vdir].filter { $0 == Self.radicale })
    }

    @Test("an event without a start (a cancellation of an event never stored) waits for no destination", arguments: StoreBackend.available)
    func startless(backend: StoreBackend) throws {
        let fresh = try backend.makeStore()
        defer { fresh.cleanup() }
        let ledger = try #require(fresh.store.ledger)
        var cancellation = dinner(at: "2031-05-12T19:30:00", status: .cancelled)
        cancellation.start = nil
        _ = try fresh.store.apply(cancellation, from: message("<a@x>", date: 1000))
        #expect(try fresh.store.event(Self.key)?.event.status == .cancelled)
        #expect(try ledger.pendingDeliveries(to: Self.radicale).isEmpty)
        #expect(try ledger.pendingDelivery(of: Self.key, to: Self.radicale) == nil)
        // The invitation, booked again with a start: it waits.
        _ = try fresh.store.apply(dinner(at: "2031-05-12T19:30:00"), from: message("<b@x>", date: 2000))
        #expect(try ledger.pendingDeliveries(to: Self.radicale).map(\.event.event.key) == [Self.key])
    }

    @Test("a claim held by one process is refused to another until it is finished or expires", arguments: StoreBackend.available)
    func claims(backend: StoreBackend) throws {
        let fresh = try backend.makeStore()
        defer { fresh.cleanup() }
        let ledger = try #require(fresh.store.ledger)
        let other = try #require(try fresh.reopen().ledger)
        _ = try fresh.store.apply(dinner(at: "2031-05-12T19:30:00"), from: message("<a@x>", date: 1000))

        #expect(try ledger.claimDelivery(of: Self.key, uid: Self.key.calendarUID, to: Self.radicale, by: "a", now: 100, until: 220))
        #expect(try !other.claimDelivery(of: Self.key, uid: Self.key.calendarUID, to: Self.radicale, by: "b", now: 150, until: 270))
        // A finish by someone who does not hold the claim records nothing.
        try other.finishDelivery(of: Self.key, to: Self.radicale, by: "b", result: .delivered(sequence: 0, etag: "x"), at: 151)
        #expect(try ledger.pendingDeliveries(to: Self.radicale).count == 1)

        // A failure is recorded with its reason and frees the claim.
        try ledger.finishDelivery(of: Self.key, to: Self.radicale, by: "a", result: .failed(reason: "unreachable: refused"), at: 160)
        let record = try #require(try ledger.pendingDeliveries(to: Self.radicale).first?.record)
        #expect(record.failures == 1)
        #expect(record.lastError == "unreachable: refused")
        #expect(record.lastAttempt == 160)
        #expect(record.deliveredSequence == nil)
        #expect(try other.claimDelivery(of: Self.key, uid: Self.key.calendarUID, to: Self.radicale, by: "b", now: 170, until: 290))

        // A claim whose holder died expires.
        #expect(try !ledger.claimDelivery(of: Self.key, uid: Self.key.calendarUID, to: Self.radicale, by: "a", now: 289, until: 400))
        #expect(try ledger.claimDelivery(of: Self.key, uid: Self.key.calendarUID, to: Self.radicale, by: "a", now: 291, until: 400))
        try ledger.finishDelivery(of: Self.key, to: Self.radicale, by: "a", result: .delivered(sequence: 0, etag: nil), at: 292)
        let done = try ledger.deliveryRecords()
        #expect(done.count == 1)
        #expect(done.first?.failures == 0)
        #expect(done.first?.lastError == nil)
        #expect(done.first?.deliveredSequence == 0)
    }

    @Test("processes claiming at once: exactly one gets each event", arguments: StoreBackend.available)
    func concurrentClaims(backend: StoreBackend) async throws {
        let fresh = try backend.makeStore()
        defer { fresh.cleanup() }
        for item in 1...5 {
            _ = try fresh.store.apply(
                dinner(at: "2031-05-12T19:30:00", item: String(item)), from: message("<\(item)@x>", date: 1000))
        }
        let handles = try (0..<4).map { _ in try #require(try fresh.reopen().ledger) }
        let won = try await withThrowingTaskGroup(of: [String].self) { group in
            for (index, ledger) in handles.enumerated() {
                nonisolated(unsafe) let ledger = ledger
                group.addTask {
                    var mine: [String] = []
                    for item in 1...5 {
                        let key = EventKey(owner: .domain("epicsteak.example"), container: "IWDSCA", item: String(item))
                        if try ledger.claimDelivery(of: key, uid: key.calendarUID, to: Self.radicale, by: "p\(index)", now: 100, until: 200) {
                            mine.append(String(item))
                        }
                    }
                    return mine
                }
            }
            var all: [String] = []
            for try await mine in group { all += mine }
            return all
        }
        #expect(won.sorted() == ["1", "2", "3", "4", "5"])
    }

    @Test(
        "forget removes a booking's events, records it in their history, and leaves the calendars' records for removal",
        arguments: StoreBackend.available)
    func forget(backend: StoreBackend) throws {
        let fresh = try backend.makeStore()
        defer { fresh.cleanup() }
        let store = fresh.store
        let ledger = try #require(store.ledger)
        for item in ["1", "2"] {
            _ = try store.apply(dinner(at: "2031-05-12T19:30:00", item: item), from: message("<\(item)@x>", date: 1000))
        }
        _ = try store.apply(dinner(at: "2031-05-12T19:30:00", container: "OTHER"), from: message("<o@x>", date: 1000))
        // Item 1 is in the calendar, item 2 is not yet.
        #expect(try ledger.claimDelivery(of: Self.key, uid: Self.key.calendarUID, to: Self.radicale, by: "a", now: 100, until: 200))
        try ledger.finishDelivery(of: Self.key, to: Self.radicale, by: "a", result: .delivered(sequence: 0, etag: "\"e1\""), at: 101)

        #expect(try store.forget("NOSUCH", at: 500).isEmpty)
        let gone = try store.forget("IWDSCA", at: 500)
        #expect(gone.map(\.event.key.item).sorted() == ["1", "2"])
        #expect(try store.events().map(\.event.key.container) == ["OTHER"])
        let history = try store.history("IWDSCA")
        #expect(history.filter { $0.change == .forgotten }.map(\.appliedAt) == [500, 500])
        // Only the copy the calendar holds is to be removed; the other never reached it.
        let removals = try ledger.forgottenDeliveries(to: Self.radicale)
        #expect(removals.map(\.key) == [Self.key])
        #expect(removals.first?.etag == "\"e1\"")
        #expect(try ledger.pendingDeliveries(to: Self.radicale).map(\.event.event.key.container) == ["OTHER"])

        #expect(try ledger.claimDelivery(of: Self.key, uid: Self.key.calendarUID, to: Self.radicale, by: "a", now: 600, until: 700))
        try ledger.finishDelivery(of: Self.key, to: Self.radicale, by: "a", result: .removed, at: 601)
        #expect(try ledger.forgottenDeliveries(to: Self.radicale).isEmpty)
        #expect(try ledger.deliveryRecords().isEmpty)

        // One item by RESERVATION/ITEM.
        let one = try store.forget("OTHER/1", at: 700)
        #expect(one.count == 1)
        #expect(try store.events().isEmpty)
    }
}
