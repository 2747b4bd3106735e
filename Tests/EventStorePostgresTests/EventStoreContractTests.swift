import EventStore
import ReservoirBase
import Testing

/// The contract every `EventStore` keeps (see the protocol's documentation), run against each
/// backend so SQLite and PostgreSQL cannot drift apart.
@Suite("Event store contract")
struct EventStoreContractTests {
    static let key = EventKey(owner: .domain("epicsteak.example"), container: "IWDSCA", item: "1")

    @Test("confirm, move and cancel leave one event, cancelled, at sequence 2", arguments: StoreBackend.available)
    func lifecycle(backend: StoreBackend) throws {
        let fresh = try backend.makeStore()
        defer { fresh.cleanup() }
        let store = fresh.store
        let created = try store.apply(dinner(at: "2031-05-12T19:30:00"), from: message("<a@x>", date: 1000))
        guard case .created(let first) = created else {
            Issue.record("expected created, got \(created.kind)")
            return
        }
        #expect(first.sequence == 0)
        #expect(first.owner == .domain("epicsteak.example"))

        let moved = try store.apply(dinner(at: "2031-05-12T18:30:00"), from: message("<b@x>", date: 2000))
        guard case .updated(let second, let previous) = moved else {
            Issue.record("expected updated, got \(moved.kind)")
            return
        }
        #expect(second.sequence == 1)
        #expect(previous.event.start?.local == "2031-05-12T19:30:00")

        let cancelled = try store.apply(dinner(at: "2031-05-12T18:30:00", status: .cancelled), from: message("<c@x>", date: 3000))
        guard case .cancelled(let third, let before) = cancelled else {
            Issue.record("expected cancelled, got \(cancelled.kind)")
            return
        }
        #expect(third.sequence == 2)
        #expect(before?.event.status == .confirmed)

        let all = try store.events()
        #expect(all.count == 1)
        #expect(all.first?.event.status == .cancelled)
        #expect(all.first?.event.start?.local == "2031-05-12T18:30:00")
        #expect(all.first == third)
        let history = try store.history("IWDSCA")
        #expect(history.map(\.change) == [.created, .updated, .cancelled])
        #expect(history.map(\.sequence) == [0, 1, 2])
        #expect(history.map(\.messageID) == ["<a@x>", "<b@x>", "<c@x>"])
        #expect(history[1].summary == "start 2031-05-12T19:30:00-07:00 → 2031-05-12T18:30:00-07:00")
    }

    @Test(
        "files a scan read are remembered with their outcome and settings, updated in place, and seen by another handle",
        arguments: StoreBackend.available)
    func scanState(backend: StoreBackend) throws {
        let fresh = try backend.makeStore()
        defer { fresh.cleanup() }
        let state = try #require(fresh.store.scanState)
        #expect(try state.scannedFiles().isEmpty)
        try state.markScanned([
            ScannedFile(key: "/m/1.host", size: 100, modified: 10, outcome: "untrusted-domain-not-allowed", settings: "0123456789abcdef"),
            ScannedFile(key: "/m/2.host", size: 200, modified: 20, outcome: "none", settings: ""),
        ])
        // Read again under other settings: the new outcome replaces the old one.
        try state.markScanned([ScannedFile(key: "/m/1.host", size: 101, modified: 11, outcome: "trusted", settings: "")])
        let other = try #require(try fresh.reopen().scanState)
        let files = try other.scannedFiles()
        #expect(files.count == 2)
        #expect(files["/m/1.host"] == ScannedFile(key: "/m/1.host", size: 101, modified: 11, outcome: "trusted", settings: ""))
        #expect(files["/m/2.host"] == ScannedFile(key: "/m/2.host", size: 200, modified: 20, outcome: "none", settings: ""))
    }

    @Test("the same message again changes nothing", arguments: StoreBackend.available)
    func replay(backend: StoreBackend) throws {
        let fresh = try backend.makeStore()
        defer { fresh.cleanup() }
        let store = fresh.store
        _ = try store.apply(dinner(at: "2031-05-12T19:30:00"), from: message("<a@x>", date: 1000))
        _ = try store.apply(dinner(at: "2031-05-12T18:30:00"), from: message("<b@x>", date: 2000))
        // Replaying the first message must not move the dinner back.
        let replay = try store.apply(dinner(at: "2031-05-12T19:30:00"), from: message("<a@x>", date: 1000, arrival: 500))
        #expect(replay.kind == "unchanged")
        #expect(try store.event(Self.key)?.event.start?.local == "2031-05-12T18:30:00")
        #expect(try store.event(Self.key)?.sequence == 1)
        #expect(try store.history("IWDSCA").count == 2)
    }

    @Test("an older message processed after a newer one does not overwrite it", arguments: StoreBackend.available)
    func olderMessage(backend: StoreBackend) throws {
        let fresh = try backend.makeStore()
        defer { fresh.cleanup() }
        let store = fresh.store
        _ = try store.apply(dinner(at: "2031-05-12T18:30:00", status: .cancelled), from: message("<c@x>", date: 3000))
        let older = try store.apply(dinner(at: "2031-05-12T19:30:00"), from: message("<a@x>", date: 1000))
        #expect(older.kind == "older-than-stored")
        let stored = try #require(try store.event(Self.key))
        #expect(stored.event.status == .cancelled)
        #expect(stored.sequence == 0)
        #expect(try store.history("IWDSCA").map(\.change) == [.cancelled, .olderThanStored])
    }

    @Test("equal dates: the earlier arrival is older", arguments: StoreBackend.available)
    func arrivalTieBreak(backend: StoreBackend) throws {
        let fresh = try backend.makeStore()
        defer { fresh.cleanup() }
        let store = fresh.store
        _ = try store.apply(dinner(at: "2031-05-12T18:30:00"), from: message("<b@x>", date: 1000, arrival: 200))
        let earlier = try store.apply(dinner(at: "2031-05-12T19:30:00"), from: message("<a@x>", date: 1000, arrival: 150))
        #expect(earlier.kind == "older-than-stored")
        let later = try store.apply(dinner(at: "2031-05-12T20:30:00"), from: message("<c@x>", date: 1000, arrival: 250))
        #expect(later.kind == "updated")
    }

    @Test("identical content from a new message is unchanged and keeps the sequence", arguments: StoreBackend.available)
    func identicalContent(backend: StoreBackend) throws {
        let fresh = try backend.makeStore()
        defer { fresh.cleanup() }
        let store = fresh.store
        _ = try store.apply(dinner(at: "2031-05-12T19:30:00"), from: message("<a@x>", date: 1000))
        let again = try store.apply(dinner(at: "2031-05-12T19:30:00"), from: message("<reminder@x>", date: 2000))
        #expect(again.kind == "unchanged")
        #expect(again.stored.sequence == 0)
    }

    @Test("bookings are keyed per owner: another domain neither changes, cancels nor blocks one", arguments: StoreBackend.available)
    func otherDomain(backend: StoreBackend) throws {
        let fresh = try backend.makeStore()
        defer { fresh.cleanup() }
        let store = fresh.store
        // Squatting: another allowed sender books the number first.
        let squatted = try store.apply(
            dinner(at: "2031-06-01T20:00:00"), from: message("<squat@x>", date: 500, domain: "attacker.example"))
        #expect(squatted.kind == "created")
        let genuine = try store.apply(dinner(at: "2031-05-12T19:30:00"), from: message("<a@x>", date: 1000))
        #expect(genuine.kind == "created", "the owner's booking is not refused for another owner's")
        // A cancellation from the other owner reaches its own booking only.
        let cancel = try store.apply(
            dinner(at: "2031-05-12T19:30:00", status: .cancelled), from: message("<evil@x>", date: 2000, domain: "attacker.example"))
        #expect(cancel.stored.event.key.owner == .domain("attacker.example"))
        #expect(try store.event(Self.key)?.event.status == .confirmed)
        #expect(try store.event(Self.key)?.event.start?.local == "2031-05-12T19:30:00")
        #expect(try store.events().count == 2)
        #expect(Set(try store.events().map(\.uid)).count == 2, "two owners' events never share a UID")
        let history = try store.history("IWDSCA")
        #expect(history.filter { $0.key.owner == .domain("epicsteak.example") }.map(\.change) == [.created])
    }

    @Test("a message without Message-ID or Date still updates by content", arguments: StoreBackend.available)
    func missingHeaders(backend: StoreBackend) throws {
        let fresh = try backend.makeStore()
        defer { fresh.cleanup() }
        let store = fresh.store
        _ = try store.apply(dinner(at: "2031-05-12T19:30:00"), from: message(nil, date: nil))
        let moved = try store.apply(dinner(at: "2031-05-12T20:00:00"), from: message(nil, date: nil, arrival: 200))
        #expect(moved.kind == "updated")
        let entry = try #require(try store.history("IWDSCA").last)
        #expect(entry.messageID == nil)
        #expect(entry.messageDate == nil)
        #expect(entry.appliedAt == 200)
    }

    @Test("events are ordered by start, then key; items of one booking are separate", arguments: StoreBackend.available)
    func ordering(backend: StoreBackend) throws {
        let fresh = try backend.makeStore()
        defer { fresh.cleanup() }
        let store = fresh.store
        _ = try store.apply(dinner(at: "2031-05-15T08:00:00", container: "K7Q2PX", item: "UA456"), from: message("<a@x>", date: 1000))
        _ = try store.apply(dinner(at: "2031-05-12T19:30:00", container: "K7Q2PX", item: "UA123"), from: message("<a@x>", date: 1000))
        _ = try store.apply(dinner(at: "2031-05-12T19:30:00", container: "AAAAAA", item: "1"), from: message("<b@x>", date: 1000))
        // Same instant written in another offset sorts by the instant.
        _ = try store.apply(dinner(at: "2031-05-12T12:00:00", offset: 0, container: "ZZZ", item: "1"), from: message("<c@x>", date: 1000))
        let keys = try store.events().map(\.event.key.description)
        #expect(keys == ["ZZZ/1", "AAAAAA/1", "K7Q2PX/UA123", "K7Q2PX/UA456"])
        #expect(try store.history("K7Q2PX").map(\.key.item) == ["UA456", "UA123"])
        #expect(try store.history("UA123").count == 1)
        #expect(try store.history("nothing").isEmpty)
        #expect(try store.event(EventKey(owner: .domain("epicsteak.example"), container: "K7Q2PX", item: "nope")) == nil)
    }

    @Test("accounts never see each other's bookings: one confirmation to two, a cancellation to one", arguments: StoreBackend.available)
    func accountIsolation(backend: StoreBackend) throws {
        let fresh = try backend.makeStore()
        defer { fresh.cleanup() }
        let jane = fresh.scoped(Account(normalizedAddress: "jane@example.org"))
        let joe = fresh.scoped(Account(normalizedAddress: "joe@example.org"))
        // The same booking to both (a couple booked together): two events, one each.
        _ = try jane.apply(dinner(at: "2031-05-12T19:30:00"), from: message("<a@x>", date: 1000))
        _ = try joe.apply(dinner(at: "2031-05-12T19:30:00"), from: message("<a@x>", date: 1000))
        #expect(try jane.events().map(\.event.key.account.address) == ["jane@example.org"])
        #expect(try joe.events().map(\.event.key.account.address) == ["joe@example.org"])
        // The same message again in Joe's account is not "already applied" because Jane has it.
        let cancel = try joe.apply(dinner(at: "2031-05-12T19:30:00", status: .cancelled), from: message("<c@x>", date: 2000))
        #expect(cancel.kind == "cancelled")
        #expect(try jane.event(Self.key)?.event.status == .confirmed, "a cancellation delivered to one cancels only that one")
        #expect(try joe.event(Self.key)?.event.status == .cancelled)
        // A key naming the other account reads the handle's own account.
        #expect(try jane.event(Self.key.inAccount(Account(normalizedAddress: "joe@example.org")))?.event.status == .confirmed)
        #expect(try jane.history("IWDSCA").map(\.change) == [.created])
        #expect(try joe.history("IWDSCA").map(\.change) == [.created, .cancelled])
        // The implicit account (a single-user store) sees neither.
        #expect(try fresh.store.events().isEmpty)
        // Deliveries are per account too.
        let janeLedger = try #require(jane.ledger)
        let joeLedger = try #require(joe.ledger)
        #expect(try janeLedger.pendingDeliveries(to: "vdir:/cal").count == 1)
        #expect(try janeLedger.claimDelivery(of: Self.key, uid: Self.key.calendarUID, to: "vdir:/cal", by: "a", now: 1, until: 100))
        try janeLedger.finishDelivery(of: Self.key, to: "vdir:/cal", by: "a", result: .delivered(sequence: 0, etag: nil), at: 2)
        #expect(try janeLedger.pendingDeliveries(to: "vdir:/cal").isEmpty)
        #expect(try joeLedger.pendingDeliveries(to: "vdir:/cal").count == 1, "Jane's delivery is not Joe's")
        #expect(try joeLedger.deliveryRecords().isEmpty)
        // Forgetting in one account leaves the other's.
        #expect(try joe.forget("IWDSCA", at: 3000).count == 1)
        #expect(try jane.events().count == 1)
        #expect(try joeLedger.forgottenDeliveries(to: "vdir:/cal").isEmpty)
        // The one path across accounts lists both.
        let directory = try #require(fresh.store.directory)
        #expect(try directory.accounts().map(\.account.address) == ["jane@example.org"])
        #expect(try directory.accounts().first?.events == 1)
        // Scan state too: a file Jane's scan read is new to Joe's.
        let janeScans = try #require(jane.scanState)
        let joeScans = try #require(joe.scanState)
        try janeScans.markScanned([ScannedFile(key: "/mail/new/1", size: 10, modified: 100, outcome: "trusted", settings: "")])
        #expect(try janeScans.scannedFiles()["/mail/new/1"]?.outcome == "trusted")
        #expect(try joeScans.scannedFiles().isEmpty, "Jane's scan state is not Joe's")
        try joeScans.markScanned([ScannedFile(key: "/mail/new/1", size: 10, modified: 100, outcome: "refused", settings: "")])
        #expect(try janeScans.scannedFiles()["/mail/new/1"]?.outcome == "trusted")
        #expect(try joeScans.scannedFiles()["/mail/new/1"]?.outcome == "refused")
    }

    @Test("a cancellation without a start keeps the stored start, end, place and details (RFC 5546 §3.2.5)", arguments: StoreBackend.available)
    func bareCancellation(backend: StoreBackend) throws {
        let fresh = try backend.makeStore()
        defer { fresh.cleanup() }
        let store = fresh.store
        _ = try store.apply(dinner(at: "2031-05-12T19:30:00"), from: message("<a@x>", date: 1000))
        var bare = dinner(at: "2031-05-12T19:30:00", status: .cancelled)
        bare.start = nil
        bare.location = nil
        bare.notes = ""
        let change = try store.apply(bare, from: message("<b@x>", date: 2000))
        #expect(change.changeKind == .cancelled)
        let stored = try #require(try store.event(Self.key))
        #expect(stored.event.status == .cancelled)
        #expect(stored.sequence == 1)
        #expect(stored.event.start?.local == "2031-05-12T19:30:00")
        #expect(stored.event.location == "EPIC Steak, 369 The Embarcadero, San Francisco")
        #expect(stored.event.notes == "Party of 2")
        #expect(try store.history("IWDSCA").last?.summary == "status confirmed → cancelled")
        // The same bare cancellation again, from another message: nothing left to change.
        #expect(try store.apply(bare, from: message("<c@x>", date: 3000)).changeKind == .unchanged)
        // Nothing stored: recorded as it reads, without a start.
        var unknown = bare
        unknown.key = EventKey(owner: .unproven, container: "NEVER", item: "1")
        let first = try store.apply(unknown, from: message("<d@x>", date: 1000))
        #expect(first.changeKind == .cancelled)
        #expect(first.stored.event.start == nil)
    }

    @Test("a version made from the stored one is made inside the write: revise sees the stored event, or nil", arguments: StoreBackend.available)
    func revising(backend: StoreBackend) throws {
        let fresh = try backend.makeStore()
        defer { fresh.cleanup() }
        let store = fresh.store
        var seen: [StoredEvent?] = []
        let created = try store.apply(Self.key, from: message("<a@x>", date: 1000)) { stored in
            seen.append(stored)
            return dinner(at: "2031-05-12T19:30:00", container: "ignored", item: "ignored")
        }
        #expect(created.changeKind == .created)
        #expect(created.stored.event.key == Self.key, "the key given, not the version's")
        #expect(seen.allSatisfy { $0 == nil })
        let moved = try store.apply(dinner(at: "2031-05-12T18:30:00", title: "Reservation: EPIC Steak, terrace"), from: message("<b@x>", date: 2000))
        seen = []
        let cancelled = try store.apply(Self.key, from: message("<c@x>", date: 3000)) { stored in
            seen.append(stored)
            guard var event = stored?.event else { return dinner(at: "2031-01-01T00:00:00", status: .cancelled) }
            event.status = .cancelled
            return event
        }
        #expect(seen.last == moved.stored, "the stored event as the last writer left it")
        #expect(cancelled.changeKind == .cancelled)
        #expect(cancelled.stored.event.title == "Reservation: EPIC Steak, terrace")
        #expect(cancelled.stored.event.start?.local == "2031-05-12T18:30:00")
        #expect(cancelled.stored.sequence == 2)
    }

    @Test("the items of one booking, and of no other", arguments: StoreBackend.available)
    func booking(backend: StoreBackend) throws {
        let fresh = try backend.makeStore()
        defer { fresh.cleanup() }
        let store = fresh.store
        _ = try store.apply(dinner(at: "2031-05-19T19:00:00", container: "TASTING-7", item: "20310519T190000"), from: message("<a@x>", date: 1000))
        _ = try store.apply(dinner(at: "2031-05-12T19:00:00", container: "TASTING-7", item: "1"), from: message("<a@x>", date: 1000))
        _ = try store.apply(dinner(at: "2031-05-12T19:00:00", container: "TASTING-70", item: "1"), from: message("<b@x>", date: 1000))
        #expect(try store.events(inBooking: "TASTING-7", ownedBy: .domain("epicsteak.example")).map(\.event.key.item) == ["1", "20310519T190000"])
        #expect(try store.events(inBooking: "TASTING", ownedBy: .domain("epicsteak.example")).isEmpty)
        #expect(try store.events(inBooking: "tasting-7", ownedBy: .domain("epicsteak.example")).isEmpty)
        // Another owner's items of the same booking number are not this owner's.
        _ = try store.apply(
            dinner(at: "2031-05-26T19:00:00", container: "TASTING-7", item: "20310526T190000"),
            from: message("<c@x>", date: 1000, domain: "attacker.example"))
        #expect(try store.events(inBooking: "TASTING-7", ownedBy: .domain("epicsteak.example")).count == 2)
        #expect(try store.events(inBooking: "TASTING-7", ownedBy: .domain("attacker.example")).map(\.event.key.item) == ["20310526T190000"])
    }

    @Test("every field survives a round trip, including empty, Unicode and NULL values", arguments: StoreBackend.available)
    func roundTrip(backend: StoreBackend) throws {
        let fresh = try backend.makeStore()
        defer { fresh.cleanup() }
        var event = dinner(at: "2031-05-12T19:30:00", title: "Dîner “chez Zoë” 🍷 'quoted' $1 \\ back")
        event.end = EventTime(text: "2031-05-12T22:00:00", local: "2031-05-12T22:00:00", offsetSeconds: nil, epochSeconds: nil)
        event.location = ""
        event.notes = "line 1\nline 2"
        event.url = "https://epicsteak.example/r?id=1&x=%20"
        event.checkinOpens = 1_999_999_999
        event.checkinCloses = -5
        event.reservationJSON = #"{"@type":"FoodEstablishmentReservation","name":"Zoë"}"#
        _ = try fresh.store.apply(
            event,
            from: MessageProvenance(
                messageID: "<ü@x>", path: "/m/cur/1:2,S",
                owner: .unproven, messageDate: -1, arrival: 0))
        let reopened = try fresh.reopen()
        let stored = try #require(try reopened.event(Self.key.owned(by: .unproven)))
        var expected = event
        expected.key = Self.key.owned(by: .unproven)
        #expect(stored.event == expected)
        #expect(stored.owner == .unproven)
        let entry = try #require(try reopened.history("IWDSCA").first)
        #expect(entry.path == "/m/cur/1:2,S")
        #expect(entry.messageID == "<ü@x>")
        #expect(entry.messageDate == -1)
    }

    @Test(
        "the proof of the message that last changed an event is kept: signed mail, an ARC sealer, a signed pass, none",
        arguments: StoreBackend.available)
    func proofs(backend: StoreBackend) throws {
        let fresh = try backend.makeStore()
        defer { fresh.cleanup() }
        var signed = message("<a@x>", date: 1000)
        signed.proof = .signedMail
        #expect(try fresh.store.apply(dinner(at: "2031-05-12T19:30:00"), from: signed).stored.proof == .signedMail)
        var sealed = message("<b@x>", date: 2000)
        sealed.proof = .arc(sealer: "mx.forwarder.example")
        _ = try fresh.store.apply(dinner(at: "2031-05-12T18:30:00"), from: sealed)
        var pass = dinner(at: "2031-05-14T19:30:00", container: "M4XT9B")
        pass.key = EventKey(owner: .walletPass(passType: "pass.com.example.boarding"), container: "M4XT9B", item: "1")
        var passed = message("<c@x>", date: 1000, domain: "pass:pass.com.example.boarding")
        passed.proof = .signedPass(passType: "pass.com.example.boarding")
        _ = try fresh.store.apply(pass, from: passed)
        _ = try fresh.store.apply(dinner(at: "2031-05-13T19:30:00", container: "LOCAL"), from: message("<u@x>", date: nil, domain: nil))
        let read = try fresh.reopen().events()
        #expect(read.first { $0.event.key.container == "IWDSCA" }?.proof == .arc(sealer: "mx.forwarder.example"))
        #expect(read.first { $0.event.key.container == "M4XT9B" }?.proof == .signedPass(passType: "pass.com.example.boarding"))
        #expect(read.first { $0.event.key.container == "LOCAL" }?.proof == nil)
        // The same content again through plain signed mail changes nothing, the proof included.
        var again = message("<d@x>", date: 3000)
        again.proof = .signedMail
        #expect(try fresh.store.apply(dinner(at: "2031-05-12T18:30:00"), from: again).kind == "unchanged")
        #expect(try fresh.reopen().events().first { $0.event.key.container == "IWDSCA" }?.proof == .arc(sealer: "mx.forwarder.example"))
    }

    @Test("every outcome is recorded under one word, the same in both backends", arguments: StoreBackend.available)
    func historyWords(backend: StoreBackend) throws {
        let fresh = try backend.makeStore()
        defer { fresh.cleanup() }
        let store = fresh.store
        let changes = try [
            store.apply(dinner(at: "2031-05-12T19:30:00"), from: message("<a@x>", date: 1000)),
            store.apply(dinner(at: "2031-05-12T18:30:00"), from: message("<b@x>", date: 2000)),
            store.apply(dinner(at: "2031-05-12T18:30:00", status: .cancelled), from: message("<c@x>", date: 3000)),
            store.apply(dinner(at: "2031-05-12T19:30:00"), from: message("<d@x>", date: 500)),
            store.apply(dinner(at: "2031-05-12T18:30:00", status: .cancelled), from: message("<c@x>", date: 3000)),
        ]
        let words = ["created", "updated", "cancelled", "older-than-stored"]
        #expect(changes.map(\.kind) == words + ["unchanged"])
        #expect(try store.history("IWDSCA").map(\.change.rawValue) == words)
        #expect(try fresh.sql("SELECT change FROM history ORDER BY id") == words)
        #expect(changes.map(\.changeKind) == [.created, .updated, .cancelled, .olderThanStored, .unchanged])
    }

    @Test("history written under the words ignored-older and refused still reads", arguments: StoreBackend.available)
    func historyAliases(backend: StoreBackend) throws {
        let fresh = try backend.makeStore()
        defer { fresh.cleanup() }
        _ = try fresh.store.apply(dinner(at: "2031-05-12T19:30:00"), from: message("<a@x>", date: 1000))
        for word in ["ignored-older", "refused"] {
            _ = try fresh.sql(
                """
                INSERT INTO history (container, item, sequence, change, message_id, path, signing_domain, message_date, applied_at, summary)
                VALUES ('IWDSCA', '1', 0, '\(word)', NULL, NULL, 'epicsteak.example', 900, 100, 'not applied')
                """)
        }
        let history = try fresh.reopen().history("IWDSCA")
        #expect(history.map(\.change) == [.created, .olderThanStored, .refusedOtherDomain])
    }

    /// A stored row damaged behind the store's back, one way per case.
    enum DamagedRow: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case missingValue = "a time without its civil time"
        case wrongType = "text in an integer column"
        case unknownStatus = "a status this build does not know"
        case unknownCategory = "a category this build does not know"

        var testDescription: String { rawValue }

        /// The statements that damage the row (PostgreSQL needs the column's type changed
        /// before it stores text in it).
        func statements(_ backend: StoreBackend) -> [String] {
            switch self {
            case .missingValue: ["UPDATE events SET start_local = NULL"]
            case .wrongType:
                (backend == .postgres ? ["ALTER TABLE events ALTER COLUMN sequence TYPE text"] : [])
                    + ["UPDATE events SET sequence = 'two'"]
            case .unknownStatus: ["UPDATE events SET status = 'MAYBE'"]
            case .unknownCategory: ["UPDATE events SET category = 'spaceship'"]
            }
        }
    }

    @Test(
        "a stored value that is missing, mistyped or unknown is an error, not a default",
        arguments: StoreBackend.available, DamagedRow.allCases)
    func damagedRow(backend: StoreBackend, damage: DamagedRow) throws {
        let fresh = try backend.makeStore()
        defer { fresh.cleanup() }
        _ = try fresh.store.apply(dinner(at: "2031-05-12T19:30:00"), from: message("<a@x>", date: 1000))
        for statement in damage.statements(backend) { _ = try fresh.sql(statement) }
        let store = try fresh.reopen()
        #expect(throws: EventStoreError(.invalidRow, "")) { try store.events() }
        #expect(throws: EventStoreError(.invalidRow, "")) { try store.event(Self.key) }
        #expect(throws: EventStoreError(.invalidRow, "")) {
            try store.apply(dinner(at: "2031-05-12T18:30:00"), from: message("<b@x>", date: 2000))
        }
    }

    @Test("a history line with a change this build does not know is an error", arguments: StoreBackend.available)
    func damagedHistory(backend: StoreBackend) throws {
        let fresh = try backend.makeStore()
        defer { fresh.cleanup() }
        _ = try fresh.store.apply(dinner(at: "2031-05-12T19:30:00"), from: message("<a@x>", date: 1000))
        _ = try fresh.sql("UPDATE history SET change = 'teleported'")
        #expect(throws: EventStoreError(.invalidRow, "")) { try fresh.reopen().history("IWDSCA") }
    }
}
