import Testing

@testable import Reservations

@Suite("DateTimeValue")
struct DateTimeValueTests {
    struct Valid: Sendable, CustomTestStringConvertible {
        var text: String
        var local: String
        var offset: Int?
        var epoch: Int64?
        var dateOnly = false
        var testDescription: String { text }
    }

    static let valid: [Valid] = [
        Valid(text: "2031-05-12", local: "2031-05-12T00:00:00", offset: nil, epoch: nil, dateOnly: true),
        Valid(text: "2031-05-12T19:30:00-07:00", local: "2031-05-12T19:30:00", offset: -25_200, epoch: 1_936_405_800),
        Valid(text: "2031-05-12T19:30-07:00", local: "2031-05-12T19:30:00", offset: -25_200, epoch: 1_936_405_800),
        Valid(text: "2031-05-12T19:30:00.250-0700", local: "2031-05-12T19:30:00", offset: -25_200, epoch: 1_936_405_800),
        Valid(text: "2031-05-12T19:30:00,5-07", local: "2031-05-12T19:30:00", offset: -25_200, epoch: 1_936_405_800),
        Valid(text: "2031-05-13T02:30:00Z", local: "2031-05-13T02:30:00", offset: 0, epoch: 1_936_405_800),
        Valid(text: "2031-05-13t02:30:00z", local: "2031-05-13T02:30:00", offset: 0, epoch: 1_936_405_800),
        Valid(text: "2031-05-13 08:00:00+05:30", local: "2031-05-13T08:00:00", offset: 19_800, epoch: 1_936_405_800),
        Valid(text: "  2031-05-12T19:30:00  ", local: "2031-05-12T19:30:00", offset: nil, epoch: nil),
        Valid(text: "2031-05-12T19:30", local: "2031-05-12T19:30:00", offset: nil, epoch: nil),
        Valid(text: "2032-02-29T23:59:59+14:00", local: "2032-02-29T23:59:59", offset: 50_400, epoch: 1_961_661_599),
        Valid(text: "1970-01-01T00:00:00Z", local: "1970-01-01T00:00:00", offset: 0, epoch: 0),
        Valid(text: "2000-02-29", local: "2000-02-29T00:00:00", offset: nil, epoch: nil, dateOnly: true),
    ]

    @Test("valid ISO 8601 values", arguments: valid)
    func parsesValid(_ c: Valid) throws {
        let value = try #require(DateTimeValue(parsing: c.text))
        #expect(value.local == c.local)
        #expect(value.offsetSeconds == c.offset)
        #expect(value.epochSeconds == c.epoch)
        #expect(value.isDateOnly == c.dateOnly)
        #expect(value.text == c.text.trimmingSpaces)
    }

    @Test(
        "invalid values are rejected",
        arguments: [
            "", "2031", "2031-5-12", "2031/05/12", "2031-13-01", "2031-00-10", "2031-04-31", "2031-02-29",
            "1900-02-29", "2031-05-12T24:00:00Z", "2031-05-12T19:60Z", "2031-05-12T19:30:61Z",
            "2031-05-12T19", "2031-05-12T19:30:00+24:00", "2031-05-12T19:30:00+05:60", "2031-05-12T19:30:00+5",
            "2031-05-12T19:30:00 PST", "2031-05-12T19:30:00.Z", "2031-05-12X19:30", "2031-05-12T19:30:00Zjunk",
            "2031-05-12T19:30:00+05:3", "May 12, 2031", "2031-05-12-07:00", "２０３１-05-12",
            "2031-05-12T19:30:00+00:00" + String(repeating: "0", count: 60),
        ])
    func rejectsInvalid(_ text: String) {
        #expect(DateTimeValue(parsing: text) == nil)
    }

    @Test("the same instant in different offsets has one epoch")
    func sameInstant() throws {
        let a = try #require(DateTimeValue(parsing: "2031-06-03T08:15:00-07:00"))
        let b = try #require(DateTimeValue(parsing: "2031-06-03T15:15:00Z"))
        #expect(a.epochSeconds == b.epochSeconds)
        #expect(a != b)
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return String(s)
    }
}
