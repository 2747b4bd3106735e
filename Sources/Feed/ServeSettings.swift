/// The options of `reservoir serve` (and `reservoir-serve`), with their help: the one table both
/// programs read by.
public enum ServeOption: String, CaseIterable, Sendable {
    case listen
    case store
    case tokenFile = "token-file"
    case netrc
    case netrcMachine = "netrc-machine"
    case noAuth = "no-auth"
    case actions
    case serverName = "server-name"
    case now

    public var flag: String { "--" + rawValue }

    /// The name of the value it takes; nil for a flag.
    public var valueName: String? {
        switch self {
        case .listen: "host:port"
        case .store: "url"
        case .tokenFile, .netrc: "file"
        case .netrcMachine, .serverName: "name"
        case .now: "time"
        case .noAuth, .actions: nil
        }
    }

    public var help: String {
        switch self {
        case .listen: "Address and port to listen on (default 127.0.0.1:\(ListenAddress.defaultPort); port 0 picks a free one)."
        case .store:
            "Where events are kept: sqlite:PATH (default: $XDG_DATA_HOME/reservoir/events.sqlite3) or postgres://user@host/db."
        case .tokenFile:
            "Serve under a secret path: the feed at /TOKEN/calendar.ics, the page at /TOKEN/. The file (mode 0600) holds the token: at least \(AccessToken.minimumLength) characters of A-Z a-z 0-9 - . _ ~; or TOKEN ACCOUNT lines, one token per account."
        case .netrc: "Ask for HTTP Basic credentials: the login and password of this netrc file's entry (mode 0600)."
        case .netrcMachine: "The netrc machine entry to use (default: the --listen host)."
        case .noAuth: "Listen on a non-loopback address without a token or credentials."
        case .serverName:
            "A name the server answers under besides its --listen address (repeatable): the name in its address, or the Host a reverse proxy in front passes on. A request for any other name is refused (421)."
        case .now: "Pin the clock of \"upcoming\" (ISO 8601 with offset), for tests."
        case .actions:
            "Forms on the page: add a confirmation page by its https address, trust or dismiss a pending sender (each runs reservoir add, allow or deny for the page's account). Refused with --no-auth off loopback."
        }
    }

    /// Usage text for `reservoir-serve --help`.
    public static var usage: String {
        var text = """
            USAGE: reservoir serve [--listen <host:port>] [--store <url>] [--token-file <file>] [--netrc <file> [--netrc-machine <name>]] [--no-auth] [--actions] [--server-name <name> ...]

            Serves the store as an iCalendar subscription (GET /calendar.ics, with ETag and \
            Last-Modified) and a page of upcoming reservations (GET /). Without --token-file or \
            --netrc it listens on loopback addresses only, unless --no-auth is given. It answers \
            only requests whose Host is its --listen address (localhost too on loopback) or a \
            --server-name.

            OPTIONS:

            """
        for option in allCases {
            let name = option.flag + (option.valueName.map { " <\($0)>" } ?? "")
            text += "  " + name + "\n        " + option.help + "\n"
        }
        text += "  -h, --help\n        Show help information.\n"
        return text
    }
}

/// The settings `reservoir serve` runs with, read from its arguments.
public struct ServeSettings: Sendable, Equatable {
    public var listen = ListenAddress.standard
    public var store: String?
    public var tokenFile: String?
    public var netrc: String?
    public var netrcMachine: String?
    public var noAuth = false
    public var actions = false
    public var now: String?
    /// `--server-name`, in the order given.
    public var serverNames: [String] = []

    public init() {}

    /// What the arguments ask for.
    public enum Reading: Sendable, Equatable {
        case run(ServeSettings)
        case help
        /// A usage error, for people (exit 64).
        case usage(String)
    }

    /// Reads `--name value` and `--name=value`; checks that the address is usable without
    /// credentials when none are asked for.
    public static func read(_ arguments: [String]) -> Reading {
        var settings = ServeSettings()
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "-h" || argument == "--help" { return .help }
            var name = argument
            var inline: String?
            if let equals = argument.firstIndex(of: "="), argument.hasPrefix("--") {
                name = String(argument[..<equals])
                inline = String(argument[argument.index(after: equals)...])
            }
            guard name.hasPrefix("--"), let option = ServeOption(rawValue: String(name.dropFirst(2))) else {
                return .usage("unknown argument \(argument) (see reservoir serve --help)")
            }
            guard option.valueName != nil else {
                if inline != nil { return .usage("\(option.flag) takes no value") }
                if option == .actions { settings.actions = true } else { settings.noAuth = true }
                continue
            }
            let value: String
            if let inline {
                value = inline
            } else {
                guard index < arguments.count else { return .usage("\(option.flag) needs a value") }
                value = arguments[index]
                index += 1
            }
            switch option {
            case .listen:
                guard let address = ListenAddress(value) else {
                    return .usage(
                        "--listen takes HOST:PORT, e.g. 127.0.0.1:\(ListenAddress.defaultPort) or [::1]:\(ListenAddress.defaultPort) (got \(value))")
                }
                settings.listen = address
            case .store: settings.store = value
            case .tokenFile: settings.tokenFile = value
            case .netrc: settings.netrc = value
            case .netrcMachine: settings.netrcMachine = value
            case .now: settings.now = value
            case .serverName:
                guard value.utf8.count <= ServedHosts.maximumNameBytes, ServedHosts.host(ofField: value) != nil,
                    !value.contains(":") || (value.hasPrefix("[") && value.hasSuffix("]"))
                else {
                    return .usage("--server-name takes a host name or an IP address (IPv6 in brackets), without a port (got \(value))")
                }
                settings.serverNames.append(value)
            case .noAuth, .actions: continue
            }
        }
        if settings.netrcMachine != nil && settings.netrc == nil {
            return .usage("--netrc-machine needs --netrc")
        }
        if settings.tokenFile == nil && settings.netrc == nil && !settings.noAuth && !settings.listen.isLoopback {
            return .usage(
                "\(settings.listen) is not a loopback address: give --token-file or --netrc, or --no-auth to serve the calendar to anyone who can reach it"
            )
        }
        if settings.actions && settings.tokenFile == nil && settings.netrc == nil && !settings.listen.isLoopback {
            return .usage("--actions lets whoever reaches the page change what is trusted: give --token-file or --netrc to serve it off loopback")
        }
        return .run(settings)
    }
}
