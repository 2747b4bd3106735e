import Testing

@testable import BCBP

/// IATA Resolution 792 bar codes: the specification's one-leg example, conditional sections,
/// several legs, and what is refused; every prefix of a valid bar code is read without a trap.
@Suite("BCBP: the boarding pass bar code")
struct BCBPReaderTests {
    /// Resolution 792's example of the mandatory items only (Attachment B, one leg).
    static let mandatoryOnly = "M1DESMARAIS/LUC       EABC123 YULFRAAC 0834 326J001A0025 100"

    /// Two legs with conditional sections: version 6, issued on day 325 of a year ending in 6,
    /// ticket number and frequent flyer on the first leg.
    static let twoLegs =
        "M2DESMARAIS/LUC       EABC123 YULFRAAC 0834 326J001A0025 136>60B1WW6325BAC 25014123456789000AC AC 1234567890123   "
        + "DEF456 FRAGVALH 3664 327C012C0002 11412014098765432100LH "

    @Test("the specification's example: every mandatory item")
    func mandatoryItems() throws {
        let pass = try BCBPReader.read(Self.mandatoryOnly).get()
        #expect(pass.passengerName == "DESMARAIS/LUC")
        #expect(pass.electronicTicket)
        #expect(pass.version == nil)
        let leg = try #require(pass.legs.first)
        #expect(leg.bookingReference == "ABC123")
        #expect((leg.from, leg.to, leg.carrier, leg.flightNumber) == ("YUL", "FRA", "AC", "834"))
        #expect(leg.dayOfYear == 326)
        #expect((leg.compartment, leg.seat, leg.checkInSequence, leg.passengerStatus) == ("J", "1A", "25", "1"))
    }

    @Test("two legs with conditional items, each skipped by its declared size")
    func conditionalSections() throws {
        let pass = try BCBPReader.read(Self.twoLegs).get()
        #expect(pass.legs.count == 2)
        #expect(pass.version == 6)
        #expect(pass.issued?.yearDigit == 6 && pass.issued?.dayOfYear == 325)
        #expect(pass.legs[0].ticketNumber == "0141234567890")
        #expect(pass.legs[0].marketingCarrier == "AC")
        #expect(pass.legs[0].frequentFlyer?.airline == "AC" && pass.legs[0].frequentFlyer?.number == "1234567890123")
        #expect((pass.legs[1].from, pass.legs[1].to, pass.legs[1].carrier, pass.legs[1].flightNumber) == ("FRA", "GVA", "LH", "3664"))
        #expect(pass.legs[1].seat == "12C")
        #expect(pass.legs[1].ticketNumber == "0140987654321")
    }

    @Test(
        "refusals",
        arguments: [
            ("S1DESMARAIS/LUC       EABC123 YULFRAAC 0834 326J001A0025 100", BCBPRefusal.notFormatM),
            ("M0DESMARAIS/LUC       EABC123 YULFRAAC 0834 326J001A0025 100", .invalidLegCount),
            ("M5DESMARAIS/LUC       EABC123 YULFRAAC 0834 326J001A0025 100", .invalidLegCount),
            ("M1DESMARAIS/LUC       EABC123 YU1FRAAC 0834 326J001A0025 100", .invalidItem("from")),
            ("M1DESMARAIS/LUC       EABC123 YULFRAAC 08X4 326J001A0025 100", .invalidItem("flight number")),
            ("M1DESMARAIS/LUC       EABC123 YULFRAAC 0834 400J001A0025 100", .invalidItem("date of flight")),
            ("M1DESMARAIS/LUC       EABC123 YULFRAAC 0834 326J001A0025 1ZZ", .invalidConditionalSize(at: 58)),
            ("M1DESMARAIS/LUC       EABC123 YULFRAAC 0834 326J001A0025 110", .invalidConditionalSize(at: 60)),
        ])
    func refusals(text: String, refusal: BCBPRefusal) {
        #expect(BCBPReader.read(text) == .failure(refusal))
    }

    @Test("every prefix of a valid bar code reads or is refused, never traps")
    func prefixes() {
        let bytes = Array(Self.twoLegs.utf8)
        for end in 0..<bytes.count {
            if case .success = BCBPReader.read(Array(bytes[0..<end])) {
                Issue.record("a bar code cut at \(end) of \(bytes.count) bytes read as whole")
            }
        }
    }

    @Test(
        "the year of a day of the year is the one nearest the evidence",
        arguments: [
            (73, "2031-03-01T00:00:00", 2031, 3, 14),  // March 14 in a common year
            (360, "2031-01-05T00:00:00", 2030, 12, 26),  // late December seen in early January
            (2, "2030-12-28T00:00:00", 2031, 1, 2),  // early January seen in late December
            (366, "2031-06-01T00:00:00", 2032, 12, 31),  // day 366 only in a leap year
        ])
    func flightYear(day: Int, evidence: String, year: Int, month: Int, dayOfMonth: Int) throws {
        let instant = try #require(CivilTimeForTests.epoch(evidence))
        let date = try #require(FlightDate.resolve(dayOfYear: day, near: instant))
        #expect(date.year == year && date.month == month && date.day == dayOfMonth)
    }
}

enum CivilTimeForTests {
    /// `YYYY-MM-DDTHH:MM:SS` read as UTC.
    static func epoch(_ text: String) -> Int64? {
        let parts = text.split(whereSeparator: { "-T:".contains($0) }).compactMap { Int($0) }
        guard parts.count == 6 else { return nil }
        var days = 0
        for year in 1970..<parts[0] { days += FlightDate.isLeap(year) ? 366 : 365 }
        let months = [31, FlightDate.isLeap(parts[0]) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        days += months.prefix(parts[1] - 1).reduce(0, +) + parts[2] - 1
        return Int64(days * 86_400 + parts[3] * 3600 + parts[4] * 60 + parts[5])
    }
}
