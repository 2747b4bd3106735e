public import EventStore
import JSON
import Markup
import ReservoirBase

/// `reservoir events`: the stored events for people, as JSON-LD, or one booking's history.
public struct EventListRenderer: Sendable {
    public let style: BannerStyle

    public init(style: BannerStyle) {
        self.style = style
    }

    /// Not cancelled and not yet over at `now`.
    public static func isUpcoming(_ stored: StoredEvent, now: Int64) -> Bool {
        guard stored.event.status != .cancelled else { return false }
        guard let last = stored.event.end ?? stored.event.start else { return true }
        return last.sortKey >= now
    }

    /// The events for people; titles, places and domains from the mail that made them are
    /// escaped (``TerminalText``).
    public func text(_ events: [StoredEvent], now: Int64, all: Bool) -> String {
        if events.isEmpty {
            return all ? "No events stored.\n" : "No upcoming events (--all shows past and cancelled ones).\n"
        }
        var out: TerminalText = ""
        for stored in events {
            let e = stored.event
            let when = e.start.map(BannerText.time) ?? "(no time)"
            var line: TerminalText = "\(when)  " + style.paint("\(e.title)", e.status == .cancelled ? .strike : .bold)
            if e.status != .confirmed { line += "  " + style.paint("\(e.status.rawValue.lowercased())", e.status == .cancelled ? .red : .yellow) }
            out += line + "\n"
            var sub: TerminalText = "    #\(e.key.container) item \(e.key.item) · \(e.category.rawValue) · sequence \(stored.sequence)"
            if stored.owner.isProven { sub += " · by \(stored.owner.storedText)" }
            out += style.paint(sub, .dim) + "\n"
            if let location = e.location, !location.isEmpty { out += style.paint("    \(location)", .dim) + "\n" }
        }
        return out.text
    }

    /// One event named for a line of output (`sync`, `forget`): its title, its local start and
    /// its booking number, escaped like the rest (``TerminalText``), not its UID.
    public static func name(_ stored: StoredEvent) -> String {
        let e = stored.event
        let when = e.start.map(BannerText.time) ?? "(no time)"
        let line: TerminalText = "\(e.title), \(when), #\(e.key.container)"
        return line.text
    }

    public static func json(_ events: [StoredEvent]) -> String {
        let items = events.map { stored -> JSONValue in
            JSONBuild.object([
                ("key", .string(stored.event.key.description)),
                ("status", .string(stored.event.status.rawValue.lowercased())),
                ("sequence", .number(Double(stored.sequence))),
                // The owner as stored (a domain, `pass:TYPE`, `rail:RICS`); null when unproven.
                ("ownerDomain", stored.owner.isProven ? .string(stored.owner.storedText) : nil),
                ("uid", .string(stored.uid)),
                ("title", .string(stored.event.title)),
                ("start", stored.event.start.map { .string($0.text) }),
                ("end", stored.event.end.map { .string($0.text) }),
                ("startZone", stored.event.start?.zone.map(JSONValue.string)),
                ("endZone", stored.event.end?.zone.map(JSONValue.string)),
                ("reservation", TolerantJSONReader.read(Array(stored.event.reservationJSON.utf8)).values.first ?? .null),
            ])
        }
        return JSONValue.array(items).prettyPrinted()
    }

    /// `events --history ID --json`: one object per change, oldest first; an empty list for an
    /// ID the store does not know.
    public static func historyJSON(_ entries: [HistoryEntry]) -> String {
        let items = entries.map { h -> JSONValue in
            JSONBuild.object([
                ("key", .string(h.key.description)),
                ("reservationId", .string(h.key.container)),
                ("item", .string(h.key.item)),
                ("sequence", .number(Double(h.sequence))),
                ("change", .string(h.change.rawValue)),
                ("summary", .string(h.summary)),
                ("appliedAt", .string(CivilTime.iso8601UTC(h.appliedAt))),
                ("signingDomain", h.signingDomain.map(JSONValue.string)),
                ("messageId", h.messageID.map(JSONValue.string)),
                ("messageDate", h.messageDate.map { .string(CivilTime.iso8601UTC($0)) }),
                ("path", h.path.map(JSONValue.string)),
            ])
        }
        return JSONValue.array(items).serialized()
    }

    public static func history(_ entries: [HistoryEntry], id: String) -> String {
        if entries.isEmpty { return TerminalText("No history for \(id).\n").text }
        var out: TerminalText = ""
        for h in entries {
            // A summary that starts with the change's word says it already ("created",
            // "cancelled (first seen)"): not "created: created".
            let change: TerminalText = h.summary.hasPrefix(h.change.rawValue) ? "\(h.summary)" : "\(h.change.rawValue): \(h.summary)"
            var line: TerminalText = "\(CivilTime.iso8601UTC(h.appliedAt))  \(h.key.description)  #\(h.sequence) \(change)"
            if let domain = h.signingDomain { line += "  (vouched by \(domain))" }
            out += line + "\n"
            var from: TerminalText = "    message \(h.messageID ?? "(no Message-ID)")"
            if let date = h.messageDate { from += " dated \(CivilTime.iso8601UTC(date))" }
            if let path = h.path { from += " · \(path)" }
            out += from + "\n"
        }
        return out.text
    }
}

/// `reservoir accounts`: each account of a store with its counts.
public enum AccountListRenderer {
    public static func text(_ accounts: [AccountSummary], now: Int64) -> String {
        guard !accounts.isEmpty else { return "No bookings in the store.\n" }
        return accounts.map { summary in
            let events = "\(summary.events) \(summary.events == 1 ? "event" : "events")"
            var pending = "\(summary.pendingDeliveries) calendar \(summary.pendingDeliveries == 1 ? "copy" : "copies") waiting"
            if let oldest = summary.oldestWaiting { pending += " (the oldest for \(duration(now - oldest)))" }
            var line = "\(summary.account.isImplicit ? "(single-user)" : summary.account.address)  \(events), \(pending)"
            if !summary.pendingSenders.isEmpty {
                line +=
                    ", \(summary.pendingSenders.count) pending \(summary.pendingSenders.count == 1 ? "sender" : "senders") ("
                    + summary.pendingSenders.joined(separator: ", ") + ")"
            }
            return line + "\n"
        }.joined()
    }

    public static func json(_ accounts: [AccountSummary], now: Int64) -> String {
        JSONValue.array(
            accounts.map { summary in
                JSONBuild.object([
                    ("account", .string(summary.account.address)), ("events", .number(Double(summary.events))),
                    ("pendingDeliveries", .number(Double(summary.pendingDeliveries))),
                    ("pendingDeliveriesOf", .string(summary.calendarsKnown ? "configured-calendars" : "calendars-tried")),
                    ("oldestWaitingSeconds", summary.oldestWaiting.map { .number(Double(max(0, now - $0))) }),
                    ("pendingSenders", .array(summary.pendingSenders.map(JSONValue.string))),
                ])
            }
        ).prettyPrinted()
    }

    /// A wait in the largest whole unit: `40 s`, `12 min`, `3 h`, `2 days`.
    static func duration(_ seconds: Int64) -> String {
        let seconds = max(0, seconds)
        if seconds < 60 { return "\(seconds) s" }
        if seconds < 3600 { return "\(seconds / 60) min" }
        if seconds < 2 * 86_400 { return "\(seconds / 3600) h" }
        return "\(seconds / 86_400) days"
    }
}
