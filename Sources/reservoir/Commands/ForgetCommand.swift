import ArgumentParser
import CommandCore
import Delivery
import EventStore
import Glibc

struct ForgetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "forget",
        abstract: "Remove a booking, or one item of it, from the store and from the calendars.",
        discussion: """
            ID is a reservation number (every item of the booking) or RESERVATION/ITEM, the booking \
            number and the item that `events --all` shows. The history keeps a `forgotten` line; the \
            events go from the \
            calendars given (or configured) now, and a calendar that cannot be reached then has them \
            removed by the next `reservoir sync`. Mail about the booking read again afterwards (a \
            new confirmation, a duplicate delivery, `scan --rescan`) stores it again. Exit status: 0 \
            when something was forgotten, 1 when the store knows no such booking.

            Examples:
              reservoir forget IWDSCA
              reservoir forget K7Q2PX/C7412-SFO-2031-06-03 --calendar vdir:~/calendar
            """)

    @Argument(help: ArgumentHelp("A reservation number, or RESERVATION/ITEM.", valueName: "id"))
    var id: String

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var calendarOptions: CalendarOptions
    @OptionGroup var clock: ClockOptions

    func run() throws {
        let now = try clock.resolve()
        let account = try storeOptions.selectedAccount()
        let store = try CommandRunner.openAccountStore(at: storeOptions.location, use: .update, account: account)
        let forgotten: [StoredEvent]
        do { forgotten = try store.forget(id, at: now) } catch { throw CommandFailure.store(error.message) }
        guard !forgotten.isEmpty else {
            Output.line("No booking \(id) in the store.")
            throw ExitStatus(1)
        }
        for stored in forgotten {
            Output.line("forgotten: \(stored.event.key) \(stored.event.title)")
        }
        if let pusher = try CalendarPusher(calendarOptions.settings(for: account), store: store, clock: try clock.wallClock()) {
            let attempts = pusher.delivery.removeForgotten()
            for attempt in attempts where attempt.outcome == .deleted {
                Output.line("removed from \(attempt.destination): \(attempt.uid ?? "")")
            }
            CalendarPusher.complain(attempts, command: "forget")
        }
    }
}
