import ArgumentParser
import CommandCore
import Glibc

/// `reservoir milter`: hands its arguments to `reservoir-milter`, the program beside this one
/// that links libmilter, so that neither `reservoir` nor the hook does (as `serve` runs
/// `reservoir-serve`). The options are declared here for help, the manual page and a first
/// check; `reservoir-milter` reads the arguments as typed and checks them itself.
struct MilterCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "milter",
        abstract: "Serve a whole mail site as a milter (Postfix, Sendmail): each recipient's bookings in its own account.",
        discussion: """
            Speaks the milter protocol on --socket (inet:PORT@HOST or unix:PATH). Each message is \
            verified, extracted and judged once; its trusted reservations are filed under every \
            envelope recipient that is an account of this site (the configuration file's \
            [accounts."ADDRESS"] tables, --account ADDRESS, --account-domain DOMAIN, both \
            repeatable, or --accounts-file FILE); a recipient with a \
            detail (jane+trips@) is its base's account when the base is one (--recipient-delimiter, \
            + unless set, as Postfix's recipient_delimiter). Authentication-Results and X-Reservation \
            fields are added and forged ones deleted; a message is never rejected and its body \
            never changed. Takes every option of reservoir filter (--store, --keys, \
            --allowed-domains, --authserv-id, --timeout, --retry-spool, --now, ...). \
            One line per message on standard error (queue id, accounts, DKIM result and domain, \
            reservations found, trusted and stored, refusal codes, milliseconds), in the \
            journal's form under systemd; --log-level error|warning|info|debug, --syslog, and \
            --metrics ADDRESS for GET /metrics (Prometheus) and GET /healthz (docs/SITE.md, \
            "Operating").

            Before it listens it checks what it will need and says READY=1 to systemd \
            (Type=notify): its settings, the store (opened as for a message) and the retry spool. \
            SIGHUP rereads the configuration file and the accounts file and, when they pass the \
            same checks, uses them for the messages that come after, keeping connections open; \
            otherwise it keeps the settings in use and says why. SIGTERM or SIGINT stop it after \
            the messages under way (at most 30 seconds). Runs reservoir-milter, which must be \
            installed beside reservoir. docs/SITE.md describes a whole site.

            Exit status: 0 stopped by SIGTERM or SIGINT, 64 wrong arguments (no --socket, no \
            account, an unknown option), 69 the socket cannot be opened (a port in use, a \
            directory that is not writable), 70 libmilter could not be set up or its listener \
            failed, 73 the retry spool cannot be made or written, 75 the store does not answer \
            (a PostgreSQL server not reached, a login refused), 78 the settings cannot work (the \
            configuration file, a keys, allowed-domains or pass CA file, an account).

            Examples:
              reservoir milter --socket inet:8894@127.0.0.1 --account-domain example.org
              reservoir milter --socket unix:/run/reservoir/milter.sock \\
                --account jane@example.org --account joe@example.org
            """)

    @Option(name: .customLong("socket"), help: ArgumentHelp("Where to listen: inet:PORT@HOST, inet6:PORT@HOST or unix:PATH.", valueName: "socket"))
    var socket: String

    @Option(name: .long(.account), help: ArgumentHelp("A mailbox of this site (repeatable).", valueName: "address"))
    var accounts: [String] = []

    @Option(name: .long(.store), help: ArgumentHelp(.store))
    var store: String?

    @Option(name: .long(.recipientDelimiter), help: ArgumentHelp(.recipientDelimiter))
    var recipientDelimiter: String?

    @Option(name: .customLong("account-domain"), help: ArgumentHelp("Every mailbox of this domain (repeatable).", valueName: "domain"))
    var accountDomains: [String] = []

    @Option(
        name: .customLong("accounts-file"),
        help: ArgumentHelp("Accounts one a line: jane@example.org, or @example.org for a domain; # comments.", valueName: "file"))
    var accountsFile: String?

    @OptionGroup var service: ServiceOutputOptions

    @OptionGroup var keys: KeyOptions
    @OptionGroup var policy: PolicyOptions
    @OptionGroup var clock: ClockOptions

    @OptionGroup var hook: MessageHookOptions

    @OptionGroup var past: PastOptions
    @OptionGroup var retry: RetryOptions
    @OptionGroup var pending: PendingDaysOption
    /// Accepted as the filter accepts it; the milter pushes to no calendar (`reservoir sync` does).
    @OptionGroup var noCalendar: NoCalendarOption

    func run() throws {
        try Self.exec(Array(CommandLine.arguments.drop { $0 != "milter" }.dropFirst()))
    }

    /// Runs `reservoir-milter` with the arguments after `milter`, as typed; it reads them itself.
    static func exec(_ arguments: [String]) throws -> Never {
        let program = ServeCommand.programBeside("reservoir-milter")
        guard access(program, X_OK) == 0 else {
            throw CommandFailure.unreadable(
                program, "reservoir milter needs the reservoir-milter program beside reservoir (swift build --product reservoir-milter)")
        }
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        execv(program, argv)
        let why = String(cString: strerror(errno))
        throw CommandFailure.unreadable(program, "cannot run reservoir-milter: \(why)")
    }
}
