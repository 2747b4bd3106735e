package import Delivery
package import EventStore
import Glibc
import ICalendar
package import Pipeline
package import ReservoirBase

/// Builds the calendar delivery from the settings and runs it for the commands: the filter
/// and `ingest` push the events their message changed within a bounded time, `scan` and
/// `reservoir sync` push everything that waits.
package struct CalendarPusher {
    package let delivery: CalendarDelivery
    package let destinations: [CalendarDestination]

    /// How long `ingest` may push after recording (the filter uses what is left of its time
    /// budget): what was not pushed by then waits for `reservoir sync`.
    package static let hookPushMilliseconds: Int64 = 5_000

    /// The calendars of a run, each parsed and opened (a vdir's directory made, a CalDAV
    /// client with its netrc and CA file): what `scan` makes before it records anything.
    package struct Calendars {
        let settings: CalendarSettings
        let opened: [(destination: CalendarDestination, collection: any CalendarCollection)]
    }

    /// The calendars `settings` name, opened; nil when none is (none configured, or
    /// `--no-calendar`). Throws `UsageError` for a malformed `--calendar` and
    /// `CommandFailure.calendar` for a destination that cannot be opened.
    package static func open(_ settings: CalendarSettings) throws -> Calendars? {
        guard !settings.calendars.isEmpty else { return nil }
        var opened: [(destination: CalendarDestination, collection: any CalendarCollection)] = []
        for text in settings.calendars {
            let destination = try parse(text)
            do {
                opened.append((destination, try Self.collection(for: destination, settings)))
            } catch {
                throw CommandFailure.calendar(error.description)
            }
        }
        return Calendars(settings: settings, opened: opened)
    }

    /// Checks every `--calendar` and, for CalDAV ones, the netrc and CA files, without opening
    /// anything (no directory made, libcurl not loaded): the hooks' check before they record.
    /// Throws as ``open(_:)``.
    package static func check(_ settings: CalendarSettings) throws {
        for text in settings.calendars {
            guard case .caldav(let url) = try parse(text) else { continue }
            do {
                try CalDAVCalendarCollection.check(url: url, netrcFile: settings.netrcFile, caFile: settings.caFile)
            } catch {
                throw CommandFailure.calendar(error.description)
            }
        }
    }

    /// One `--calendar` value. A URL with credentials is refused without repeating them.
    static func parse(_ text: String) throws(UsageError) -> CalendarDestination {
        guard !text.isEmpty else {
            throw UsageError(
                "--calendar \"\" names no calendar (a CalDAV collection URL or vdir:PATH); to push to none for one run, "
                    + "filter, ingest and scan take --no-calendar")
        }
        if let shown = withoutCredentials(text) {
            throw UsageError("--calendar \(shown): credentials belong in the netrc file (--netrc), not in the URL")
        }
        if AccountTemplate.isTemplate(text) {
            throw UsageError(
                "--calendar \(URLText.withoutCredentials(text)) is a template for a site's accounts ({account}, {local}, {domain}): "
                    + "give --account ADDRESS (docs/SITE.md)")
        }
        do { return try CalendarDestination(parsing: text) } catch { throw UsageError(error.description) }
    }

    /// `text` with the user information of its URL replaced by `…`; nil when it has none but a
    /// login (`jane@host`: the netrc entry to take, no secret).
    static func withoutCredentials(_ text: String) -> String? {
        guard !text.hasPrefix("vdir:"), let scheme = text.firstRange(of: "://") else { return nil }
        let rest = text[scheme.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard let at = authority.lastIndex(of: "@"), authority[..<at].contains(":") else { return nil }
        return String(text[..<scheme.upperBound]) + "…" + String(text[at...])
    }

    /// Nil when no calendar is configured. Throws as ``open(_:)``, and `CommandFailure` when
    /// the store keeps no deliveries.
    package init?(_ settings: CalendarSettings, store: any EventStore, clock: WallClock) throws {
        guard let calendars = try Self.open(settings) else { return nil }
        try self.init(calendars, store: store, clock: clock)
    }

    /// Delivery to calendars opened before (``open(_:)``).
    package init(_ calendars: Calendars, store: any EventStore, clock: WallClock) throws {
        guard let ledger = store.ledger else {
            throw CommandFailure.store("this store keeps no calendar deliveries")
        }
        destinations = calendars.opened.map(\.destination)
        delivery = CalendarDelivery(
            ledger: ledger, destinations: calendars.opened, options: .init(deleteCancelled: calendars.settings.deleteCancelled),
            writer: ICalendarWriter(reminders: calendars.settings.reminders, color: calendars.settings.color), clock: clock)
    }

    static func collection(for destination: CalendarDestination, _ settings: CalendarSettings) throws(DeliveryError)
        -> any CalendarCollection
    {
        switch destination {
        case .vdir(let path):
            return try VdirCollection(path: path)
        case .caldav(let url):
            return try CalDAVCalendarCollection(
                url: url, netrcFile: settings.netrcFile, caFile: settings.caFile, login: settings.netrcLogin,
                requestTimeoutMilliseconds: CalendarDelivery.Options.defaultRequestTimeoutMilliseconds)
        }
    }

    /// The events a report's changes touched: created, moved or cancelled ones, and the
    /// instances a cancelled series took with it. Forwarded messages' trusted reservations
    /// count like the message's own.
    package static func changedKeys(_ report: MessageReport) -> [EventKey] {
        report.forwarded.flatMap { changedKeys($0.report) }
            + report.items.flatMap { item in
                ([item.change].compactMap { $0 } + item.instanceChanges).compactMap { change in
                    switch change {
                    case .created, .updated, .cancelled: change.stored.event.key
                    case .unchanged, .olderThanStored: nil
                    }
                }
            }
    }

    /// Pushes `keys` and says on stderr what did not reach a calendar (it waits in the store
    /// for the next push or `reservoir sync`).
    package func push(_ keys: [EventKey], deadline: Deadline, command: String) {
        guard !keys.isEmpty else { return }
        Self.complain(delivery.push(keys, deadline: deadline), command: command)
    }

    package static func complain(_ attempts: [DeliveryAttempt], command: String) {
        for attempt in attempts {
            if let unreadable = attempt.replacedUnreadableCopy {
                Output.error(
                    "\(command): \(attempt.uid ?? "an event") at \(attempt.destination) was changed there but could not be read "
                        + "(\(unreadable.rawValue)); replaced by the store's revision without the changes made there")
            }
            guard case .failed(let failure) = attempt.outcome else { continue }
            Output.error(
                "\(command): \(attempt.uid ?? "events") not delivered to \(attempt.destination): \(failure) "
                    + "(kept in the store; reservoir sync delivers it later)")
        }
    }
}
