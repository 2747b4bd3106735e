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
            or a systemd timer (docs/CALENDARS.md). On a store several accounts share, without \
            --account (or with --all-accounts), each account's events go to that account's own \
            calendars (its table's `calendar`, or the site's template filled in for it: \
            docs/SITE.md). Exit status: 0 when every calendar holds every event, 75 (EX_TEMPFAIL) \
            when some wait, 64 for a malformed option.

              reservoir sync --calendar https://cal.example/dav/jane/reservations/
              reservoir sync --calendar vdir:$HOME/.calendars/reservations --json
              reservoir sync --all-accounts
            """)

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var calendarOptions: CalendarOptions
    @OptionGroup var clock: ClockOptions

    @Flag(name: .customLong("json"), help: "Print what was pushed and what waits as one JSON object.")
    var json = false

    @Flag(
        name: .customLong("all-accounts"),
        help: "Push every account of a shared store to its own calendars (what sync does there without --account).")
    var allAccounts = false

    func validate() throws {
        let account = try storeOptions.selectedAccount()
        if allAccounts {
            guard account.isImplicit else { throw ValidationError("--all-accounts and --account name different things: give one") }
            return
        }
        // A site's calendar template is filled in per account; which accounts, only the store says.
        if account.isImplicit { return }
        if calendarOptions.settings(for: account).calendars.isEmpty {
            throw ValidationError("sync needs at least one --calendar, or `calendar` in the configuration file")
        }
    }

    /// What one account's push did, and what still waits.
    struct Outcome {
        var account: Account
        var attempts: [DeliveryAttempt] = []
        var waiting: [(destination: CalendarDestination, pending: PendingDelivery)] = []
        var removals: [(destination: CalendarDestination, record: DeliveryRecord)] = []
        /// Why nothing was pushed for the account, nil when it was.
        var skipped: Skipped?
        var stored: [EventKey: StoredEvent] = [:]

        /// Whether something still waits: a copy not delivered, or a calendar that did not open.
        var waits: Bool {
            if case .calendarFailed = skipped { return true }
            return !waiting.isEmpty || !removals.isEmpty
        }
    }

    /// Why an account's events were not pushed.
    enum Skipped {
        /// The account has no calendar: nothing to push, nothing waits.
        case noCalendar
        /// A calendar of the account does not open (a vdir that cannot be made, a CA file that
        /// cannot be read): its events wait.
        case calendarFailed(String)

        var sentence: String {
            switch self {
            case .noCalendar: "no calendar configured for this account"
            case .calendarFailed(let why): why
            }
        }
    }

    func run() throws {
        let now = try clock.resolve()
        let account = try storeOptions.selectedAccount()
        if account.isImplicit, let accounts = try siteAccounts() {
            // Each account to its own calendars, one store handle each (docs/SITE.md).
            var outcomes: [Outcome] = []
            for named in accounts {
                let store = try CommandRunner.openStore(at: storeOptions.location, use: .update, quiet: true, account: named)
                do {
                    outcomes.append(try push(store, account: named, now: now))
                } catch let failure as CommandFailure {
                    // One account's calendar that does not open leaves the others' pushed.
                    outcomes.append(Outcome(account: named, skipped: .calendarFailed("\(failure)")))
                }
            }
            if json {
                Output.line(
                    JSONValue.object(
                        JSONObject(pairs: [
                            (
                                "accounts",
                                .array(
                                    outcomes.map { outcome in
                                        var value = Self.json(outcome.attempts, outcome.waiting, outcome.removals)
                                        if case .object(var object) = value {
                                            object["account"] = .string(outcome.account.address)
                                            if let skipped = outcome.skipped { object["skipped"] = .string(skipped.sentence) }
                                            value = .object(object)
                                        }
                                        return value
                                    })
                            )
                        ])
                    ).serialized())
            } else {
                for outcome in outcomes {
                    if let skipped = outcome.skipped {
                        Output.line("\(outcome.account.address): \(skipped.sentence)")
                        continue
                    }
                    write(outcome, prefix: outcome.account.address + ": ")
                }
            }
            if outcomes.contains(where: \.waits) { throw ExitStatus(75) }
            return
        }
        let calendars = calendarOptions.settings(for: account)
        guard !calendars.calendars.isEmpty else {
            throw UsageError("sync needs at least one --calendar, or `calendar` in the configuration file")
        }
        let store = try CommandRunner.openAccountStore(at: storeOptions.location, use: .update, account: account)
        let outcome = try push(store, account: account, now: now)
        if json {
            Output.line(Self.json(outcome.attempts, outcome.waiting, outcome.removals).serialized())
        } else {
            write(outcome, prefix: "")
        }
        if outcome.waits { throw ExitStatus(75) }
    }

    /// The named accounts of a shared store when every account is to be pushed (`--all-accounts`,
    /// or no `--account` on a store that holds named accounts); nil for a single-user store.
    func siteAccounts() throws -> [Account]? {
        let store = try CommandRunner.openStore(at: storeOptions.location, use: .read, quiet: true)
        guard let directory = store.directory else { return allAccounts ? [] : nil }
        let named: [Account]
        do { named = try directory.accounts().map(\.account).filter { !$0.isImplicit } } catch { throw CommandFailure.store(error.message) }
        return allAccounts || !named.isEmpty ? named : nil
    }

    /// Pushes `account`'s waiting events to its calendars.
    func push(_ store: any EventStore, account: Account, now: Int64) throws -> Outcome {
        var outcome = Outcome(account: account)
        guard let pusher = try CalendarPusher(calendarOptions.settings(for: account), store: store, clock: try clock.wallClock()) else {
            outcome.skipped = .noCalendar
            return outcome
        }
        outcome.attempts = pusher.delivery.pushPending() + pusher.delivery.removeForgotten()
        do {
            outcome.waiting = try pusher.delivery.waiting()
            outcome.removals = try pusher.delivery.waitingRemovals()
        } catch {
            throw CommandFailure.store(error.message)
        }
        if !json {
            for event in (try? store.events()) ?? [] { outcome.stored[event.event.key] = event }
        }
        return outcome
    }

    /// Each attempt as a line, then the counts. Events are named as a person knows them; the
    /// UID stays in --json.
    func write(_ outcome: Outcome, prefix: String) {
        for attempt in outcome.attempts {
            let name = attempt.key.flatMap { outcome.stored[$0] }.map(EventListRenderer.name) ?? attempt.key?.description ?? "-"
            var line = "\(prefix)\(attempt.outcome.word): \(name) → \(attempt.destination)"
            if case .failed(let failure) = attempt.outcome { line += " (\(failure))" }
            if let unreadable = attempt.replacedUnreadableCopy {
                line += " (the copy there could not be read: \(unreadable.rawValue); replaced without the changes made there)"
            }
            Output.line(line)
        }
        let pushed = outcome.attempts.filter { if case .failed = $0.outcome { false } else { true } }.count
        Output.line("\(prefix)\(pushed) pushed, \(outcome.waiting.count + outcome.removals.count) waiting")
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
