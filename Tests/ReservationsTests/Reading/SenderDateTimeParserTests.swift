import Testing

@testable import Reservations

/// Every form of docs/USAGE.md's "Dates senders write", one row each: what a calendar would
/// show (civil time, offset, zone) and the repairs the note names.
@Suite("SenderDateTimeParser")
struct SenderDateTimeParserTests {
    struct Read: Sendable, CustomTestStringConvertible {
        var text: String
        var local: String
        var offset: Int?
        var repairs: [DateTimeRepair]
        var zone: String? = nil
        var testDescription: String { text }
    }

    static let read: [Read] = [
        // The strict reading already takes these; it names what is not ISO 8601.
        Read(text: "2018-02-02 18:35", local: "2018-02-02T18:35:00", offset: nil, repairs: [.spaceForT]),
        Read(text: "2018-02-02T18:35", local: "2018-02-02T18:35:00", offset: nil, repairs: []),
        Read(text: "2018-02-02T18:35:07.125+01:00", local: "2018-02-02T18:35:07", offset: 3600, repairs: []),
        Read(text: "2018-02-02t18:35:00z", local: "2018-02-02T18:35:00", offset: 0, repairs: [.lowerCase]),
        Read(text: "2018-02-02T18:35:00+0100", local: "2018-02-02T18:35:00", offset: 3600, repairs: [.offsetWithoutColon]),
        Read(text: "2018-02-02T18:35:00-0530", local: "2018-02-02T18:35:00", offset: -19_800, repairs: [.offsetWithoutColon]),
        Read(text: " \t2018-02-02T18:35:00Z\n", local: "2018-02-02T18:35:00", offset: 0, repairs: []),
        // The repairs after the strict reading failed.
        Read(text: "2017-06-15T14:00:00+0:00", local: "2017-06-15T14:00:00", offset: 0, repairs: [.oneDigitOffsetHour]),
        Read(text: "2017-06-15T14:00:00-5:30", local: "2017-06-15T14:00:00", offset: -19_800, repairs: [.oneDigitOffsetHour]),
        Read(text: "2017-06-15T14:00:00+530", local: "2017-06-15T14:00:00", offset: 19_800, repairs: [.offsetWithoutColon, .oneDigitOffsetHour]),
        Read(text: "2018-02-02T18:35:00+01:00Z", local: "2018-02-02T18:35:00", offset: 3600, repairs: [.zAfterOffset]),
        Read(text: "2018-02-02T18:35:00+01:00z", local: "2018-02-02T18:35:00", offset: 3600, repairs: [.zAfterOffset]),
        Read(text: "2018-02-02 18:35 +01:00", local: "2018-02-02T18:35:00", offset: 3600, repairs: [.spaceForT, .spaceBeforeOffset]),
        Read(text: "2018-02-02 9:05", local: "2018-02-02T09:05:00", offset: nil, repairs: [.spaceForT, .oneDigitHour]),
        // A 12-hour clock: the afternoon, midnight and noon, with a zone after it.
        Read(text: "06/15/2031 8:00 PM", local: "2031-06-15T20:00:00", offset: nil, repairs: [.monthFirst, .oneDigitHour, .twelveHourClock]),
        Read(text: "2031-06-15 8:00pm", local: "2031-06-15T20:00:00", offset: nil, repairs: [.spaceForT, .oneDigitHour, .twelveHourClock]),
        Read(text: "2031-06-15 12:05 a.m.", local: "2031-06-15T00:05:00", offset: nil, repairs: [.spaceForT, .twelveHourClock]),
        Read(text: "2031-06-15 12:30 PM", local: "2031-06-15T12:30:00", offset: nil, repairs: [.spaceForT, .twelveHourClock]),
        Read(
            text: "2031-06-15 9:15 AM UTC", local: "2031-06-15T09:15:00", offset: 0, repairs: [.spaceForT, .oneDigitHour, .twelveHourClock, .utcName]),
        Read(text: "2018-02-02 18:35 UTC", local: "2018-02-02T18:35:00", offset: 0, repairs: [.spaceForT, .utcName]),
        Read(text: "2018-02-02T18:35 GMT", local: "2018-02-02T18:35:00", offset: 0, repairs: [.utcName]),
        Read(text: "2018/02/03", local: "2018-02-03T00:00:00", offset: nil, repairs: [.yearFirstSlashes]),
        Read(text: "2018/02/03 18:35", local: "2018-02-03T18:35:00", offset: nil, repairs: [.yearFirstSlashes]),
        Read(text: "13-02-2018", local: "2018-02-13T00:00:00", offset: nil, repairs: [.dayFirst]),
        Read(text: "13/02/2018 18:35", local: "2018-02-13T18:35:00", offset: nil, repairs: [.dayFirst]),
        Read(text: "02-13-2018 18:35", local: "2018-02-13T18:35:00", offset: nil, repairs: [.monthFirst]),
        Read(text: "2/13/2018", local: "2018-02-13T00:00:00", offset: nil, repairs: [.monthFirst]),
        Read(text: "02.03.2018", local: "2018-03-02T00:00:00", offset: nil, repairs: [.dayFirstDots]),
        Read(text: "02.03.2018 18:35", local: "2018-03-02T18:35:00", offset: nil, repairs: [.dayFirstDots]),
        Read(text: "02.13.2018", local: "2018-02-13T00:00:00", offset: nil, repairs: [.monthFirst]),
        Read(text: "02-02-2018 18:35", local: "2018-02-02T18:35:00", offset: nil, repairs: [.dayEqualsMonth]),
        Read(text: "02/02/2018", local: "2018-02-02T00:00:00", offset: nil, repairs: [.dayEqualsMonth]),
        Read(
            text: "2018-02-02T18:35 Europe/Berlin", local: "2018-02-02T18:35:00", offset: nil, repairs: [.zoneName],
            zone: "Europe/Berlin"),
        Read(
            text: "2018-02-02 18:35 America/Argentina/Buenos_Aires", local: "2018-02-02T18:35:00", offset: nil,
            repairs: [.spaceForT, .zoneName], zone: "America/Argentina/Buenos_Aires"),
        Read(
            text: "2018-02-02T18:35:00+01:00[Europe/Paris]", local: "2018-02-02T18:35:00", offset: 3600, repairs: [.zoneName],
            zone: "Europe/Paris"),
        Read(text: "2018-02-02T18:35[Etc/GMT+5]", local: "2018-02-02T18:35:00", offset: nil, repairs: [.zoneName], zone: "Etc/GMT+5"),
        Read(text: "2018-02-02 18:35 CET", local: "2018-02-02T18:35:00", offset: nil, repairs: [.spaceForT, .zoneAbbreviation], zone: "CET"),
        Read(text: "2018-02-02T18:35:00 CST", local: "2018-02-02T18:35:00", offset: nil, repairs: [.zoneAbbreviation], zone: "CST"),
    ]

    @Test("forms senders write are read, each repair named", arguments: read)
    func reads(_ c: Read) throws {
        guard case .read(let value) = DateTimeReading.read(c.text) else {
            Issue.record("not read: \(DateTimeReading.read(c.text))")
            return
        }
        #expect(value.local == c.local)
        #expect(value.offsetSeconds == c.offset)
        #expect(value.repairs == c.repairs)
        #expect(value.zoneName == c.zone)
    }

    struct Ambiguous: Sendable, CustomTestStringConvertible {
        var text: String
        var dayFirst: String
        var monthFirst: String
        var testDescription: String { text }
    }

    @Test(
        "day and month both 12 or less and different, without dots: both readings, none chosen",
        arguments: [
            Ambiguous(text: "02/03/2018", dayFirst: "2018-03-02T00:00:00", monthFirst: "2018-02-03T00:00:00"),
            Ambiguous(text: "02-03-2018 18:35", dayFirst: "2018-03-02T18:35:00", monthFirst: "2018-02-03T18:35:00"),
            Ambiguous(text: "1/12/2018 7:00 CET", dayFirst: "2018-12-01T07:00:00", monthFirst: "2018-01-12T07:00:00"),
        ])
    func ambiguous(_ c: Ambiguous) {
        guard case .ambiguous(let readings) = DateTimeReading.read(c.text) else {
            Issue.record("not ambiguous: \(DateTimeReading.read(c.text))")
            return
        }
        #expect(readings.dayFirst.local == c.dayFirst)
        #expect(readings.monthFirst.local == c.monthFirst)
    }

    @Test(
        "what stays refused, with its reason",
        arguments: [
            ("tomorrow evening", DateTimeRefusal.freeText), ("May 12, 2031", .freeText), ("18:35 CET", .freeText),
            ("", .freeText), ("2018-02-02T18:35 Moon/Base", .freeText), ("2018-02-02T18:35 cet", .freeText),
            ("2018-02-02T18:35 +01:00 CET", .freeText), ("2018-02-02T18:35:00.Z", .freeText),
            ("2018-02-02T18:35[u-ca=hebrew]", .freeText), ("2018-02-02T18:35+01:00[CET]", .freeText),
            ("2018-02-30", .impossibleDate), ("30.02.2018", .impossibleDate), ("31/04/2018", .impossibleDate),
            ("13/13/2018", .impossibleDate), ("0-02-1235", .impossibleDate), ("00/00/2018", .impossibleDate), ("2018-13-01", .impossibleDate),
            ("2018-02-02T24:00", .impossibleTime),
            ("2018-02-02 18:61", .impossibleTime), ("2018-02-02 13:00 PM", .impossibleTime), ("2018-02-02 0:30 AM", .impossibleTime),
            ("2018-02-02T18:35+24:00", .impossibleTime),
            ("2018-02-02T18:35+05:60", .impossibleTime), ("02/03/18", .twoDigitYear), ("02.03.18 18:35", .twoDigitYear),
            ("2018-02-02T18:35:00." + String(repeating: "5", count: 100), .tooLong),
        ])
    func refuses(_ text: String, _ refusal: DateTimeRefusal) {
        #expect(DateTimeReading.read(text) == .refused(refusal))
    }

    @Test("a long fraction neither overflows nor traps")
    func longFraction() {
        let value = DateTimeReading.read("2018-02-02T18:35:00." + String(repeating: "9", count: 60) + "+1:00").value
        #expect(value?.offsetSeconds == 3600)
    }

    @Test("strict ISO 8601 takes the fast path and carries no repair")
    func strictIsUnrepaired() throws {
        let value = try #require(DateTimeValue(parsing: "2031-05-12T19:30:00-07:00"))
        #expect(value.repairs.isEmpty)
        #expect(DateTimeReading.read("2031-05-12T19:30:00-07:00") == .read(value))
    }

    @Test("every prefix of every form is read, refused or ambiguous without trapping")
    func prefixes() {
        for c in Self.read {
            let bytes = Array(c.text.utf8)
            for end in 0...bytes.count {
                _ = DateTimeReading.read(String(decoding: bytes[0..<end], as: UTF8.self))
            }
        }
    }
}
