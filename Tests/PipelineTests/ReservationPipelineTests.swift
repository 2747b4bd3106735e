import DKIM
import Foundation
import PipelineTestSupport
import Reservations
import Testing
import Trust

@testable import EventStore
@testable import Pipeline

@Suite("The whole pipeline on the sample Maildir")
struct ReservationPipelineTests {
    @Test("the EPIC Steak confirmation is verified, trusted, repaired and stored")
    func confirmation() throws {
        let tmp = TemporaryStore()
        defer { tmp.remove() }
        let report = try Samples.pipeline(store: try tmp.open()).process(try Samples.message(1))
        #expect(report.signatures.map(\.result) == [.pass])
        #expect(report.signatures.first?.domain == "epicsteak.example")
        #expect(report.trust.trusted)
        #expect(report.trust.vouchingDomain == "epicsteak.example")
        let item = try #require(report.items.first)
        #expect(item.reservation.category == .food)
        #expect(item.reservation.reservationID == "IWDSCA")
        #expect(item.reservation.title == "EPIC Steak")
        #expect(item.reservation.start?.local == "2031-05-12T19:30:00")
        #expect(item.reservation.start?.offsetSeconds == -7 * 3600)
        #expect(item.reservation.details.contains(ReservationDetail(label: "Party size", value: "2")))
        #expect(item.change?.kind == "created")
        // Apple's example misses two commas; the repair is reported, not hidden.
        #expect(report.diagnostics.contains { $0.stage == .markup })
    }

    @Test("the altered sample fails DKIM and nothing is stored")
    func altered() throws {
        let tmp = TemporaryStore()
        defer { tmp.remove() }
        let store = try tmp.open()
        let report = try Samples.pipeline(store: store).process(try Samples.message(8))
        #expect(report.signatures.map(\.result) == [.fail])
        #expect(!report.trust.trusted)
        #expect(report.items.count == 1)
        #expect(report.items.allSatisfy { $0.change == nil })
        #expect(try store.events().isEmpty)
    }

    @Test("confirmed, moved, cancelled: one event, cancelled, at sequence 2; a replay changes nothing")
    func lifecycle() throws {
        let tmp = TemporaryStore()
        defer { tmp.remove() }
        let store = try tmp.open()
        let pipeline = try Samples.pipeline(store: store)
        let kinds = try [1, 2, 3].map { pipeline.process(try Samples.message($0)).items.first?.change?.kind }
        #expect(kinds == ["created", "updated", "cancelled"])
        let replay = pipeline.process(try Samples.message(2))
        #expect(replay.items.first?.change?.kind == "unchanged")
        let events = try store.events()
        #expect(events.count == 1)
        #expect(events.first?.event.status == .cancelled)
        #expect(events.first?.event.start?.local == "2031-05-12T18:30:00")
        #expect(events.first?.sequence == 2)
    }

    @Test("reports recorded as a group: one commit; when it fails no report claims a change")
    func groupedRecording() throws {
        let tmp = TemporaryStore()
        defer { tmp.remove() }
        let store = try tmp.open()
        let pipeline = try Samples.pipeline(store: store)
        var reports = try [1, 2, 7].map { pipeline.analyze(try Samples.message($0)) }
        pipeline.record(group: &reports)
        #expect(reports.map { $0.items.first?.change?.kind } == ["created", "updated", nil])
        #expect(try store.events().first?.sequence == 1)

        // The flight's first change rolls the whole transaction back, as a full disk can
        // (sqlite.org/lang_createtrigger.html, "The RAISE() function").
        try SQLiteDatabase(path: tmp.path, busyTimeoutMilliseconds: 1000).execute(
            """
            CREATE TRIGGER fail_all BEFORE INSERT ON history WHEN NEW.container = 'K7Q2PX'
            BEGIN SELECT RAISE(ROLLBACK, 'disk full'); END
            """)
        var more = try [3, 4, 7].map { pipeline.analyze(try Samples.message($0)) }
        #expect(more.map(\.items.count) == [1, 2, 0])
        pipeline.record(group: &more)
        #expect(more.allSatisfy { report in report.items.allSatisfy { $0.change == nil } })
        #expect(more.map { $0.diagnostics.filter { $0.code == .storeFailed }.count } == [1, 1, 0])
        // Nothing of the failed group was kept: the dinner is not cancelled, no flight stored.
        #expect(try store.events().map(\.event.status) == [.confirmed])
    }

    @Test("the two-leg flight gives two events of one booking")
    func flight() throws {
        let report = try Samples.pipeline().process(try Samples.message(4))
        #expect(report.trust.trusted)
        #expect(report.items.count == 2)
        #expect(Set(report.items.map(\.reservation.reservationID)) == ["K7Q2PX"])
        #expect(Set(report.items.map(\.reservation.itemID)).count == 2)
        #expect(report.items.allSatisfy { $0.reservation.category == .flight })
    }

    @Test(
        "hotel, Microdata train, a newsletter and an invitation",
        arguments: [(5, ReservationCategory?.some(.lodging)), (6, .train), (7, nil), (10, .event)])
    func otherSamples(number: Int, category: ReservationCategory?) throws {
        let report = try Samples.pipeline().process(try Samples.message(number))
        #expect(report.signatures.map(\.result) == [.pass])
        #expect(report.items.first?.reservation.category == category)
        #expect(report.items.count == (category == nil ? 0 : 1))
    }

    @Test("a sender outside the allowed domains is verified but not trusted")
    func notAllowed() throws {
        let policy = TrustPolicy(allowedDomains: ["cascadia-air.example"])
        let report = try Samples.pipeline(policy: policy).process(try Samples.message(1))
        #expect(report.signatures.map(\.result) == [.pass])
        #expect(!report.trust.trusted)
        #expect(report.trust.refusal?.code == .domainNotAllowed)
    }

    @Test("reservations that already ended are dropped with a reason, kept with includePast")
    func ended() throws {
        let later: Int64 = 2_000_000_000  // 2033
        let dropped = try Samples.pipeline(now: later).process(try Samples.message(1))
        #expect(dropped.items.isEmpty)
        #expect(dropped.diagnostics.contains { $0.code == .reservations(.ended) })
    }
}
