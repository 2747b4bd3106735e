import Testing

@testable import TimeZones

/// Offsets and wall-time resolution in real zones of the system's tz database, with figures
/// checked against Python's `zoneinfo`.
@Suite("Time zone rules")
struct TimeZoneRulesTests {
    static func zone(_ name: String) throws -> TimeZoneRules { try TimeZoneRules.load(zone: name) }

    static func local(_ y: Int, _ mo: Int, _ d: Int, _ h: Int, _ mi: Int) -> LocalDateTime {
        LocalDateTime(year: y, month: mo, day: d, hour: h, minute: mi)!
    }

    /// Zone, wall time, UTC instant, offset and designation in effect there.
    static let unique: [(String, LocalDateTime, Int64, Int32, String)] = [
        ("Asia/Kolkata", local(2031, 6, 1, 12, 0), 1_938_061_800, 19_800, "IST"),
        ("Asia/Kathmandu", local(2031, 6, 1, 12, 0), 1_938_060_900, 20_700, "+0545"),
        ("America/St_Johns", local(2031, 1, 15, 9, 0), 1_926_246_600, -12_600, "NST"),
        ("America/St_Johns", local(2031, 7, 15, 9, 0), 1_941_881_400, -9_000, "NDT"),
        ("Pacific/Chatham", local(2031, 1, 15, 12, 0), 1_926_195_300, 49_500, "+1345"),
        ("Pacific/Chatham", local(2031, 7, 15, 12, 0), 1_941_837_300, 45_900, "+1245"),
        // Beyond the last transition of the file: the footer's rule.
        ("Europe/Berlin", local(2100, 7, 1, 12, 0), 4_118_119_200, 7_200, "CEST"),
        ("America/New_York", local(2200, 1, 1, 0, 0), 7_258_136_400, -18_000, "EST"),
    ]

    @Test("a wall time that occurs once gets its one instant and offset", arguments: 0..<unique.count)
    func uniqueTimes(_ index: Int) throws {
        let (name, local, utc, offset, abbreviation) = Self.unique[index]
        let rules = try Self.zone(name)
        let resolution = rules.resolve(local: local)
        #expect(resolution == .unique(utc: utc, type: resolution.type), "\(name) \(local)")
        #expect(resolution.type.utcOffsetSeconds == offset)
        #expect(resolution.type.abbreviation == abbreviation)
        #expect(rules.offset(atUTC: utc) == resolution.type)
    }

    /// Zone, a wall time clocks skip, the instant RFC 5545 §3.3.5 gives it, the wall time shown
    /// then, and the gap.
    static let gaps: [(String, LocalDateTime, Int64, LocalDateTime, Int64)] = [
        ("Europe/Berlin", local(2031, 3, 30, 2, 30), 1_932_600_600, local(2031, 3, 30, 3, 30), 3600),
        ("America/New_York", local(2031, 3, 9, 2, 30), 1_930_807_800, local(2031, 3, 9, 3, 30), 3600),
        ("Australia/Lord_Howe", local(2031, 10, 5, 2, 15), 1_948_895_100, local(2031, 10, 5, 2, 45), 1800),
    ]

    @Test("a wall time skipped as clocks go forward moves forward by the gap (RFC 5545 §3.3.5)", arguments: 0..<gaps.count)
    func nonexistentTimes(_ index: Int) throws {
        let (name, local, utc, shifted, gap) = Self.gaps[index]
        let resolution = try Self.zone(name).resolve(local: local)
        guard case .nonexistent(let at, let type, let shownAs, let gapSeconds) = resolution else {
            Issue.record("\(name) \(local): \(resolution)")
            return
        }
        #expect(at == utc)
        #expect(shownAs == shifted)
        #expect(gapSeconds == gap)
        #expect(type.isDST)
    }

    /// Zone, a wall time that occurs twice, both instants.
    static let overlaps: [(String, LocalDateTime, Int64, Int64)] = [
        ("Europe/Berlin", local(2031, 10, 26, 2, 30), 1_950_741_000, 1_950_744_600),
        ("America/New_York", local(2031, 11, 2, 1, 30), 1_951_363_800, 1_951_367_400),
        ("Australia/Lord_Howe", local(2031, 4, 6, 1, 45), 1_933_166_700, 1_933_168_500),
    ]

    @Test("a wall time repeated as clocks go back means its first occurrence (RFC 5545 §3.3.5)", arguments: 0..<overlaps.count)
    func ambiguousTimes(_ index: Int) throws {
        let (name, local, earlier, later) = Self.overlaps[index]
        let resolution = try Self.zone(name).resolve(local: local)
        guard case .ambiguous(let first, let firstType, let second, let secondType) = resolution else {
            Issue.record("\(name) \(local): \(resolution)")
            return
        }
        #expect(first == earlier && second == later)
        #expect(firstType.isDST && !secondType.isDST)
        #expect(resolution.utc == earlier)
    }

    @Test("Europe/Berlin changes twice in 2031, at 01:00 UTC on the last Sundays of March and October")
    func berlin2031() throws {
        let rules = try Self.zone("Europe/Berlin")
        let year = rules.transitions(from: 1_924_992_000, to: 1_956_528_000)  // 2031-01-01Z … 2032-01-01Z
        #expect(year.map(\.atUTC) == [1_932_598_800, 1_950_742_800])
        #expect(year.map(\.after.abbreviation) == ["CEST", "CET"])
        #expect(rules.offset(atUTC: 1_932_598_799).abbreviation == "CET")
        #expect(rules.offset(atUTC: 1_932_598_800).abbreviation == "CEST")
    }

    @Test("footer rules alone: Southern-hemisphere daylight time and J-day rules")
    func footerRules() throws {
        let south = try POSIXTimeZoneRule(parsing: Array("<+1030>-10:30<+11>-11,M10.1.0,M4.1.0".utf8))
        #expect(south.type(atUTC: 1_926_195_300).abbreviation == "+11")  // January
        #expect(south.type(atUTC: 1_941_837_300).abbreviation == "+1030")  // July
        // Day 60 of a J rule is 1 March even in leap years; the plain form counts 29 February.
        let julian = try POSIXTimeZoneRule(parsing: Array("AAA0BBB,J60/0,300/0".utf8))
        let march1 = julian.transitions(year: 2032)[0].atUTC
        #expect(LocalDateTime(localSeconds: march1) == Self.local(2032, 3, 1, 0, 0))
        // Daylight time all year (RFC 8536 §3.3.1): no instant in standard time.
        let always = try POSIXTimeZoneRule(parsing: Array("EST5EDT,0/0,J365/25".utf8))
        for instant in stride(from: Int64(1_900_000_000), to: 2_000_000_000, by: 3_456_789) {
            #expect(always.type(atUTC: instant).isDST)
        }
    }
}
