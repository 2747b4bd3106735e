package import Delivery
package import EventStore
import Glibc
package import Pipeline

/// Builds the calendar delivery from the settings and runs it for the commands: the filter
/// and `ingest` push the events their message changed within a bounded time, `scan` and
/// `reservoir sync` push everything that waits.
package struct CalendarPusher {
    package let delivery: CalendarDelivery
    package let destinations: [CalendarDestination]

    /// How long `ingest` may push after recording (the filter uses what is left of its time
    /// budget): what was not pushed by then waits for `reservoir sync`.
    package static let hookPushMilliseconds: Int64 = 5_000

    /// Nil when no calendar is configured. Throws `UsageError` for a malformed `--calendar`,
    /// and `CommandFailure` when the store keeps no deliveries or a destination cannot be opened.
    package init?(_ settings: CalendarSettings, store: any EventStore, clock: @escaping () -> Int64) throws {
        guard !settings.calendars.isEmpty else { return nil }
        guard let ledger = store as? any DeliveryLedger else {
            throw CommandFailure.store("this store keeps no calendar deliveries")
        }
        var opened: [(destination: CalendarDestination, collection: any CalendarCollection)] = []
        for text in settings.calendars {
            let destination: CalendarDestination
            do { destination = try CalendarDestination(parsing: text) } catch { throw UsageError(error.description) }
            do {
                opened.append((destination, try Self.collection(for: destination, settings)))
            } catch {
                throw CommandFailure.calendar(error.description)
            }
        }
        destinations = opened.map(\.destination)
        delivery = CalendarDelivery(
            ledger: ledger, destinations: opened, options: .init(deleteCancelled: settings.deleteCancelled), clock: clock)
    }

    static func collection(for destination: CalendarDestination, _ settings: CalendarSettings) throws(DeliveryError)
        -> any CalendarCollection
    {
        switch destination {
        case .vdir(let path):
            return try VdirCollection(path: path)
        case .caldav(let url):
            return try CalDAVCalendarCollection(
                url: url, netrcFile: settings.netrcFile, caFile: settings.caFile,
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
            guard case .failed(let failure) = attempt.outcome else { continue }
            Output.error(
                "\(command): \(attempt.uid ?? "events") not delivered to \(attempt.destination): \(failure) "
                    + "(kept in the store; reservoir sync delivers it later)")
        }
    }
}
