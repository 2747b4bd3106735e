import EventStore
import Foundation
import ReservoirBase
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
            container: Self.hostile, title: Self.hostile, start: Self.now + 3600, location: Self.hostile, owner: .domain(Self.hostile))
        event.event.key = EventKey(owner: .unproven, container: Self.hostile, item: "1")
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
        #expect(html.contains("<del>Reservation: EPIC Steak</del>"))
        #expect(html.contains("epicsteak.example <span class=\"muted\">(signed mail)</span>"))
        #expect(!html.contains("DKIM"))
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
        // A stay under way (started, not ended) is still shown; one that has ended is not.
        #expect(UpcomingPage.isUpcoming(storedEvent(start: Self.now - 86_400, end: Self.now + 3600), now: Self.now))
        #expect(!UpcomingPage.isUpcoming(storedEvent(start: Self.now - 86_400, end: Self.now - 1), now: Self.now))
    }

    @Test("upcoming bookings come first by start, the cancelled ones after under their own heading, struck through")
    func order() {
        let later = storedEvent(container: "LATER", title: "Hotel: Later", start: Self.now + 7200)
        let gone = storedEvent(container: "GONE", title: "Reservation: Gone", start: Self.now + 60, status: .cancelled)
        let soon = storedEvent(container: "SOON", title: "Flight: Soon", start: Self.now + 600)
        let html = UpcomingPage(now: Self.now, links: Self.links).render(
            [gone, soon, later].map { PageEntry(stored: $0, history: []) })
        let positions = ["Flight: Soon", "Hotel: Later", ">Cancelled</h2>", "<del>Reservation: Gone</del>"].map {
            html.range(of: $0)?.lowerBound
        }
        #expect(positions.allSatisfy { $0 != nil }, "\(html)")
        let found = positions.compactMap { $0 }
        #expect(found == found.sorted(), "\(html)")
        #expect(!html.contains("<del>Flight: Soon"))
    }

    @Test("senders waiting for the person's choice come after the bookings still on and before the cancelled ones; the add form last")
    func pendingBeforeCancelled() {
        let gone = storedEvent(container: "GONE", title: "Reservation: Gone", start: Self.now + 60, status: .cancelled)
        let soon = storedEvent(container: "SOON", title: "Flight: Soon", start: Self.now + 600)
        let forms = PageForms(token: "t", pending: [PendingSender(domain: "newairline.example", count: 1, titles: ["Flight: New"])])
        let html = UpcomingPage(now: Self.now, links: Self.links, forms: forms).render([gone, soon].map { PageEntry(stored: $0, history: []) })
        let positions = ["Flight: Soon", ">Senders waiting for you</h2>", "newairline.example", ">Cancelled</h2>", ">Add a confirmation page</h2>"]
            .map { html.range(of: $0)?.lowerBound }
        #expect(positions.allSatisfy { $0 != nil }, "\(html)")
        let found = positions.compactMap { $0 }
        #expect(found == found.sorted(), "\(html)")
    }

    @Test("the page names its account at the top and in its title; the implicit account's page names no one")
    func whosePage() {
        let soon = [PageEntry(stored: storedEvent(container: "SOON", title: "Flight: Soon", start: Self.now + 600), history: [])]
        let jane = UpcomingPage(now: Self.now, links: Self.links, account: Account(normalizedAddress: "jane<b>@example.org")).render(soon)
        #expect(jane.contains("<h1>Upcoming reservations</h1>\n<p class=\"owner\">jane&lt;b&gt;@example.org</p>"), "\(jane)")
        #expect(jane.contains("<title>Upcoming reservations of jane&lt;b&gt;@example.org</title>"))
        for page in [UpcomingPage(now: Self.now, links: Self.links, account: .implicit), UpcomingPage(now: Self.now, links: Self.links)] {
            let html = page.render(soon)
            #expect(!html.contains("class=\"owner\""))
            #expect(html.contains("<title>Upcoming reservations</title>"))
        }
    }

    @Test("the answer to Trust and Dismiss says in words what happened, with titles and reasons but no item ids")
    func decisionWords() {
        #expect(
            PageActionResult.trusted(domain: "airline.example", added: ["Flight to Lisbon", "Hotel Lisboa"], notAdded: []).summary
                == "Reservations from airline.example are now trusted: 2 added (Flight to Lisbon; Hotel Lisboa).")
        #expect(
            PageActionResult.trusted(domain: "airline.example", added: [], notAdded: [("Your booking", "the signature no longer verifies")])
                .summary
                == "Reservations from airline.example are now trusted: nothing waiting was added.\nNot added, “Your booking”: the signature no longer verifies."
        )
        #expect(
            PageActionResult.refused(domain: "spam.example", dropped: 1).summary
                == "Reservations from spam.example are now refused: 1 waiting reservation dropped.")
        // Shown escaped, as every text from a command.
        let page = ActionResultPage(result: .trusted(domain: "a.example", added: ["<b>x</b>"], notAdded: []), back: "/t/").render()
        #expect(page.contains("1 added (&lt;b&gt;x&lt;/b&gt;).") && !page.contains("<b>x"))
    }

    @Test("seat, gate and boarding time first; check-in and manage links as buttons; the phone a tel: link; a map link")
    func details() throws {
        let notes = """
            Booking reference: K7Q2PX
            Seat: 14A
            Check-in URL: https://www.cascadia-air.example/checkin?pnr=K7Q2PX&x=1
            Gate: B12
            Boarding time: Tue 3 Jun 2031, 07:35
            Manage booking: https://www.cascadia-air.example/manage/K7Q2PX
            Phone: +1 (415) 369-9955
            """
        let event = storedEvent(
            start: Self.now + 60, location: "EPIC Steak, 369 The Embarcadero, San Francisco & Co?x=1#y", notes: notes,
            url: "https://www.cascadia-air.example/manage/K7Q2PX")
        let html = UpcomingPage(now: Self.now, links: Self.links).render([PageEntry(stored: event, history: [])])
        #expect(html.contains("<dt>Boarding time</dt><dd class=\"key\">Tue 3 Jun 2031, 07:35</dd>"))
        #expect(html.contains("<dt>Gate</dt><dd class=\"key\">B12</dd>"))
        #expect(html.contains("<dt>Seat</dt><dd class=\"key\">14A</dd>"))
        // Boarding time, gate, seat before the booking reference.
        let boarding = try #require(html.range(of: "Boarding time")).lowerBound
        let reference = try #require(html.range(of: "Booking reference")).lowerBound
        #expect(boarding < reference)
        #expect(
            html.contains("<a class=\"button\" href=\"https://www.cascadia-air.example/checkin?pnr=K7Q2PX&amp;x=1\" rel=\"noreferrer\">Check in</a>"))
        #expect(
            html.contains(
                "<a class=\"button secondary\" href=\"https://www.cascadia-air.example/manage/K7Q2PX\" rel=\"noreferrer\">Manage booking</a>"))
        // The event's own link is the manage link: one button, not two.
        #expect(html.components(separatedBy: "manage/K7Q2PX\"").count == 2)
        #expect(!html.contains("Check-in URL"))
        #expect(html.contains("<dt>Phone</dt><dd><a href=\"tel:+14153699955\">+1 (415) 369-9955</a></dd>"))
        // The place percent-encoded into one query value: no `&`, `?` or `#` of its own.
        #expect(
            html.contains(
                "href=\"https://www.openstreetmap.org/search?query=EPIC%20Steak%2C%20369%20The%20Embarcadero%2C%20San%20Francisco%20%26%20Co%3Fx%3D1%23y\""
            ))
    }

    @Test("only http and https addresses become links: javascript:, data: and the like are shown as text")
    func hostileLinks() {
        let notes = """
            Check-in URL: javascript:alert(document.cookie)
            Manage booking: JaVaScRiPt:alert(1)
            View: data:text/html,<script>alert(1)</script>
            Confirm booking: java\tscript:alert(1)
            Cancel booking: https://
            Phone: javascript:alert(1)
            """
        let event = storedEvent(start: Self.now + 60, notes: notes, url: "vbscript:msgbox(1)")
        let html = UpcomingPage(now: Self.now, links: Self.links).render([PageEntry(stored: event, history: [])])
        #expect(!html.lowercased().contains("href=\"javascript"))
        #expect(!html.contains("href=\"data:"))
        #expect(!html.contains("href=\"vbscript:"))
        #expect(!html.contains("href=\"https://\""))
        #expect(!html.contains("href=\"tel:"))
        #expect(!html.contains("<script>"))
        // Shown, as text.
        #expect(html.contains("<dt>Check-in URL</dt><dd>javascript:alert(document.cookie)</dd>"))
        #expect(html.contains("<dt>Link</dt><dd>vbscript:msgbox(1)</dd>"))
        #expect(html.contains("data:text/html,&lt;script&gt;"))
        // The control: the same row with an https address is a link.
        let web = storedEvent(start: Self.now + 60, notes: "Check-in URL: HTTPS://checkin.example/x")
        let good = UpcomingPage(now: Self.now, links: Self.links).render([PageEntry(stored: web, history: [])])
        #expect(good.contains("href=\"HTTPS://checkin.example/x\""))
    }

    @Test("a web address must be http(s) with a host and no space or control character")
    func webAddresses() {
        #expect(PageLinks.web("https://a.example/p?q=1#f") == "https://a.example/p?q=1#f")
        #expect(PageLinks.web("http://a.example") == "http://a.example")
        for refused in [
            "javascript:alert(1)", "data:text/html,x", "https://", "https:///path", "https://@evil", "https://a.example/\tx",
            "https://a.example/ x", "https://a.example/\u{85}", " https://a.example", "ftp://a.example", "//a.example", "file:///etc/passwd",
        ] {
            #expect(PageLinks.web(refused) == nil, "\(refused)")
        }
    }

    @Test("a telephone number becomes an RFC 3966 tel: URI of its + and digits; anything else gets no link")
    func telephones() {
        #expect(PageLinks.telephone("+1-415-369-9955") == "tel:+14153699955")
        #expect(PageLinks.telephone("+41 (0)44 668.18.00") == "tel:+410446681800")
        #expect(PageLinks.telephone("044 668 18 00") == "tel:0446681800")
        #expect(PageLinks.telephone("112") == "tel:112")
        for refused in ["1-800-FLOWERS", "+1 415 369 9955 ext. 12", "1+2", "12", "+1234567890123456", "", "+", "tel:+1415", "%2B1415"] {
            #expect(PageLinks.telephone(refused) == nil, "\(refused)")
        }
    }

    @Test("a Wallet pass is vouched by its signed pass, mail by its signed mail or an ARC sealer, an unverified booking by nothing")
    func vouching() {
        func line(_ owner: String?, _ proof: EventProof?) -> String {
            // The owner as the store keeps it, read by the owner codec.
            var stored = storedEvent(start: Self.now + 60, owner: owner.flatMap(BookingOwner.init(storedText:)))
            stored.proof = proof
            return UpcomingPage.vouching(stored).html
        }
        let muted = { (name: String, how: String) in "<dt>Vouched by</dt><dd>\(name) <span class=\"muted\">(\(how))</span></dd>\n" }
        #expect(line("cascadia-air.example", .signedMail) == muted("cascadia-air.example", "signed mail"))
        #expect(
            line("cascadia-air.example", .arc(sealer: "mx.forwarder.example"))
                == muted("cascadia-air.example", "signed mail, vouched for by ARC sealer mx.forwarder.example"))
        #expect(
            line("pass:pass.com.example.boarding", .signedPass(passType: "pass.com.example.boarding"))
                == muted("pass.com.example.boarding", "signed pass"))
        // A pass type linked to a domain files its bookings under the domain: still a signed pass.
        #expect(
            line("cascadia-air.example", .signedPass(passType: "pass.com.example.boarding"))
                == muted("pass.com.example.boarding", "signed pass, linked to cascadia-air.example"))
        // Stored before proofs were kept: the owner alone tells a pass type from a domain.
        #expect(line("pass:pass.com.example.boarding", nil) == muted("pass.com.example.boarding", "signed pass"))
        #expect(line("cascadia-air.example", nil) == muted("cascadia-air.example", "signed"))
        #expect(line(nil, nil) == "<dt>Vouched by</dt><dd class=\"unverified\">not verified</dd>\n")
        // The sealer's and the pass type's names are text like any other.
        #expect(line("a.example", .arc(sealer: "<b>x</b>")).contains("ARC sealer &lt;b&gt;x&lt;/b&gt;"))
    }
}
