import DKIM
import EventStore
import Foundation
import ICalendarReading
import MIME
import Mailbox
import PipelineTestSupport
import Reservations
import Testing
import Trust

@testable import Pipeline

/// Invitation mail (RFC 6047 iMIP) signed with the samples' key: an `.ics` attachment as the
/// only source of the booking.
enum Invitation {
    static let key = Samples.root.appendingPathComponent("scripts/samples/sample-dkim-key.pem")
    static let signedHeaders = ["From", "To", "Subject", "Date", "Message-ID", "MIME-Version", "Content-Type"]

    /// A VCALENDAR with one VEVENT.
    static func calendar(
        method: String? = "REQUEST", uid: String = "TASTING-7@epicsteak.example", sequence: Int = 0,
        start: String = "20310512T190000", organizer: String? = "mailto:events@epicsteak.example", extra: [String] = []
    ) -> String {
        var lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//EPIC Steak//Events//EN"]
        if let method { lines.append("METHOD:\(method)") }
        lines += [
            "BEGIN:VEVENT", "UID:\(uid)", "SEQUENCE:\(sequence)", "DTSTAMP:20261120T100000Z",
            "DTSTART;TZID=America/Los_Angeles:\(start)", "DURATION:PT2H", "SUMMARY:Wine tasting",
            "LOCATION:EPIC Steak\\, 369 The Embarcadero\\, San Francisco",
        ]
        if let organizer { lines.append("ORGANIZER;CN=EPIC Steak:\(organizer)") }
        lines += extra + ["END:VEVENT", "END:VCALENDAR"]
        return lines.map { $0 + "\r\n" }.joined()
    }

    /// The message: a text part and the calendar as a base64 `.ics` attachment.
    static func body(_ calendar: String, type: String = "application/ics") -> String {
        let base64 = Data(calendar.utf8).base64EncodedString(options: [.lineLength76Characters, .endLineWithLineFeed])
        return "--inv-1\nContent-Type: text/plain; charset=utf-8\n\nYour wine tasting is booked.\n"
            + "--inv-1\nContent-Type: \(type); name=\"invite.ics\"\nContent-Disposition: attachment; filename=\"invite.ics\"\n"
            + "Content-Transfer-Encoding: base64\n\n\(base64)\n--inv-1--\n"
    }

    static func header(date: String, id: String) -> String {
        "From: EPIC Steak <events@epicsteak.example>\nTo: jane@example.org\nSubject: Wine tasting\nDate: \(date)\n"
            + "Message-ID: <\(id)@epicsteak.example>\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"inv-1\"\n\n"
    }

    /// `body` signed as a whole (or its first `signedLength` bytes with `l=`), then `appended`.
    static func signed(
        _ body: String, date: String = "Fri, 20 Nov 2026 10:00:00 +0000", id: String = "inv", headers: [String] = signedHeaders,
        appended: String = "", signedLength: Int? = nil
    ) throws -> RawMessage {
        let header = Self.header(date: date, id: id)
        let signer = try DKIMSigner(privateKeyPEM: try String(contentsOf: key, encoding: .utf8))
        let field = try signer.sign(
            Array((header + body).utf8), domain: "epicsteak.example", selector: "s2026", headers: headers,
            canonicalization: try #require(DKIMCanonicalization(tag: signedLength == nil ? "relaxed/relaxed" : "relaxed/simple")),
            timestamp: Samples.now - 3600, expiration: nil, bodyLength: signedLength)
        return RawMessage(bytes: Array((field + header + body + appended).utf8), origin: MessageOrigin())
    }
}

@Suite("Calendar invitations: .ics and text/calendar parts as reservations")
struct CalendarPartsTests {
    static func withStore(_ body: (any EventStore, ReservationPipeline) throws -> Void) throws {
        let temporary = TemporaryStore()
        defer { temporary.remove() }
        let store = try temporary.open()
        try body(store, try Samples.pipeline(store: store))
    }

    @Test("an invitation with only an .ics, signed by an allowed domain: a trusted event in the store")
    func trustedInvitation() throws {
        try Self.withStore { store, pipeline in
            let report = pipeline.process(try Invitation.signed(Invitation.body(Invitation.calendar())))
            #expect(report.trust.trusted, "\(report.trust.reason)")
            #expect(report.items.map(\.reservation.reservationID) == ["TASTING-7@epicsteak.example"])
            #expect(report.items.first?.refusal == nil)
            #expect(report.items.first?.change?.changeKind == .created)
            let stored = try #require(try store.events().first)
            #expect(stored.event.title == "Wine tasting")
            #expect(stored.event.category == .event)
            #expect(stored.event.start?.zone == "America/Los_Angeles")
            #expect(stored.event.start?.epochSeconds == 1_936_404_000)  // 2031-05-13T02:00:00Z
            #expect(stored.event.end?.epochSeconds == 1_936_411_200)
            #expect(stored.event.location == "EPIC Steak, 369 The Embarcadero, San Francisco")
            #expect(stored.event.status == .confirmed)
        }
    }

    @Test("text/calendar inline and the same object attached: one event")
    func inlineAndAttached() throws {
        let calendar = Invitation.calendar()
        let body =
            "--inv-1\nContent-Type: text/calendar; charset=utf-8; method=REQUEST\n\n\(calendar)\n" + Invitation.body(calendar)
        let report = try Samples.pipeline().analyze(try Invitation.signed(body))
        #expect(report.trust.trusted)
        #expect(report.items.count == 1)
    }

    @Test("a CANCEL cancels the stored event; a higher SEQUENCE moves it; a lower one is older")
    func lifecycle() throws {
        try Self.withStore { store, pipeline in
            _ = pipeline.process(try Invitation.signed(Invitation.body(Invitation.calendar())))
            let moved = pipeline.process(
                try Invitation.signed(
                    Invitation.body(Invitation.calendar(sequence: 1, start: "20310512T200000")), date: "Sat, 21 Nov 2026 10:00:00 +0000",
                    id: "moved"))
            #expect(moved.items.first?.change?.changeKind == .updated)
            #expect(try store.events().first?.event.start?.epochSeconds == 1_936_407_600)
            // The first invitation again, in a message dated later: SEQUENCE 0 is older than 1.
            let stale = pipeline.process(
                try Invitation.signed(Invitation.body(Invitation.calendar()), date: "Sun, 22 Nov 2026 09:00:00 +0000", id: "stale"))
            #expect(stale.items.first?.change?.changeKind == .olderThanStored)
            #expect(try store.events().first?.event.start?.epochSeconds == 1_936_407_600)
            let cancel = pipeline.process(
                try Invitation.signed(
                    Invitation.body(Invitation.calendar(method: "CANCEL", sequence: 2, start: "20310512T200000")),
                    date: "Sun, 22 Nov 2026 10:00:00 +0000", id: "cancel"))
            #expect(cancel.items.first?.change?.changeKind == .cancelled)
            #expect(try store.events().first?.event.status == .cancelled)
        }
    }

    @Test("a CANCEL without DTSTART cancels by UID")
    func cancelWithoutStart() throws {
        try Self.withStore { store, pipeline in
            _ = pipeline.process(try Invitation.signed(Invitation.body(Invitation.calendar())))
            let bare = Invitation.calendar(method: "CANCEL", sequence: 1).split(separator: "\r\n")
                .filter { !$0.hasPrefix("DTSTART") && !$0.hasPrefix("DURATION") }.map { $0 + "\r\n" }.joined()
            let cancel = pipeline.process(try Invitation.signed(Invitation.body(bare), date: "Sat, 21 Nov 2026 10:00:00 +0000", id: "cancel"))
            #expect(cancel.items.first?.change?.changeKind == .cancelled)
            #expect(try store.events().first?.event.status == .cancelled)
        }
    }

    @Test("an ORGANIZER not aligned with From: shown, not trusted, not stored, with its own code")
    func misalignedOrganizer() throws {
        try Self.withStore { store, pipeline in
            let report = pipeline.process(
                try Invitation.signed(Invitation.body(Invitation.calendar(organizer: "mailto:promo@attacker.example"))))
            #expect(report.trust.trusted, "the message itself is vouched for")
            #expect(report.items.count == 1)
            #expect(report.items.first?.refusal == .organizerNotAligned(organizer: "promo@attacker.example", fromDomain: "epicsteak.example"))
            #expect(report.items.first?.change == nil)
            #expect(report.diagnostics.map(\.code).contains(.untrusted(.organizerNotAligned)))
            #expect(!report.hasTrustedReservations)
            #expect(try store.events().isEmpty)
        }
    }

    @Test("an ORGANIZER of a subdomain aligns; one that is no mailto: URI does not")
    func organizerForms() throws {
        let sub = try Samples.pipeline(policy: TrustPolicy(allowedDomains: ["epicsteak.example"], publicSuffixes: PublicSuffixList.load()))
            .analyze(try Invitation.signed(Invitation.body(Invitation.calendar(organizer: "MAILTO:events@mail.epicsteak.example"))))
        #expect(sub.items.first?.refusal == nil)
        let uri = try Samples.pipeline().analyze(try Invitation.signed(Invitation.body(Invitation.calendar(organizer: "urn:uuid:1234"))))
        #expect(uri.items.first?.refusal?.code == .organizerNotAligned)
    }

    @Test("no ORGANIZER: trusted on the DKIM signature alone, noted")
    func noOrganizer() throws {
        let report = try Samples.pipeline().analyze(try Invitation.signed(Invitation.body(Invitation.calendar(method: "PUBLISH", organizer: nil))))
        #expect(report.hasTrustedReservations)
        #expect(report.diagnostics.map(\.code).contains(.calendarNoOrganizer))
    }

    @Test("an .ics appended after the signed length (l=) is read but not trusted")
    func appendedAfterLength() throws {
        let text = "--inv-1\nContent-Type: text/plain; charset=utf-8\n\nYour wine tasting is booked.\n"
        let length = text.replacingOccurrences(of: "\n", with: "\r\n").utf8.count
        let forged = String(Invitation.body(Invitation.calendar(uid: "FORGED-1@epicsteak.example")).dropFirst(text.count))
        let report = try Samples.pipeline().analyze(try Invitation.signed(text, appended: forged, signedLength: length))
        #expect(report.signatures.first?.result == .pass)
        #expect(report.items.map(\.reservation.reservationID) == ["FORGED-1@epicsteak.example"])
        #expect(!report.trust.trusted)
        #expect(report.diagnostics.map(\.code).contains(.untrusted(.partialBody)))
    }

    @Test("a Content-Type outside h=: the part structure is not signed, nothing is trusted")
    func unsignedStructure() throws {
        let report = try Samples.pipeline().analyze(
            try Invitation.signed(Invitation.body(Invitation.calendar()), headers: ["From", "To", "Subject", "Date", "Message-ID"]))
        #expect(!report.trust.trusted)
        #expect(report.trust.refusal?.code == .unsignedStructure)
    }

    @Test("an application/octet-stream named .ics is read; one named otherwise is not")
    func octetStream() throws {
        let named = try Samples.pipeline().analyze(try Invitation.signed(Invitation.body(Invitation.calendar(), type: "application/octet-stream")))
        #expect(named.items.count == 1)
        let other = Invitation.body(Invitation.calendar(), type: "application/octet-stream").replacingOccurrences(
            of: "invite.ics", with: "invite.bin")
        #expect(try Samples.pipeline().analyze(try Invitation.signed(other)).items.isEmpty)
    }

    @Test("structured data holding schema.org JSON-LD is read as markup, and replaces the VEVENT's own event")
    func structuredData() throws {
        let json =
            #"{"@context":"https://schema.org","@type":"FoodEstablishmentReservation","reservationId":"IWDSCA","#
            + #""reservationStatus":"https://schema.org/ReservationConfirmed","startTime":"2031-05-12T19:30:00-07:00","#
            + #""reservationFor":{"@type":"Restaurant","name":"EPIC Steak"}}"#
        let property = "X-APPLE-STRUCTURED-DATA;VALUE=BINARY;ENCODING=BASE64:" + Data(json.utf8).base64EncodedString()
        let report = try Samples.pipeline().analyze(try Invitation.signed(Invitation.body(Invitation.calendar(extra: [property]))))
        #expect(report.items.map(\.reservation.reservationID) == ["IWDSCA"])
        #expect(report.items.first?.reservation.category == .food)
        #expect(report.items.first?.reservation.invitation?.organizer == "events@epicsteak.example")
    }

    @Test("a message whose markup describes the booking: its .ics is not read, noted (sample 4)")
    func markupWins() throws {
        let report = try Samples.pipeline().analyze(try Samples.message(4))
        #expect(report.items.count == 2)
        #expect(report.items.allSatisfy { $0.reservation.invitation == nil })
        #expect(report.diagnostics.map(\.code).contains(.calendarNotRead))
    }

    @Test("a hostile calendar part: 1.5 MB of VEVENTs nested in unclosed components is read within the limits")
    func hostile() throws {
        var calendar = "BEGIN:VCALENDAR\r\n" + String(repeating: "BEGIN:X\r\n", count: 20)
        for index in 0..<12_000 {
            calendar += "BEGIN:VEVENT\r\nUID:\(index)\r\nDTSTART:20310101T100000Z\r\nSUMMARY:x\r\nEND:VEVENT\r\n"
        }
        let body = "--inv-1\nContent-Type: text/calendar; charset=utf-8\n\n\(calendar)\n--inv-1--\n"
        let message = Array((Invitation.header(date: "Fri, 20 Nov 2026 10:00:00 +0000", id: "hostile") + body).utf8)
        let report = try Samples.pipeline().analyze(RawMessage(bytes: message, origin: MessageOrigin()))
        #expect(report.items.isEmpty, "every VEVENT lies deeper than the nesting limit")
        #expect(report.diagnostics.map(\.code).contains(.calendar(.limitExceeded)))
        let flat = calendar.replacingOccurrences(of: "BEGIN:X\r\n", with: "")
        let many = try Samples.pipeline().analyze(
            RawMessage(
                bytes: Array(
                    (Invitation.header(date: "Fri, 20 Nov 2026 10:00:00 +0000", id: "many")
                        + "--inv-1\nContent-Type: text/calendar\n\n\(flat)\n--inv-1--\n").utf8),
                origin: MessageOrigin()))
        #expect(many.items.count <= ICalendarLimits.maximumEvents)
        #expect(many.diagnostics.map(\.code).contains(.calendar(.limitExceeded)))
    }

    @Test("a message without calendar parts has none (no part is decoded to find out)")
    func noCalendarParts() throws {
        let message = Message(bytes: try Samples.message(1).bytes)
        #expect(message.calendarParts.isEmpty)
    }
}
