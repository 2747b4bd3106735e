import EventStore
import Testing

/// The pending senders' contract (``SenderStore``) on each backend: choices and pending
/// reservations kept per account, replaced in place, expired, bounded, removed by domain.
@Suite("Sender store contract")
struct SenderStoreContractTests {
    static func pending(
        _ domain: String, _ container: String, item: String = "1", received: Int64, message: [UInt8] = Array("From: a\r\n\r\nbody".utf8)
    ) -> PendingReservation {
        PendingReservation(
            domain: domain, container: container, item: item, title: "Flight \(container)", start: "2031-05-12T19:30:00-07:00",
            end: nil, reservationJSON: "{\"reservationNumber\":\"\(container)\"}", messageID: "<\(container)@\(domain)>",
            received: received, message: message)
    }

    @Test("choices are kept per domain, a later one replaces the earlier, and another handle reads them", arguments: StoreBackend.available)
    func choices(backend: StoreBackend) throws {
        let fresh = try backend.makeStore()
        defer { fresh.cleanup() }
        let senders = try #require(fresh.store.senders)
        #expect(try senders.senderDecisions().isEmpty)
        try senders.decideSender(SenderDecision(domain: "Airline.Example", choice: .deny, decidedAt: 100, decidedBy: "jane"))
        try senders.decideSender(SenderDecision(domain: "airline.example", choice: .allow, decidedAt: 200, decidedBy: "page"))
        try senders.decideSender(SenderDecision(domain: "spam.example", choice: .deny, decidedAt: 300, decidedBy: "jane"))
        let other = try #require(try fresh.reopen().senders)
        #expect(
            try other.senderDecisions() == [
                SenderDecision(domain: "airline.example", choice: .allow, decidedAt: 200, decidedBy: "page"),
                SenderDecision(domain: "spam.example", choice: .deny, decidedAt: 300, decidedBy: "jane"),
            ])
        #expect(try other.choice(for: "AIRLINE.example") == .allow)
        #expect(try other.choice(for: "hotel.example") == nil)
    }

    @Test("pending reservations keep their message bytes, replace by item, expire and are removed by domain", arguments: StoreBackend.available)
    func pendingRows(backend: StoreBackend) throws {
        let fresh = try backend.makeStore()
        defer { fresh.cleanup() }
        let senders = try #require(fresh.store.senders)
        // Every byte value survives (a message is not text).
        let binary = (0...255).map { UInt8($0) } + Array("\r\n".utf8)
        try senders.keepPending(
            [Self.pending("airline.example", "ABC123", received: 1000, message: binary), Self.pending("hotel.example", "H1", received: 1100)],
            expiringBefore: 0)
        // The same item again: replaced, not doubled.
        try senders.keepPending([Self.pending("airline.example", "ABC123", received: 1200, message: binary)], expiringBefore: 0)
        let other = try #require(try fresh.reopen().senders)
        let listed = try other.pendingReservations(receivedSince: 0)
        #expect(listed.map(\.container) == ["H1", "ABC123"])
        #expect(listed.last?.message == binary)
        #expect(listed.last?.received == 1200)
        // Expired: received before the cut-off.
        #expect(try other.pendingReservations(receivedSince: 1150).map(\.container) == ["ABC123"])
        try senders.keepPending([], expiringBefore: 1150)
        #expect(try senders.pendingReservations(receivedSince: 0).map(\.container) == ["ABC123"])
        let removed = try senders.removePending(domain: "AIRLINE.example")
        #expect(removed.map(\.container) == ["ABC123"])
        #expect(try senders.pendingReservations(receivedSince: 0).isEmpty)
    }

    @Test("past the limit per account, the oldest pending reservations are dropped", arguments: StoreBackend.available)
    func bounded(backend: StoreBackend) throws {
        let fresh = try backend.makeStore()
        defer { fresh.cleanup() }
        let senders = try #require(fresh.store.senders)
        let many = (0..<(PendingLimits.maxPerAccount + 3)).map { Self.pending("airline.example", "R\($0)", received: Int64(1000 + $0)) }
        try senders.keepPending(many, expiringBefore: 0)
        let kept = try senders.pendingReservations(receivedSince: 0)
        #expect(kept.count == PendingLimits.maxPerAccount)
        #expect(kept.first?.container == "R3")
        #expect(kept.last?.container == "R\(PendingLimits.maxPerAccount + 2)")
    }

    @Test("accounts never see each other's choices or pending reservations", arguments: StoreBackend.available)
    func accounts(backend: StoreBackend) throws {
        let fresh = try backend.makeStore()
        defer { fresh.cleanup() }
        let jane = try #require(fresh.scoped(Account(normalizedAddress: "jane@example.org")).senders)
        let joe = try #require(fresh.scoped(Account(normalizedAddress: "joe@example.org")).senders)
        try jane.decideSender(SenderDecision(domain: "airline.example", choice: .allow, decidedAt: 1, decidedBy: "jane"))
        try jane.keepPending([Self.pending("hotel.example", "H1", received: 10)], expiringBefore: 0)
        #expect(try joe.senderDecisions().isEmpty)
        #expect(try joe.pendingReservations(receivedSince: 0).isEmpty)
        #expect(try joe.removePending(domain: "hotel.example").isEmpty)
        #expect(try jane.pendingReservations(receivedSince: 0).map(\.container) == ["H1"])
        // Joe's many pending reservations do not push Jane's out.
        try joe.keepPending(
            (0..<(PendingLimits.maxPerAccount + 1)).map { Self.pending("hotel.example", "J\($0)", received: Int64(100 + $0)) }, expiringBefore: 0)
        #expect(try jane.pendingReservations(receivedSince: 0).map(\.container) == ["H1"])
        if backend == .postgres {
            // Behind the store's back, row-level security is on for both tables.
            let forced = try fresh.sql(
                "SELECT relname FROM pg_class WHERE relname IN ('allowed_senders', 'pending_reservations') AND relforcerowsecurity ORDER BY relname")
            #expect(forced == ["allowed_senders", "pending_reservations"])
        }
    }
}
