import ArgumentParser
import CommandCore
import EventStore
import ICalendar
import Output
import Pipeline

struct EventsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events",
        abstract: "List the stored events, or export them as iCalendar.",
        discussion: """
            Examples:
              reservoir events                    upcoming events
              reservoir events --all --json       every event, cancelled ones too
              reservoir events --ics > trips.ics  an RFC 5545 calendar to import
              reservoir events --history IWDSCA   why an event looks as it does
            """)

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var clock: ClockOptions

    @Flag(name: .customLong("all"), help: "Include past and cancelled events.")
    var all = false

    @Flag(name: .customLong("json"), help: "Print the stored reservations as schema.org JSON-LD.")
    var json = false

    @Flag(name: .customLong("ics"), help: "Write an RFC 5545 iCalendar object.")
    var ics = false

    @Option(name: .customLong("history"), help: ArgumentHelp("Show the changes of one booking (reservation number).", valueName: "id"))
    var history: String?

    func validate() throws {
        if json && ics {
            throw ValidationError("choose one of --json and --ics")
        }
        if ics && history != nil {
            throw ValidationError("--history is shown as text or --json, not --ics")
        }
    }

    func run() throws {
        let now = try clock.resolve()
        let store = try CommandRunner.openAccountStore(at: storeOptions.location, use: .read, account: try storeOptions.selectedAccount())
        do {
            if let history {
                let entries = try store.history(history)
                if json {
                    Output.line(EventListRenderer.historyJSON(entries))
                } else {
                    Output.write(EventListRenderer.history(entries, id: history))
                }
                // Like grep: an ID the store does not know is not success.
                if entries.isEmpty { throw ExitStatus(1) }
                return
            }
            let stored = try store.events()
            // The text and JSON lists show the same events: upcoming ones, every one with --all.
            let shown = all ? stored : stored.filter { EventListRenderer.isUpcoming($0, now: now) }
            if ics {
                Output.write(ConfigurationLoad.process.calendarWriter.write(stored))
            } else if json {
                Output.line(EventListRenderer.json(shown))
            } else {
                Output.write(EventListRenderer(style: BannerStyle.forStandardOutput()).text(shown, now: now, all: all))
            }
        } catch let status as ExitStatus {
            throw status
        } catch let error as EventStoreError {
            throw CommandFailure.store(error.message)
        }
    }
}
