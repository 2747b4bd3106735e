import Testing

@testable import MIME

@Suite struct MessageDateTests {
    /// (value, epoch seconds, offset seconds); epochs from Python's email.utils.parsedate_tz + mktime_tz.
    static let valid: [(String, Int64, Int)] = [
        ("Tue, 1 Jul 2003 10:52:37 +0200", 1_057_049_557, 7200),
        ("Fri, 21 Nov 1997 09:55:06 -0600", 880_127_706, -21600),
        ("Thu,\n   13\n  Feb\n    1969\n  23:32\n  -0330 (Newfoundland Time)", -27_723_480, -12600),
        (" 1 Jul 2003 (comment about date) 10:52:37 +0200", 1_057_049_557, 7200),
        ("21 Nov 97 09:55:06 GMT", 880_106_106, 0),
        ("Wed, 27 Jun 99 04:11 +0900", 930_424_260, 32400),
        ("Sun, 27 Oct 2002 23:57:07 EST", 1_035_781_027, -18000),
        ("Thu, 10 Jul 1997 14:53:31 EST5EDT", 868_564_411, -18000),
        ("Mon, 2 Jan 2006 15:04:05 PDT", 1_136_239_445, -25200),
        ("2 Jan 06 15:04:05 UT", 1_136_214_245, 0),
        ("2 Jan 2006 15:04:05 Z", 1_136_214_245, 0),
        ("Mon Jan  2 15:04:05 2006", 1_136_214_245, 0),
        ("Mon, 2 Jan 2006 15:04:05 -0000", 1_136_214_245, 0),
        ("Mon, 2 Jan 2006 15:04:05 A", 1_136_214_245, 0),
        ("1 January 2006 00:00:00 +0000", 1_136_073_600, 0),
        ("29 Feb 2024 12:00:00 +1345", 1_709_158_500, 49500),
        ("2 Jan 106 15:04:05 +0000", 1_136_214_245, 0),
        ("2006-01-02 15:04:05 +0000", 1_136_214_245, 0),
        ("2006-01-02T08:04:05-07:00", 1_136_214_245, -25200),
        ("2006-01-02T15:04:05.123Z", 1_136_214_245, 0),
    ]

    @Test(arguments: valid)
    func parses(_ value: String, _ epoch: Int64, _ offset: Int) {
        let date = MessageDate.parse(Array(value.utf8))
        #expect(date == MessageDate(epochSeconds: epoch, offsetSeconds: offset))
    }

    @Test(arguments: [
        "some numbers 0 1 2 but invalid",
        "13 zzz 2021 09:55:06 +0200",
        "Tue, 7 00 2026 19:14:51 +0000",
        "30 Feb 2023 10:00:00 +0000",
        "1 Jan 2023 25:00:00 +0000",
        "",
    ])
    func rejects(_ value: String) {
        #expect(MessageDate.parse(Array(value.utf8)) == nil)
    }
}
