import ArgumentParser
import CommandCore
import Glibc
import ReservoirBase

@main
struct Reservoir: ParsableCommand {
    /// Where the reference pages were installed with this program (``ProgramPath/documentation``).
    static let documentation = ProgramPath.documentation

    static let configuration = CommandConfiguration(
        commandName: "reservoir",
        abstract: "Turn the reservation emails you receive into trustworthy calendar events.",
        discussion: """
            Reads schema.org reservation markup (JSON-LD and Microdata) from mail, trusts it only \
            when a DKIM signature aligned with the From domain vouches for it, and keeps the \
            events in a store you can export as iCalendar.

            The reference pages are in \(documentation): USAGE.md, HOOKS.md, CONFIGURATION.md, \
            CALENDARS.md, MAILBOXES.md (IMAP), SITE.md (a mail site of many people: accounts, the \
            milter and its units, PostgreSQL, operating it), SECURITY.md. Sample mail, signed, \
            with its keys: Maildir-samples/ in the source tree, \
            \(documentation)/examples/Maildir-samples when installed.

            Try it on the samples:
              cd \(documentation)/examples/Maildir-samples
              reservoir banner cur/* --keys keys.zone --allowed-domains allowed-domains
            """,
        version: ReservoirVersion.current,
        subcommands: [
            ScanCommand.self, FilterCommand.self, IngestCommand.self, AddCommand.self, BannerCommand.self,
            VerifyCommand.self, ExtractCommand.self, PartsCommand.self,
            WatchCommand.self, EventsCommand.self, SyncCommand.self, RetryCommand.self, ForgetCommand.self, PendingCommand.self,
            AllowCommand.self, DenyCommand.self, AccountsCommand.self, ServeCommand.self, MilterCommand.self, SignCommand.self,
            ConfigCommand.self,
        ]
    )

    /// Environment failures exit with their sysexits code; everything else as the argument
    /// parser decides (usage errors: 64).
    static func main() {
        do {
            // The filter hook runs once per delivered message: its plain arguments skip the parser.
            let arguments = CommandLine.arguments.dropFirst()
            if arguments.first == "filter", let hook = FilterHook(arguments: arguments.dropFirst(), configuration: .process) {
                try hook.run()
                return
            }
            // reservoir-milter reads and checks its arguments itself, as typed (`--name=` for an
            // empty value among them); the declared options are for help and the manual page.
            if arguments.first == "milter", !arguments.contains(where: { $0 == "--help" || $0 == "-h" }) {
                try MilterCommand.exec(Array(arguments.dropFirst()))
            }
            // A first word that is no command, or `reservoir help NAME` for a NAME that is none,
            // is a usage error naming the command most likely meant (not "unexpected argument",
            // nor the overview with exit 0).
            let names = configuration.subcommands.map { $0._commandName }
            if let first = arguments.first, !first.hasPrefix("-"), first != "help", !names.contains(first) {
                throw ValidationError(CommandName.unknown(first, among: names))
            }
            if arguments.first == "help", let name = arguments.dropFirst().first, !names.contains(name) {
                throw ValidationError(CommandName.unknown(name, among: names))
            }
            var command = try parseAsRoot()
            // An invalid configuration file stops every command but the two that must still
            // work: `config`, which explains it, and the filter, which fails open.
            if let problem = ConfigurationLoad.process.problem, !(command is ConfigCommand), !(command is FilterCommand) {
                throw CommandFailure.configuration(problem.description)
            }
            try command.run()
        } catch let failure as CommandFailure {
            Output.error(failure.description)
            Glibc.exit(failure.exitCode)
        } catch let status as ExitStatus {
            Glibc.exit(status.code)
        } catch let usage as UsageError {
            exit(withError: ValidationError(usage.description))
        } catch {
            exit(withError: error)
        }
    }
}

enum ReservoirVersion {
    static let current = "0.1.0"
}
