import ReservoirBase
import Testing

@Suite struct CivilTimeTests {
    @Test(
        "days since 1970-01-01 of civil dates",
        arguments: [
            (1970, 1, 1, Int64(0)), (1969, 12, 31, -1), (2000, 2, 29, 11_016), (2000, 3, 1, 11_017),
            (1600, 1, 1, -135_140), (2026, 11, 22, 20_779), (9999, 12, 31, 2_932_896), (1, 1, 1, -719_162),
        ])
    func daysFromCivil(year: Int, month: Int, day: Int, days: Int64) {
        #expect(CivilTime.daysFromCivil(year: year, month: month, day: day) == days)
        #expect(CivilTime.civilFromDays(days) == (year, month, day))
    }

    @Test("civil dates and day counts round-trip over four centuries")
    func roundTrip() {
        var expected = CivilTime.daysFromCivil(year: 1800, month: 1, day: 1)
        for year in 1800...2200 {
            for month in 1...12 {
                for day in 1...CivilTime.daysIn(month: month, year: year) {
                    #expect(CivilTime.daysFromCivil(year: year, month: month, day: day) == expected)
                    let civil = CivilTime.civilFromDays(expected)
                    #expect(civil.year == year && civil.month == month && civil.day == day)
                    expected += 1
                }
            }
        }
    }

    @Test(
        "month lengths",
        arguments: [
            (2024, 2, 29), (2023, 2, 28), (1900, 2, 28), (2000, 2, 29), (2026, 4, 30), (2026, 12, 31), (2026, 1, 31),
        ])
    func daysIn(year: Int, month: Int, days: Int) {
        #expect(CivilTime.daysIn(month: month, year: year) == days)
    }

    @Test(
        "leap years: every fourth, but not centuries unless divisible by 400",
        arguments: [
            (2024, true), (2023, false), (1900, false), (2000, true), (2100, false), (1600, true),
        ])
    func leapYears(year: Int, leap: Bool) {
        #expect(CivilTime.isLeapYear(year) == leap)
    }

    @Test(
        "local date-times read as UTC",
        arguments: [
            ("2026-11-22T12:00:00", Int64(1_795_348_800)), ("2026-11-22T12:00", 1_795_348_800), ("2026-11-22", 1_795_305_600),
            ("1969-12-31T23:59:59", -1), ("2026-11-22Tab:cd", 1_795_305_600),
        ])
    func epochSecondsOfLocal(text: String, epoch: Int64) {
        #expect(CivilTime.epochSeconds(ofLocal: text) == epoch)
    }

    @Test("texts that are not a date", arguments: ["", "2026-1-22", "YYYY-MM-DD", "2026-11"])
    func notADate(text: String) {
        #expect(CivilTime.epochSeconds(ofLocal: text) == nil)
    }

    @Test(
        "UTC stamps of Unix times",
        arguments: [
            (Int64(0), "19700101T000000Z", "1970-01-01T00:00:00Z"),
            (-1, "19691231T235959Z", "1969-12-31T23:59:59Z"),
            (-86_400, "19691231T000000Z", "1969-12-31T00:00:00Z"),
            (1_795_348_800, "20261122T120000Z", "2026-11-22T12:00:00Z"),
            (951_782_399, "20000228T235959Z", "2000-02-28T23:59:59Z"),
            (951_782_400, "20000229T000000Z", "2000-02-29T00:00:00Z"),
        ])
    func stamps(epoch: Int64, stamp: String, iso: String) {
        #expect(CivilTime.utcStamp(epoch) == stamp)
        #expect(CivilTime.iso8601UTC(epoch) == iso)
        #expect(CivilTime.epochSeconds(ofLocal: String(iso.dropLast())) == epoch)
    }

    @Test(
        "zero padding to a width, never cutting",
        arguments: [
            (7, 2, "07"), (7, 4, "0007"), (2026, 4, "2026"), (12_345, 4, "12345"), (0, 2, "00"),
        ])
    func pad(value: Int, width: Int, text: String) {
        #expect(CivilTime.pad(value, width) == text)
    }
}
