import Markup
import Testing

@testable import Reservations

/// A reservation whose dates are not ISO 8601: what a calendar would get, and the note that
/// says which evidence decided (docs/USAGE.md, "Dates senders write").
@Suite("dates senders write, in reservations")
struct DayMonthEvidenceTests {
    static func hotel(checkin: String, checkout: String) -> String {
        """
        {"@type": "LodgingReservation", "reservationNumber": "H-1", "reservationStatus": "ReservationConfirmed",
         "reservationFor": {"@type": "Hotel", "name": "Harborview"}, "checkinDate": "\(checkin)", "checkoutDate": "\(checkout)"}
        """
    }

    static func dinner(_ start: String) -> String {
        """
        {"@type": "FoodEstablishmentReservation", "reservationNumber": "D-1", "reservationStatus": "ReservationConfirmed",
         "reservationFor": {"@type": "Restaurant", "name": "EPIC Steak"}, "startTime": "\(start)"}
        """
    }

    static func read(_ text: String, messageDate: Int64? = nil, now: Int64? = nil) throws -> ReservationExtraction {
        ReservationReader.read(try JSONFixture.items(text), now: now, messageDate: messageDate)
    }

    /// 2031-02-20T12:00:00Z.
    static let february20: Int64 = 1_929_182_400

    @Test("an ISO check-out decides an ambiguous check-in: the reading that comes before and close to it")
    func checkoutDecides() throws {
        // 05/03/2031: 5 March, or May 3, after the check-out.
        let extraction = try Self.read(Self.hotel(checkin: "05/03/2031", checkout: "2031-03-07"))
        let r = try #require(extraction.reservations.first)
        #expect(r.start?.date == "2031-03-05")
        #expect(r.marks.isEmpty)
        let note = try #require(extraction.diagnostics.first { $0.code == .dateRepaired })
        #expect(note.detail == "day-month-by-other-date")
        #expect(note.message.contains("day first"))
    }

    @Test("an ambiguous check-out is decided by an ISO check-in: month first here")
    func checkinDecides() throws {
        // 03/02/2031: March 2 (three weeks on), or 3 February, before the check-in.
        let extraction = try Self.read(Self.hotel(checkin: "2031-02-10", checkout: "03/02/2031"))
        let r = try #require(extraction.reservations.first)
        #expect(r.end?.date == "2031-03-02")
        #expect(extraction.diagnostics.first { $0.code == .dateRepaired }?.message.contains("month first") == true)
    }

    @Test("both dates ambiguous: read in the same order, the one where check-out follows check-in closely")
    func bothAmbiguous() throws {
        // Day-first: 10 to 12 March (2 nights); month-first: 3 October to 3 December (too long).
        let extraction = try Self.read(Self.hotel(checkin: "10/03/2031", checkout: "12/03/2031"))
        let r = try #require(extraction.reservations.first)
        #expect(r.start?.date == "2031-03-10")
        #expect(r.end?.date == "2031-03-12")
        #expect(extraction.diagnostics.filter { $0.code == .dateRepaired }.count == 2)
    }

    static func train(_ departure: String, ticket: String) -> String {
        """
        {"@type": "TrainReservation", "reservationNumber": "R-1", "reservationStatus": "ReservationConfirmed",
         "reservedTicket": {"@type": "Ticket", "ticketNumber": "\(ticket)"},
         "reservationFor": {"@type": "TrainTrip", "trainNumber": "IC 5", "departureStation": {"@type": "TrainStation", "name": "Bern"},
           "departureTime": "\(departure)"}}
        """
    }

    @Test("a ticket number holding the date year first decides, before the message's Date")
    func ticketNumberDecides() throws {
        // 03/02/2031: 3 February or March 2; the ticket number holds 20310302. The message's
        // Date (20 February) would say March 2 as well, but the ticket is asked first.
        let extraction = try Self.read(Self.train("03/02/2031 08:02", ticket: "TK-20310302-0042"))
        let r = try #require(extraction.reservations.first)
        #expect(r.start?.local == "2031-03-02T08:02:00")
        #expect(extraction.diagnostics.first { $0.code == .dateRepaired }?.detail == "day-month-by-ticket-number")
        // A number holding both readings, or neither, decides nothing.
        let both = try Self.read(Self.train("03/02/2031 08:02", ticket: "20310302-20310203"))
        #expect(both.codes.contains("date-ambiguous"))
        let neither = try Self.read(Self.train("03/02/2031 08:02", ticket: "0042"))
        #expect(neither.codes.contains("date-ambiguous"))
    }

    @Test("the message's Date decides when one reading is already past")
    func messageDateDecides() throws {
        // 03/02/2031: 3 February (past on 20 February) or March 2.
        let extraction = try Self.read(Self.dinner("03/02/2031 19:30"), messageDate: Self.february20)
        let r = try #require(extraction.reservations.first)
        #expect(r.start?.local == "2031-03-02T19:30:00")
        #expect(extraction.diagnostics.first { $0.code == .dateRepaired }?.detail == "day-month-by-message-date")
    }

    @Test("nothing decides: the item is kept with its date unknown, marked, and never guessed")
    func undecided() throws {
        let extraction = try Self.read(Self.dinner("03/04/2031 19:30"), messageDate: Self.february20)
        let r = try #require(extraction.reservations.first)
        #expect(r.start == nil)
        #expect(r.marks == [.dateAmbiguous])
        #expect(extraction.codes.contains("date-ambiguous"))
        #expect(!extraction.codes.contains("missing-required-property"))
    }

    @Test("an unambiguous non-ISO date is read and noted, not dropped")
    func repairedIsKept() throws {
        let extraction = try Self.read(Self.dinner("2031-02-02 18:35"))
        let r = try #require(extraction.reservations.first)
        #expect(r.start?.local == "2031-02-02T18:35:00")
        #expect(extraction.diagnostics.first { $0.code == .dateRepaired }?.detail == "space-for-t")
    }

    @Test("a zone name places the wall time in that zone; an abbreviation is floating, with a note")
    func zones() throws {
        let named = try Self.read(Self.dinner("2031-02-02T18:35 Europe/Berlin"))
        #expect(named.reservations.first?.start?.zoneName == "Europe/Berlin")
        #expect(named.reservations.first?.start?.placement == TimeZonePlacement(zone: "Europe/Berlin", evidence: .written))
        #expect(named.reservations.first?.start?.offsetSeconds == 3600)
        #expect(named.diagnostics.first { $0.code == .timeZoneFromName }?.detail == "Europe/Berlin")
        #expect(!named.codes.contains("missing-timezone"))
        let abbreviated = try Self.read(Self.dinner("2031-02-02 18:35 CST"))
        #expect(abbreviated.reservations.first?.start?.offsetSeconds == nil)
        #expect(abbreviated.codes.contains("timezone-abbreviation"))
    }

    @Test(
        "refused dates are noted with their reason; the item without a start is dropped as before",
        arguments: [("tomorrow evening", "free-text"), ("2031-02-30T19:00", "impossible-date"), ("02/03/31 19:00", "two-digit-year")])
    func refused(_ text: String, _ reason: String) throws {
        let extraction = try Self.read(Self.dinner(text))
        #expect(extraction.reservations.isEmpty)
        #expect(extraction.diagnostics.first { $0.code == .invalidValue }?.detail == reason)
        #expect(extraction.codes.contains("missing-required-property"))
    }
}
