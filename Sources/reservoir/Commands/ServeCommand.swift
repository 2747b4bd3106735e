import ArgumentParser
import CommandCore
import Feed
import Glibc
import ReservoirBase

/// `reservoir serve`: hands its arguments to `reservoir-serve`, the program beside this one
/// that links the HTTP server, so that neither `reservoir` nor the hook does. The options are
/// declared here, from `Feed`'s table, for help and checking.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the events as an iCalendar subscription and a page of upcoming reservations.",
        discussion: """
            GET /calendar.ics is the whole store as one iCalendar feed, with a strong ETag and \
            Last-Modified (conditional requests get 304); GET / is a page of upcoming \
            reservations for a phone. The store is read afresh for every request. Without \
            --token-file or --netrc only loopback addresses are served, unless --no-auth. \
            A request is answered only when its Host names the --listen address (or localhost, \
            on loopback) or a --server-name: behind a reverse proxy, name the host it passes on. \
            Each request is logged on standard error (method, path without its token, status, \
            bytes, milliseconds; docs/SITE.md, "Operating").

            Runs reservoir-serve, which must be installed beside reservoir.

            Examples:
              reservoir serve                         http://127.0.0.1:8645/
              openssl rand -hex 16 > token && chmod 600 token
              reservoir serve --listen 0.0.0.0:8645 --token-file token
              reservoir serve --netrc ~/.netrc --netrc-machine calendar
              reservoir serve --token-file token --server-name calendar.example.org
            """)

    @Option(name: .customLong(ServeOption.listen.rawValue), help: help(.listen))
    var listen: String?

    @Option(name: .customLong(ServeOption.store.rawValue), help: help(.store))
    var store: String?

    @Option(name: .customLong(ServeOption.tokenFile.rawValue), help: help(.tokenFile))
    var tokenFile: String?

    @Option(name: .customLong(ServeOption.netrc.rawValue), help: help(.netrc))
    var netrc: String?

    @Option(name: .customLong(ServeOption.netrcMachine.rawValue), help: help(.netrcMachine))
    var netrcMachine: String?

    @Flag(name: .customLong(ServeOption.noAuth.rawValue), help: help(.noAuth))
    var noAuth = false

    @Flag(name: .customLong(ServeOption.actions.rawValue), help: help(.actions))
    var actions = false

    @Option(name: .customLong(ServeOption.serverName.rawValue), help: help(.serverName))
    var serverNames: [String] = []

    @Option(name: .customLong(ServeOption.now.rawValue), help: help(.now))
    var now: String?

    @OptionGroup var service: ServiceOutputOptions

    static func help(_ option: ServeOption) -> ArgumentHelp {
        ArgumentHelp(option.help, valueName: option.valueName)
    }

    /// The arguments after `serve`, as typed; `reservoir-serve` reads them itself.
    func run() throws {
        let all = CommandLine.arguments
        let rest = all.firstIndex(of: "serve").map { Array(all[($0 + 1)...]) } ?? []
        let program = Self.serveProgram()
        guard access(program, X_OK) == 0 else {
            throw CommandFailure.unreadable(
                program, "reservoir serve needs the reservoir-serve program beside reservoir (swift build --product reservoir-serve)")
        }
        let argv = ([program] + rest).map { strdup($0) } + [nil]
        execv(program, argv)
        let why = String(cString: strerror(errno))
        throw CommandFailure.unreadable(program, "cannot run reservoir-serve: \(why)")
    }

    /// `reservoir-serve` in the directory of this executable (`/proc/self/exe`, so a symbolic
    /// link to `reservoir` elsewhere still finds the program installed beside the real one).
    static func serveProgram() -> String { programBeside("reservoir-serve") }

    /// The program `name` in the directory of this executable.
    static func programBeside(_ name: String) -> String { ProgramPath.beside(name) }
}
