import EventStore
import Testing

@Suite("The revision step")
struct EventRevisionTests {
    static func row(
        _ event: CalendarEvent, sequence: Int = 0, owner: String? = "epicsteak.example",
        date: Int64? = 1000, arrival: Int64? = 100
    ) -> EventRow {
        EventRow(
            stored: StoredEvent(event: event, sequence: sequence, createdAt: 100, updatedAt: 100),
            lastMessageDate: date, lastArrival: arrival)
    }

    @Test(
        "a first sighting writes sequence 0, owned by its signer, and records created or cancelled",
        arguments: [
            (EventStatus.confirmed, EventChangeKind.created, "created"),
            (.cancelled, .cancelled, "cancelled (first seen)"),
        ])
    func firstSighting(status: EventStatus, kind: EventChangeKind, summary: String) throws {
        let event = dinner(at: "2031-05-12T19:30:00", status: status)
        let step = EventRevision.step(stored: nil, alreadyApplied: false, new: event, from: message("<a@x>", date: 1000, arrival: 7))
        let written = try #require(step.write)
        #expect(
            written
                == EventRow(
                    stored: StoredEvent(
                        event: event, sequence: 0,
                        createdAt: 7, updatedAt: 7),
                    lastMessageDate: 1000, lastArrival: 7))
        #expect(
            step.record
                == HistoryEntry(
                    key: event.key, sequence: 0, change: kind, messageID: "<a@x>", path: nil,
                    signingDomain: "epicsteak.example", messageDate: 1000, appliedAt: 7, summary: summary))
        #expect(step.change.changeKind == kind)
    }

    @Test("an update bumps the sequence, keeps owner and creation time, and records the difference")
    func update() throws {
        let stored = Self.row(dinner(at: "2031-05-12T19:30:00"), sequence: 3)
        let moved = dinner(at: "2031-05-12T18:30:00")
        let step = EventRevision.step(stored: stored, alreadyApplied: false, new: moved, from: message("<b@x>", date: 2000, arrival: 200))
        #expect(step.write?.stored.sequence == 4)
        #expect(step.write?.stored.createdAt == 100)
        #expect(step.write?.stored.updatedAt == 200)
        #expect(step.write?.lastMessageDate == 2000)
        #expect(step.record?.change == .updated)
        #expect(step.record?.sequence == 4)
        #expect(step.record?.summary == "start 2031-05-12T19:30:00-07:00 → 2031-05-12T18:30:00-07:00")
        #expect(step.change == .updated(try #require(step.write).stored, previous: stored.stored))
    }

    @Test("nothing is written for an older message, a replay or the same content")
    func notWritten() {
        let stored = Self.row(dinner(at: "2031-05-12T19:30:00"), date: 2000, arrival: 100)
        let other = dinner(at: "2031-05-12T20:30:00")
        let cases: [(EventRevision.Step, EventChangeKind, EventChangeKind?)] = [
            (
                EventRevision.step(stored: stored, alreadyApplied: false, new: other, from: message("<a@x>", date: 1000)),
                .olderThanStored, .olderThanStored
            ),
            (
                EventRevision.step(stored: stored, alreadyApplied: false, new: other, from: message("<a@x>", date: 2000, arrival: 99)),
                .olderThanStored, .olderThanStored
            ),
            (
                EventRevision.step(stored: stored, alreadyApplied: true, new: other, from: message("<a@x>", date: 3000)),
                .unchanged, nil
            ),
            (
                EventRevision.step(stored: stored, alreadyApplied: false, new: stored.stored.event, from: message("<r@x>", date: 3000)),
                .unchanged, nil
            ),
        ]
        for (step, kind, recorded) in cases {
            #expect(step.write == nil)
            #expect(step.change.changeKind == kind)
            #expect(step.record?.change == recorded)
            #expect(step.record.map { $0.sequence } == recorded.map { _ in 0 })
        }
    }

    @Test("older words read as the words written now; an unknown word reads as nothing")
    func storedWords() {
        #expect(EventChangeKind(storedWord: "ignored-older") == .olderThanStored)
        #expect(EventChangeKind(storedWord: "refused") == .refusedOtherDomain)
        for kind in EventChangeKind.allCases { #expect(EventChangeKind(storedWord: kind.rawValue) == kind) }
        #expect(EventChangeKind(storedWord: "teleported") == nil)
    }

    @Test("a cancellation keeps what it does not restate; what it restates, and any other version, is taken as it is")
    func keepingStored() {
        var stored = dinner(at: "2031-05-12T19:30:00")
        stored.end = stored.start
        stored.url = "https://epicsteak.example/r/IWDSCA"
        var bare = dinner(at: "2031-05-12T19:30:00", status: .cancelled)
        (bare.start, bare.end, bare.location, bare.url, bare.notes) = (nil, nil, nil, nil, "")
        let kept = EventRevision.keepingStored(bare, stored: stored)
        #expect(kept.status == .cancelled)
        #expect(kept.start == stored.start && kept.end == stored.end)
        #expect(kept.location == stored.location && kept.url == stored.url && kept.notes == stored.notes)
        // A cancellation that states its own start is not given the stored end with it.
        var restated = dinner(at: "2031-05-12T18:00:00", status: .cancelled)
        restated.url = "https://epicsteak.example/r/other"
        #expect(EventRevision.keepingStored(restated, stored: stored) == restated)
        var moved = dinner(at: "2031-05-12T18:00:00")
        moved.location = nil
        #expect(EventRevision.keepingStored(moved, stored: stored) == moved)
        // Through the step: the row written holds the stored start.
        let step = EventRevision.step(stored: Self.row(stored), alreadyApplied: false, new: bare, from: message("<c@x>", date: 2000))
        #expect(step.write?.stored.event.start == stored.start)
        #expect(step.record?.summary == "status confirmed → cancelled")
    }
}
