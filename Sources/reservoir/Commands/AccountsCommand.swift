import ArgumentParser
import CommandCore
import Delivery
import EventStore
import Output

struct AccountsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "accounts",
        abstract: "List the accounts whose bookings the store holds, with their counts.",
        discussion: """
            A store several people share keeps each one's bookings under their account \
            (--account); every other command reads one account's only. The implicit account of a \
            single-user store is shown as (single-user), "" in --json. For each account: its events, \
            the calendar copies waiting for its configured calendars (its table's `calendar`, or the \
            site's template filled in for it; events never pushed included) and how long the oldest \
            has waited, and the senders whose reservations wait for its choice.

              reservoir accounts --store postgres://reservoir@db.example.org/reservoir
            """)

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var clock: ClockOptions

    @Flag(name: .customLong("json"), help: "Print the accounts as JSON.")
    var json = false

    func run() throws {
        let now = try clock.resolve()
        let store = try CommandRunner.openStore(at: storeOptions.location, use: .read)
        guard let directory = store.directory else { throw CommandFailure.store("this store lists no accounts") }
        var accounts: [AccountSummary]
        do {
            accounts = try directory.accounts()
            for index in accounts.indices { try count(&accounts[index], now: now) }
        } catch {
            throw CommandFailure.store(error.message)
        }
        if json {
            Output.line(AccountListRenderer.json(accounts, now: now))
        } else {
            Output.write(AccountListRenderer.text(accounts, now: now))
        }
    }

    /// The copies waiting for the account's configured calendars (the store counts only the
    /// destinations a push has tried, so a booking recorded but never pushed would not count),
    /// the oldest one's time, and the senders waiting for its choice.
    func count(_ summary: inout AccountSummary, now: Int64) throws(EventStoreError) {
        let store: any EventStore
        do { store = try CommandRunner.openStore(at: storeOptions.location, use: .read, quiet: true, account: summary.account) } catch {
            return
        }
        let calendars = EffectiveSettings.process(commandLine: summary.account.given).calendars.calendars
        let destinations = calendars.compactMap { try? CalendarDestination(parsing: $0) }
        if let ledger = store.ledger, !destinations.isEmpty, destinations.count == calendars.count {
            var waiting: [PendingDelivery] = []
            for destination in destinations { waiting += try ledger.pendingDeliveries(to: destination.name) }
            summary.pendingDeliveries = waiting.count
            summary.calendarsKnown = true
            summary.oldestWaiting = waiting.map(\.event.updatedAt).min()
        }
        if let senders = store.senders {
            let days = EffectiveSettings.process(commandLine: summary.account.given).number(.pendingDays) ?? PendingLimits.defaultDays
            let since = now - Int64(days) * 86_400
            summary.pendingSenders = Array(Set(try senders.pendingReservations(receivedSince: since).map(\.domain))).sorted()
        }
    }
}
