import EventStore
import Testing

@testable import Feed

@Suite("The page of upcoming reservations")
struct UpcomingPageTests {
    static let now: Int64 = 1_795_000_000
    static let links = FeedLinks(host: "cal.example:8645", path: "/calendar.ics", scheme: "http")
    static let hostile = "<script>alert('x')</script>\"><img src=x onerror=alert(1)>&amp;"

    @Test("text is escaped; markup is not")
    func escaping() {
        #expect(HTMLText.escape("<a href=\"x\">'&'</a>") == "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;")
        #expect(HTMLText.escape("a\u{0}b\u{1b}c\td\u{7F}\u{9B}") == "abc\td")
        // Line breaks other than LF become spaces: no reader splitting the page into lines finds one the text made.
        #expect(
            HTMLText.escape("Gala\u{2028}END:VEVENT\u{2029}x\u{85}y\u{0B}z\u{0C}\r\n")
                == "Gala END:VEVENT x y z  \n")
        let text = "<b>"
        let html: HTMLText = "<p>\(text)</p>"
        #expect(html.html == "<p>&lt;b&gt;</p>")
    }

    @Test("every text from the store is escaped: title, place, domain, booking, history")
    func hostileStore() {
        var event = storedEvent(
            container: Self.hostile, title: Self.hostile, start: Self.now + 3600, location: Self.hostile, owner: Self.hostile)
        event.event.key = EventKey(owner: "", container: Self.hostile, item: "1")
        let history = HistoryEntry(
            key: event.event.key, sequence: 0, change: .created, messageID: nil, path: nil, signingDomain: nil,
            messageDate: nil, appliedAt: Self.now, summary: Self.hostile)
        let html = UpcomingPage(now: Self.now, links: FeedLinks(host: Self.hostile, path: "/calendar.ics", scheme: "http"))
            .render([PageEntry(stored: event, history: [history])])
        #expect(!html.contains("<script"))
        #expect(!html.contains("<img"))
        #expect(!html.contains("'x'"))
        #expect(!html.contains("\"><img"))
        #expect(html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&quot;&gt;&lt;img src=x onerror=alert(1)&gt;&amp;amp;"))
    }

    @Test("a cancelled booking is flagged and struck through; an unsigned one says not verified")
    func statusAndVouching() {
        let cancelled = storedEvent(start: Self.now + 60, status: .cancelled)
        let unsigned = storedEvent(container: "K7Q2PX", title: "Flight", start: Self.now + 120, owner: nil)
        let html = UpcomingPage(now: Self.now, links: Self.links).render([
            PageEntry(stored: cancelled, history: []), PageEntry(stored: unsigned, history: []),
        ])
        #expect(html.contains("<article class=\"cancelled\">"))
        #expect(html.contains("<span class=\"status\">Cancelled</span>"))
        #expect(html.contains(".cancelled h2 .title{text-decoration:line-through"))
        #expect(html.contains("epicsteak.example <span class=\"muted\">(DKIM)</span>"))
        #expect(html.contains("<dd class=\"unverified\">not verified</dd>"))
        #expect(html.contains("<meta name=\"viewport\" content=\"width=device-width"))
        #expect(html.contains("href=\"webcal://cal.example:8645/calendar.ics\""))
        #expect(html.contains("href=\"http://cal.example:8645/calendar.ics\""))
        #expect(!html.contains("<script"))
    }

    @Test("times show their offset (and zone, when placed in one), or local time when floating")
    func times() {
        let zoned = EventTime(text: "", local: "2031-05-12T19:30:00", offsetSeconds: -25_200, epochSeconds: 1_936_499_400)
        let floating = EventTime(text: "", local: "2031-06-03T08:15:00", offsetSeconds: nil, epochSeconds: nil)
        let east = EventTime(text: "", local: "2031-06-03T08:15:00", offsetSeconds: 19_800, epochSeconds: 0)
        #expect(UpcomingPage.timeText(zoned) == "Mon 12 May 2031, 19:30 (UTC−07:00)")
        #expect(UpcomingPage.timeText(floating) == "Tue 3 Jun 2031, 08:15 (local time)")
        #expect(UpcomingPage.timeText(east) == "Tue 3 Jun 2031, 08:15 (UTC+05:30)")
        let later = EventTime(text: "", local: "2031-06-03T10:22:00", offsetSeconds: 19_800, epochSeconds: 0)
        let nextDay = EventTime(text: "", local: "2031-06-04T10:22:00", offsetSeconds: 19_800, epochSeconds: 0)
        #expect(UpcomingPage.spanText(east, later) == "Tue 3 Jun 2031, 08:15–10:22 (UTC+05:30)")
        #expect(UpcomingPage.spanText(east, nextDay) == "Tue 3 Jun 2031, 08:15 (UTC+05:30) – Wed 4 Jun 2031, 10:22 (UTC+05:30)")
        #expect(UpcomingPage.spanText(floating, floating) == "Tue 3 Jun 2031, 08:15–08:15 (local time)")
        // A time placed in a zone shows the zone's name before its offset.
        let departure = EventTime(
            text: "", local: "2031-06-03T08:15:00", offsetSeconds: -25_200, epochSeconds: 1_938_259_700, zone: "America/Los_Angeles")
        let arrival = EventTime(
            text: "", local: "2031-06-03T10:22:00", offsetSeconds: -25_200, epochSeconds: 1_938_267_320, zone: "America/Los_Angeles")
        #expect(UpcomingPage.timeText(departure) == "Tue 3 Jun 2031, 08:15 America/Los_Angeles (UTC−07:00)")
        #expect(UpcomingPage.spanText(departure, arrival) == "Tue 3 Jun 2031, 08:15–10:22 America/Los_Angeles (UTC−07:00)")
    }

    @Test("upcoming means a start at or after now")
    func upcoming() {
        #expect(UpcomingPage.isUpcoming(storedEvent(start: Self.now), now: Self.now))
        #expect(!UpcomingPage.isUpcoming(storedEvent(start: Self.now - 1), now: Self.now))
        #expect(UpcomingPage.isUpcoming(storedEvent(start: Self.now + 1, status: .cancelled), now: Self.now))
    }
}
