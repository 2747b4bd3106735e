public import EventStore
import ReservoirBase

/// One reservation on the page: the stored event and its history, oldest first.
public struct PageEntry: Sendable, Equatable {
    public var stored: StoredEvent
    public var history: [HistoryEntry]

    public init(stored: StoredEvent, history: [HistoryEntry]) {
        self.stored = stored
        self.history = history
    }
}

/// The page of upcoming reservations: a small HTML document with inline CSS and no scripts,
/// laid out for a phone. Every text from the store goes through ``HTMLText``.
public struct UpcomingPage: Sendable {
    public let now: Int64
    public let links: FeedLinks
    /// The forms of `--actions`: adding a page by its address, deciding pending senders.
    public let forms: PageForms?
    /// Whose page it is, named at its top; nil or the implicit account: a single user's page,
    /// which names no one.
    public let account: Account?

    public init(now: Int64, links: FeedLinks, forms: PageForms? = nil, account: Account? = nil) {
        self.now = now
        self.links = links
        self.forms = forms
        self.account = account
    }

    /// Shown: an event whose start is at or after `now`, or whose end is (a hotel stay or a
    /// trip under way), a floating time read as UTC as everywhere in the store. Past events are
    /// left out: the page is for the gate and the door, and the calendar keeps the past.
    /// Cancelled events stay, listed after the others, so a cancellation is seen.
    public static func isUpcoming(_ stored: StoredEvent, now: Int64) -> Bool {
        guard let start = stored.event.start else { return false }
        if start.sortKey >= now { return true }
        guard let end = stored.event.end else { return false }
        return end.sortKey >= now
    }

    /// The page's referrer policy: `no-referrer`, or `same-origin` when it has forms, so its
    /// own posts carry their Origin while nothing leaves for another site (every outgoing link
    /// is `rel="noreferrer"` too).
    public static func referrerPolicy(forms: Bool) -> String { forms ? "same-origin" : "no-referrer" }

    /// The document's start up to `</head>`: the page's and the forms' answers share it.
    static func head(title: String, referrer: String, style extra: String = "") -> HTMLText {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="referrer" content="\(referrer)">
        <title>\(title)</title>
        <style>\(HTMLText(stringLiteral: style + extra))</style>
        </head>
        """
    }

    static let style = """
        body{font:16px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;padding:1rem;\
        background:#f6f7f9;color:#1d232b;max-width:42rem;margin-inline:auto}\
        h1{font-size:1.35rem;margin:.2rem 0 .8rem}\
        .owner{margin:-.6rem 0 .8rem;color:#5b6673;overflow-wrap:anywhere}\
        h2.section{font-size:1rem;color:#5b6673;margin:1.4rem 0 .5rem;text-transform:uppercase;letter-spacing:.04em}\
        .feed{background:#fff;border:1px solid #d8dde3;border-radius:10px;padding:.6rem .8rem;margin-bottom:1rem;font-size:.9rem}\
        .button{display:inline-block;background:#0b5cad;color:#fff;text-decoration:none;border-radius:8px;\
        padding:.45rem .8rem;margin:0 .3rem .4rem 0;font-weight:600}\
        .button.secondary{background:#e8eef5;color:#0b5cad}\
        .actions{margin:.55rem 0 0}\
        code{font-size:.78rem;color:#5b6673;word-break:break-all}\
        article{background:#fff;border:1px solid #d8dde3;border-radius:10px;padding:.75rem .9rem;margin-bottom:.8rem}\
        h3{font-size:1.05rem;margin:0 0 .4rem;overflow-wrap:anywhere}\
        dl{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:.15rem .7rem;margin:0;font-size:.92rem}\
        dt{color:#5b6673}dd{margin:0;overflow-wrap:anywhere}\
        dd.key{font-weight:700;font-size:1.05rem}\
        dd a{color:#0b5cad}\
        .status{display:inline-block;font-size:.78rem;font-weight:600;padding:.05rem .45rem;border-radius:99px;\
        background:#e3f4e8;color:#17602f;vertical-align:middle;margin-left:.3rem}\
        .cancelled{background:#fafafa}\
        .cancelled h3 del{color:#7a828c}\
        .cancelled .status{background:#fde4e4;color:#a01c1c}\
        .tentative .status{background:#fff4d6;color:#7a5600}\
        .unverified{color:#a01c1c;font-weight:600}\
        details{margin-top:.45rem;font-size:.85rem}summary{color:#5b6673;cursor:pointer}\
        ol{margin:.3rem 0 0;padding-left:1.2rem}li{margin:.1rem 0;overflow-wrap:anywhere}\
        .word{font-weight:600}.muted{color:#5b6673}\
        form{margin:0}form.inline{display:inline}\
        input[type=url]{box-sizing:border-box;width:100%;font:inherit;padding:.45rem;border:1px solid #b9c2cc;border-radius:8px;margin:.2rem 0 .5rem}\
        button{font:inherit;font-weight:600;border:0;border-radius:8px;padding:.45rem .8rem;margin:0 .3rem .3rem 0;background:#0b5cad;color:#fff}\
        button.secondary{background:#e8eef5;color:#0b5cad}\
        @media (min-width:60rem){body{max-width:60rem;padding:1.5rem 2rem}\
        .list{display:grid;grid-template-columns:1fr 1fr;gap:0 1rem;align-items:start}}
        """

    /// The whole document for `entries` (those to show, ordered by start): the bookings still
    /// on first, then the senders waiting for the person's choice (a question only they can
    /// answer), then the cancelled bookings under a heading of their own, struck through, and
    /// last the form to add a page.
    public func render(_ entries: [PageEntry]) -> String {
        var active: HTMLText = ""
        var cancelled: HTMLText = ""
        for entry in entries {
            if entry.stored.event.status == .cancelled {
                cancelled += article(entry)
            } else {
                active += article(entry)
            }
        }
        var body: HTMLText = ""
        if active.html.isEmpty {
            body = "<p class=\"muted\">No upcoming reservations.</p>\n"
        } else {
            body = "<div class=\"list\">\n\(active)</div>\n"
        }
        if let forms { body += forms.renderPending() }
        if !cancelled.html.isEmpty {
            body += "<h2 class=\"section\">Cancelled</h2>\n<div class=\"list\">\n\(cancelled)</div>\n"
        }
        if let forms { body += forms.renderAdd() }
        let owner = account.flatMap { $0.isImplicit ? nil : $0.address }
        let title = "Upcoming reservations" + (owner.map { " of " + $0 } ?? "")
        let whose: HTMLText = owner.map { "<p class=\"owner\">\($0)</p>\n" } ?? ""
        let page: HTMLText = """
            \(Self.head(title: title, referrer: Self.referrerPolicy(forms: forms != nil)))
            <body>
            <h1>Upcoming reservations</h1>
            \(whose)<p class="feed"><a class="button" href="\(links.webcal)">Subscribe in your calendar</a> \
            <a class="button secondary" href="\(links.plain)">Download .ics</a><br>\
            <code>\(links.plain)</code></p>
            \(body)<p class="muted">As of \(Self.utcText(now)).</p>
            </body>
            </html>

            """
        return page.html
    }

    /// Who vouched for the booking, in words a traveller reads, from the proof behind the
    /// message that last changed it (``StoredEvent/proof``): the mail's signing domain
    /// (`epicsteak.example (signed mail)`), the same through a trusted ARC sealer
    /// (`… (signed mail, vouched for by ARC sealer mx.example)`), a Wallet pass's type
    /// (`pass.com.example.boarding (signed pass)`, with the domain the configuration links the
    /// type to), a railway by its RICS code for a rail ticket it signed (`railway 1080 (signed ticket)`),
    /// or `not verified` for a booking taken without a proof (`--allow-unverified`).
    /// An event stored before the store kept proofs says `signed pass` for a pass type's
    /// booking and only `signed` for a domain's, which mail, ARC or a linked pass may have
    /// vouched for.
    static func vouching(_ stored: StoredEvent) -> HTMLText {
        let owner = stored.owner
        if owner == .unproven {
            return "<dt>Vouched by</dt><dd class=\"unverified\">not verified</dd>\n"
        }
        // The owner as the store names it: a domain, `pass:TYPE` or `rail:RICS`.
        let named = owner.storedText
        let (name, how): (String, String) =
            switch (stored.proof, owner) {
            case (.signedMail, _): (named, "signed mail")
            case (.arc(let sealer), _): (named, "signed mail, vouched for by ARC sealer \(sealer)")
            case (.signedPass(let passType), .walletPass): (passType, "signed pass")
            case (.signedPass(let passType), _): (passType, "signed pass, linked to \(named)")
            case (.page, _): (named, "https page")
            case (.signedRailTicket(let railway), _): ("railway \(railway)", "signed ticket")
            case (nil, .walletPass(let passType)): (passType, "signed pass")
            case (nil, _): (named, "signed")
            }
        return "<dt>Vouched by</dt><dd>\(name) <span class=\"muted\">(\(how))</span></dd>\n"
    }

    func article(_ entry: PageEntry) -> HTMLText {
        let event = entry.stored.event
        let (statusClass, statusWord): (HTMLText, String) =
            switch event.status {
            case .confirmed: ("confirmed", "Confirmed")
            case .tentative: ("tentative", "Tentative")
            case .cancelled: ("cancelled", "Cancelled")
            }
        let details = PageDetails(event)
        var rows: HTMLText = ""
        if let start = event.start {
            let when = event.end.map { Self.spanText(start, $0) } ?? Self.timeText(start)
            rows += "<dt>When</dt><dd>\(when)</dd>\n"
        }
        if let location = event.location, !location.isEmpty {
            if let map = PageLinks.map(location) {
                rows += "<dt>Where</dt><dd>\(location) · <a href=\"\(map)\" rel=\"noreferrer\">Map</a></dd>\n"
            } else {
                rows += "<dt>Where</dt><dd>\(location)</dd>\n"
            }
        }
        for row in details.rows {
            let keyClass: HTMLText = PageDetails.keyLabels.contains(row.label) ? " class=\"key\"" : ""
            if let tel = row.telephone {
                rows += "<dt>\(row.label)</dt><dd\(keyClass)><a href=\"\(tel)\">\(row.value)</a></dd>\n"
            } else {
                rows += "<dt>\(row.label)</dt><dd\(keyClass)>\(row.value)</dd>\n"
            }
        }
        rows += Self.vouching(entry.stored)
        // The booking's key, unless a detail already shows it (`Booking reference: K7Q2PX`).
        if !details.rows.contains(where: { $0.value == event.key.container }) {
            rows += "<dt>Booking</dt><dd>\(event.key.container)</dd>\n"
        }
        var actions: HTMLText = ""
        for (index, link) in details.links.enumerated() {
            let kind: HTMLText = index == 0 ? "button" : "button secondary"
            actions += "<a class=\"\(kind)\" href=\"\(link.url)\" rel=\"noreferrer\">\(link.label)</a>"
        }
        if !actions.html.isEmpty { actions = "<p class=\"actions\">\(actions)</p>\n" }
        var history: HTMLText = ""
        if !entry.history.isEmpty {
            var items: HTMLText = ""
            for line in entry.history {
                let date = Self.utcText(line.messageDate ?? line.appliedAt)
                items += "<li><span class=\"word\">\(line.change.rawValue)</span> \(date): \(line.summary)</li>\n"
            }
            history = "<details><summary>History (\(String(entry.history.count)))</summary><ol>\n\(items)</ol></details>\n"
        }
        // A cancelled title is struck through by <del> itself, so it reads as gone without the
        // style sheet too, and the word "Cancelled" says it without colour.
        let title: HTMLText = event.status == .cancelled ? "<del>\(event.title)</del>" : "\(event.title)"
        return """
            <article class="\(statusClass)">
            <h3><span class="title">\(title)</span><span class="status">\(statusWord)</span></h3>
            <dl>
            \(rows)</dl>
            \(actions)\(history)</article>

            """
    }

    static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// A time as the reservation wrote it, on its own clock: `Mon 12 May 2031, 19:30 (UTC−07:00)`,
    /// with the zone's name when it was placed in one (`Tue 3 Jun 2031, 08:15 America/Los_Angeles
    /// (UTC−07:00)`), or `(local time)` for a floating time (RFC 5545 §3.3.5 form 1); a date alone
    /// without a clock.
    static func timeText(_ time: EventTime) -> String {
        let (clock, clockName) = timeParts(time)
        return clock + clockName
    }

    /// The date and time, and what names their clock: ` America/Los_Angeles (UTC−07:00)`,
    /// ` (UTC+05:30)`, ` (local time)`, or nothing for a date alone.
    static func timeParts(_ time: EventTime) -> (String, String) {
        let digits = Array(time.local.utf8)
        guard let year = ASCII.decimal(digits, from: 0, count: 4), let month = ASCII.decimal(digits, from: 5, count: 2),
            let day = ASCII.decimal(digits, from: 8, count: 2), (1...12).contains(month)
        else { return (time.text, "") }
        let days = CivilTime.daysFromCivil(year: year, month: month, day: day)
        var text = "\(weekdays[Int(((days % 7) + 7 + 4) % 7)]) \(day) \(months[month - 1]) \(year)"
        if let hour = ASCII.decimal(digits, from: 11, count: 2), let minute = ASCII.decimal(digits, from: 14, count: 2) {
            text += ", \(CivilTime.pad(hour, 2)):\(CivilTime.pad(minute, 2))"
        }
        guard let offset = time.offsetSeconds else { return (text, " (local time)") }
        let sign = offset < 0 ? "−" : "+"
        let minutes = abs(offset) / 60
        // The zone the time was placed in, when one was found (`America/Los_Angeles`).
        let zone = time.zone.map { " " + $0 } ?? ""
        return (text, zone + " (UTC\(sign)\(CivilTime.pad(minutes / 60, 2)):\(CivilTime.pad(minutes % 60, 2)))")
    }

    /// A start and an end: `Tue 3 Jun 2031, 08:15 – 10:22 (UTC−07:00)` when both fall on one
    /// day on the same clock, else both in full.
    static func spanText(_ start: EventTime, _ end: EventTime) -> String {
        let sameDay =
            start.local.prefix(10) == end.local.prefix(10) && start.offsetSeconds == end.offsetSeconds && start.zone == end.zone
        let (startClock, clockName) = timeParts(start)
        guard sameDay, start.local.count >= 16, end.local.count >= 16 else {
            return timeText(start) + " – " + timeText(end)
        }
        return startClock + "–" + String(end.local.dropFirst(11).prefix(5)) + clockName
    }

    /// `2026-11-22T12:00:00Z`.
    static func isoUTC(_ epoch: Int64) -> String { CivilTime.iso8601UTC(epoch) }

    /// `2026-11-22 12:00 UTC`.
    static func utcText(_ epoch: Int64) -> String {
        let iso = CivilTime.iso8601UTC(epoch)
        return String(iso.prefix(10)) + " " + String(iso.dropFirst(11).prefix(5)) + " UTC"
    }
}

/// The forms of `reservoir serve --actions`: each posts, with the page's anti-forgery token,
/// to a path beside the page (`add`, `allow`, `deny`), which runs the command of that name
/// for the page's account.
public struct PageForms: Sendable, Equatable {
    /// ``PageActions/token(for:)`` of the page's account.
    public var token: String
    public var pending: [PendingSender]

    public init(token: String, pending: [PendingSender]) {
        self.token = token
        self.pending = pending
    }

    /// The senders waiting for the person's choice, each with Trust and Dismiss.
    func renderPending() -> HTMLText {
        var html: HTMLText = ""
        if !pending.isEmpty {
            html += "<h2 class=\"section\">Senders waiting for you</h2>\n"
            for sender in pending {
                let what = sender.titles.joined(separator: "; ") + (sender.count > sender.titles.count ? "; …" : "")
                html += """
                    <article><h3>\(sender.domain)</h3>\
                    <p class="muted">\(String(sender.count)) \(sender.count == 1 ? "reservation" : "reservations") waiting: \(what)</p>\
                    <form class="inline" method="post" action="allow"><input type="hidden" name="token" value="\(token)">\
                    <input type="hidden" name="domain" value="\(sender.domain)"><button type="submit">Trust</button></form>\
                    <form class="inline" method="post" action="deny"><input type="hidden" name="token" value="\(token)">\
                    <input type="hidden" name="domain" value="\(sender.domain)"><button class="secondary" type="submit">Dismiss</button></form>\
                    </article>

                    """
            }
        }
        return html
    }

    /// The form that adds a confirmation page by its address.
    func renderAdd() -> HTMLText {
        """
        <h2 class="section">Add a confirmation page</h2>
        <article><form method="post" action="add"><input type="hidden" name="token" value="\(token)">\
        <label for="url">The booking's https address</label>\
        <input id="url" type="url" name="url" required placeholder="https://" inputmode="url">\
        <button type="submit">Add</button></form></article>

        """
    }
}
