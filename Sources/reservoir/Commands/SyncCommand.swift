import ArgumentParser
import CommandCore
import Delivery
import EventStore
import ICalendar
import JSON
import Output

struct SyncCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Deliver every stored event a calendar does not hold yet; say what waits and why.",
        discussion: """
            The filter, ingest and scan push what they record; what they could not push (a server \
            down, a timeout, a 5xx answer) waits in the store, and sync pushes it. Run it from cron \
            or a systemd timer (docs/CALENDARS.md). Exit status: 0 when every calendar holds every \
            event, 75 (EX_TEMPFAIL) when some wait, 64 for a malformed option.

              reservoir sync --calendar https://cal.example/dav/jane/reservations/
              reservoir sync --calendar vdir:$HOME/.calendars/reservations --json
            """)

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var calendarOptions: CalendarOptions
    @OptionGroup var clock: ClockOptions

    @Flag(name: .customLong("json"), help: "Print what was pushed and what waits as one JSON object.")
    var json = false

    func validate() throws {
        if calendarOptions.settings(for: try storeOptions.account()).calendars.isEmpty {
            throw ValidationError("sync needs at least one --calendar, or `calendar` in the configuration file")
        }
    }

    func run() throws {
        let now = try clock.resolve()
        let account = try storeOptions.account()
        let calendars = calendarOptions.settings(for: account)
        let store = try CommandRunner.openAccountStore(at: storeOptions.store, use: .update, account: account)
        guard let pusher = try CalendarPusher(calendars, store: store, clock: { now }) else { return }
        let attempts = pusher.delivery.pushPending() + pusher.delivery.removeForgotten()
        let waiting: [(destination: CalendarDestination, pending: PendingDelivery)]
        let removals: [(destination: CalendarDestination, record: DeliveryRecord)]
        do {
            waiting = try pusher.delivery.waiting()
            removals = try pusher.delivery.waitingRemovals()
        } catch {
            throw CommandFailure.store(error.message)
        }
        if json {
            Output.line(Self.json(attempts, waiting, removals).serialized())
        } else {
            // Events are named as a person knows them; the UID stays in --json.
            var stored: [EventKey: StoredEvent] = [:]
            for event in (try? store.events()) ?? [] { stored[event.event.key] = event }
            for attempt in attempts {
                let name = attempt.key.flatMap { stored[$0] }.map(EventListRenderer.name) ?? attempt.key?.description ?? "-"
                var line = "\(attempt.outcome.word): \(name) → \(attempt.destination)"
                if case .failed(let failure) = attempt.outcome { line += " (\(failure))" }
                if let unreadable = attempt.replacedUnreadableCopy {
                    line += " (the copy there could not be read: \(unreadable.rawValue); replaced without the changes made there)"
                }
                Output.line(line)
            }
            let pushed = attempts.filter { if case .failed = $0.outcome { false } else { true } }.count
            Output.line("\(pushed) pushed, \(waiting.count + removals.count) waiting")
        }
        if !waiting.isEmpty || !removals.isEmpty { throw ExitStatus(75) }
    }

    static func json(
        _ attempts: [DeliveryAttempt], _ waiting: [(destination: CalendarDestination, pending: PendingDelivery)],
        _ removals: [(destination: CalendarDestination, record: DeliveryRecord)]
    ) -> JSONValue {
        func number(_ n: Int?) -> JSONValue { n.map { .number(Double($0)) } ?? .null }
        let pushed: [JSONValue] = attempts.map { attempt in
            var pairs: [(String, JSONValue)] = [
                ("calendar", .string(attempt.destination.description)), ("uid", attempt.uid.map(JSONValue.string) ?? .null),
                ("sequence", number(attempt.sequence)), ("outcome", .string(attempt.outcome.word)),
            ]
            if case .failed(let failure) = attempt.outcome {
                pairs += [("failure", .string(failure.code.rawValue)), ("detail", .string(failure.detail))]
            }
            if let unreadable = attempt.replacedUnreadableCopy { pairs.append(("unreadable_copy", .string(unreadable.rawValue))) }
            return .object(JSONObject(pairs: pairs))
        }
        let waits: [JSONValue] = waiting.map { entry in
            let record = entry.pending.record
            return .object(
                JSONObject(pairs: [
                    ("calendar", .string(entry.destination.description)),
                    ("uid", .string(entry.pending.event.uid)),
                    ("sequence", number(entry.pending.event.sequence)),
                    ("delivered_sequence", number(record?.deliveredSequence)),
                    ("failures", number(record?.failures ?? 0)),
                    ("last_error", record?.lastError.map(JSONValue.string) ?? .null),
                ]))
        }
        let removes: [JSONValue] = removals.map { entry in
            .object(
                JSONObject(pairs: [
                    ("calendar", .string(entry.destination.description)),
                    ("uid", .string(entry.record.uid)),
                    ("remove", .bool(true)), ("failures", number(entry.record.failures)),
                    ("last_error", entry.record.lastError.map(JSONValue.string) ?? .null),
                ]))
        }
        return .object(JSONObject(pairs: [("pushed", .array(pushed)), ("waiting", .array(waits + removes))]))
    }
}
