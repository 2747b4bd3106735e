import ArgumentParser
import CommandCore
import Glibc

/// `reservoir milter`: hands its arguments to `reservoir-milter`, the program beside this one
/// that links libmilter, so that neither `reservoir` nor the hook does (as `serve` runs
/// `reservoir-serve`). `reservoir-milter` reads and checks the arguments itself.
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

            Runs reservoir-milter, which must be installed beside reservoir.

            Examples:
              reservoir milter --socket inet:8894@127.0.0.1 --account-domain example.org
              reservoir milter --socket unix:/run/reservoir/milter.sock \\
                --account jane@example.org --account joe@example.org
            """)

    @Argument(parsing: .captureForPassthrough, help: "The options above and those of reservoir filter.")
    var arguments: [String] = []

    /// The arguments after `milter`, as typed; `reservoir-milter` reads them itself.
    func run() throws {
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
