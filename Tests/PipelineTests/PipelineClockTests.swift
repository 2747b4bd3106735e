import DKIM
import EventStore
import Foundation
import Mailbox
import PipelineTestSupport
import ReservoirBase
import Synchronization
import Testing
import Trust

@testable import Pipeline

/// A program that runs for days reads the clock for each message (`ReservationPipeline.current()`),
/// never keeps its start time: a signature's `x=` expires (RFC 6376 §3.5), and a message arrives,
/// when the clock says.
@Suite("The clock of a long-running pipeline")
struct PipelineClockTests {
    /// A clock the test moves.
    final class MovingClock: Sendable {
        let time: Mutex<Int64>
        init(_ start: Int64) { time = Mutex(start) }
        func advance(_ seconds: Int64) { time.withLock { $0 += seconds } }
        var read: @Sendable () -> Int64 { { [self] in time.withLock { $0 } } }
    }

    static let key = Result {
        try String(contentsOf: Samples.root.appendingPathComponent("scripts/samples/sample-dkim-key.pem"), encoding: .utf8)
    }

    /// A dinner booking signed by epicsteak.example at `signedAt`, its signature expiring
    /// `lifetime` seconds later.
    static func booking(signedAt: Int64, lifetime: Int64, id: String) throws -> RawMessage {
        let header =
            "From: Bookings <bookings@epicsteak.example>\r\nTo: jane@home.example\r\nSubject: Your table\r\n"
            + "Date: Sun, 22 Nov 2026 10:00:00 +0000\r\nMessage-ID: <\(id)@epicsteak.example>\r\nMIME-Version: 1.0\r\n"
            + "Content-Type: text/html; charset=utf-8\r\n\r\n"
        let markup = """
            {"@context":"https://schema.org","@type":"FoodEstablishmentReservation","reservationNumber":"\(id)",
            "reservationStatus":"https://schema.org/ReservationConfirmed","startTime":"2031-05-12T19:30:00-07:00",
            "reservationFor":{"@type":"FoodEstablishment","name":"EPIC Steak"}}
            """
        let body = "<html><body><script type=\"application/ld+json\">\(markup)</script></body></html>\r\n"
        let field = try DKIMSigner(privateKeyPEM: try key.get()).sign(
            Array((header + body).utf8), domain: "epicsteak.example", selector: "s2026",
            headers: ["From", "To", "Subject", "Date", "Message-ID", "MIME-Version", "Content-Type"],
            canonicalization: try #require(DKIMCanonicalization(tag: "relaxed/relaxed")), timestamp: signedAt,
            expiration: signedAt + lifetime)
        return RawMessage(bytes: Array((field + header + body).utf8), origin: MessageOrigin())
    }

    @Test("a signature that expires after the program started is expired for a message read after that; each message arrives at its own time")
    func movingClock() throws {
        let start = Samples.now
        let clock = MovingClock(start)
        let tmp = TemporaryStore()
        defer { tmp.remove() }
        let store = try tmp.open()
        let pipeline = try Samples.pipeline(store: store, now: start)
        pipeline.clock = WallClock(reading: clock.read)
        let message = try Self.booking(signedAt: start - 60, lifetime: 68, id: "EXPIRES8S")
        // The control: read while the signature holds, trusted.
        #expect(pipeline.current().analyze(message).trust.trusted)
        clock.advance(10)
        let later = pipeline.current()
        #expect(later.now == start + 10)
        var report = later.analyze(message)
        #expect(!report.trust.trusted, "x= passed 2 s ago: \(report.trust.reason)")
        #expect(report.signatures.first?.result == .fail || report.signatures.first?.result == .permerror, "\(report.signatures.map(\.reason))")
        later.record(&report)
        #expect(try store.events().isEmpty)
        // A message that is still valid, read after the clock moved on, arrives then.
        clock.advance(3600)
        let valid = try Self.booking(signedAt: start + 3000, lifetime: 86_400, id: "STILLVALID")
        let current = pipeline.current()
        var stored = current.analyze(valid)
        current.record(&stored)
        let event = try #require(try store.events().first)
        #expect(try store.history(event.event.key.container).last?.appliedAt == start + 3610)
    }

    @Test("a pinned clock (--now) stays where it was pinned: current() is the pipeline itself")
    func pinned() throws {
        let pipeline = try Samples.pipeline(store: nil, now: Samples.now)
        #expect(pipeline.current() === pipeline)
    }
}
