import ArgumentParser
import CommandCore
import EventStore
import Output

struct AccountsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "accounts",
        abstract: "List the accounts whose bookings the store holds, with their counts.",
        discussion: """
            A store several people share keeps each one's bookings under their account \
            (--account); every other command reads one account's only. The implicit account of a \
            single-user store is shown as (single-user), "" in --json.

              reservoir accounts --store postgres://reservoir@db.example.org/reservoir
            """)

    @OptionGroup var storeOptions: StoreOptions

    @Flag(name: .customLong("json"), help: "Print the accounts as JSON.")
    var json = false

    func run() throws {
        let store = try CommandRunner.openStore(at: storeOptions.store, use: .read)
        guard let directory = store as? any AccountDirectory else { throw CommandFailure.store("this store lists no accounts") }
        let accounts: [AccountSummary]
        do { accounts = try directory.accounts() } catch { throw CommandFailure.store(error.message) }
        if json {
            Output.line(AccountListRenderer.json(accounts))
        } else {
            Output.write(AccountListRenderer.text(accounts))
        }
    }
}
