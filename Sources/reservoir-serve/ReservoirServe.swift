import CommandCore
import EventStore
import EventStorePostgres
import Feed
import Glibc
import HTTPTypes
import Hummingbird
import ReservoirBase
import ServiceLog
import Telemetry

/// `reservoir serve`: the store as an iCalendar subscription and a page of upcoming
/// reservations over HTTP. The feed's logic is `Feed`'s; this program reads its settings, hands
/// each request to ``FeedService`` and sends the answer through Hummingbird.
@main
struct ReservoirServe {
    static func main() async {
        var arguments = Array(CommandLine.arguments.dropFirst())
        let telling: ServiceOptions
        switch ServiceOptions.take(from: &arguments) {
        case .success(let options): telling = options
        case .failure(let problem): fail(problem.description, code: 64)
        }
        ServeTelemetry.setUp(telling)
        let settings: ServeSettings
        switch ServeSettings.read(arguments) {
        case .help:
            Output.write(ServeOption.usage + "\nLOGS AND METRICS:\n" + ServiceOptions.usage + "\n")
            return
        case .usage(let message):
            fail("\(message)", code: 64)
        case .run(var read):
            // `~` and `$HOME` in paths, as every program expands them (docs/CONFIGURATION.md).
            let home = HomePath.processHome
            read.store = read.store.map { HomePath.expand(.store, $0, home: home) }
            read.tokenFile = read.tokenFile.map { HomePath.expand($0, home: home) }
            read.netrc = read.netrc.map { HomePath.expand($0, home: home) }
            settings = read
        }
        let clock: WallClock
        do {
            clock = try CommandRunner.wallClock(settings.now)
        } catch {
            fail(error.description, code: 64)
        }
        // The forms' secret outlives reloads, so a page open in a browser keeps working.
        let secret: [UInt8]?
        if settings.actions {
            guard let made = PageActions.randomSecret() else { fail("no random bytes for the forms' tokens", code: 71) }
            secret = made
        } else {
            secret = nil
        }
        let made: Setup
        do { made = try Setup(settings, configuration: .process, clock: clock, secret: secret) } catch { fail(error.message, code: error.code) }
        // What it will need, before it says it listens (READY=1): a store that cannot work
        // stops it, as the milter (docs/SITE.md, "Operating"); an SQLite store not made yet is
        // one the first message makes, so requests get 503 until then.
        do throws(StartFailure) {
            if let waiting = try made.checkStore() { log(waiting) }
        } catch {
            fail(error.message, code: error.code)
        }
        let current = CurrentService(made.service)
        ServeTelemetry.tokenInPath = made.tokenInPath
        // SIGHUP: the configuration, token and netrc files read again, the new settings
        // checked as at start and put in place for the requests that come after; a failed
        // check keeps the ones in use.
        HangUpSignal.onEach {
            ServiceNotification.reloading {
                let previous = ConfigurationLoad.reloadProcess()
                do throws(StartFailure) {
                    let fresh = try Setup(settings, configuration: .process, clock: clock, secret: secret)
                    if let waiting = try fresh.checkStore() { log(waiting) }
                    current.replace(fresh.service)
                    ServeTelemetry.tokenInPath = fresh.tokenInPath
                    log("reloaded: " + Self.address(settings.listen, settings: settings, access: fresh.access))
                } catch {
                    ConfigurationLoad.restoreProcess(previous)
                    log("reload refused, the settings in use are kept: \(error.message)")
                }
            }
        }
        let access = made.access
        do { try ServeTelemetry.startMetrics(telling, store: made.location) } catch { fail(error.description, code: 69) }
        let listen = settings.listen
        let app = Application(
            responder: CallbackResponder { (request: Request, _: BasicRequestContext) in
                let start = MilterOutcome.monotonicNanoseconds()
                let answer = await Self.handle(request, service: current.service)
                ServeTelemetry.request(
                    method: request.method.rawValue, target: request.head.path ?? "/", status: answer.status.code, bytes: answer.body.contentLength,
                    since: start)
                return answer
            },
            configuration: ApplicationConfiguration(address: .hostname(listen.host, port: listen.port), serverName: "reservoir"),
            onServerRunning: { _ in
                Output.line("reservoir serve: listening on " + Self.address(listen, settings: settings, access: access))
                ServiceNotification.send("READY=1")
            })
        do {
            // SIGTERM and SIGINT end it gracefully: open requests finish, then it exits.
            try await app.runService()
        } catch {
            fail("cannot serve on \(listen): \(error)", code: 69)
        }
    }

    /// One request's answer.
    static func handle(_ request: Request, service: FeedService) async -> Response {
        if request.method == .post {
            // The Host first, before the body is read (DNS rebinding, `ServedHosts`).
            let head = Self.feedRequest(request, body: [])
            guard service.hosts.check(head.repeatedHost ? nil : head.host) == .served else { return response(service.respond(to: head)) }
            // A form's body, bounded before it is read whole.
            guard let buffer = try? await request.body.collect(upTo: FormBody.maxBytes) else {
                return Response(status: .contentTooLarge, headers: [:], body: ResponseBody(byteBuffer: ByteBuffer(string: "Too large.\n")))
            }
            let body = Array(buffer.readableBytesView)
            // An action runs a command and waits for it: on a thread of its own, so the
            // server's few threads go on answering GETs meanwhile.
            let feedRequest = Self.feedRequest(request, body: body)
            return response(await OwnThread.run { service.respond(to: feedRequest) })
        }
        return respond(service, to: request, body: [])
    }

    /// The address of the page as a person opens it: with a token, its path segment is
    /// `<token>`, named by its file and never printed (the printed line lands in logs).
    static func address(_ listen: ListenAddress, settings: ServeSettings, access: FeedAccess) -> String {
        if !access.accountTokens.isEmpty, let file = settings.tokenFile {
            let count = Set(access.accountTokens.map(\.account)).count
            return
                "http://\(listen)/<token>/ (one token per account, \(count) \(count == 1 ? "account" : "accounts"), from \(file); each token shows its account only)"
        }
        guard access.token != nil, let file = settings.tokenFile else {
            if !access.accountCredentials.isEmpty {
                return
                    "http://\(listen)/ (HTTP Basic, one --netrc login per account, \(access.accountCredentials.count) logins; each sees its account only)"
            }
            return "http://\(listen)/ (\(access.isOpen ? "open to anyone who can connect" : "HTTP Basic, the --netrc entry"))"
        }
        return "http://\(listen)/<token>/ (protected: <token> is the content of \(file); the feed is /<token>/calendar.ics)"
    }

    static func respond(_ service: FeedService, to request: Request, body: [UInt8]) -> Response {
        response(service.respond(to: feedRequest(request, body: body)))
    }

    /// What the feed reads of a request.
    static func feedRequest(_ request: Request, body: [UInt8]) -> FeedRequest {
        let fields = request.headers
        return FeedRequest(
            method: request.method.rawValue, target: request.head.path ?? "/", host: request.head.authority,
            authorization: fields[.authorization],
            ifNoneMatch: fields[values: .ifNoneMatch].isEmpty ? nil : fields[values: .ifNoneMatch].joined(separator: ", "),
            ifModifiedSince: fields[.ifModifiedSince],
            forwardedProto: HTTPField.Name("X-Forwarded-Proto").flatMap { fields[$0] },
            origin: HTTPField.Name("Origin").flatMap { fields[$0] }, fetchSite: HTTPField.Name("Sec-Fetch-Site").flatMap { fields[$0] },
            contentType: fields[.contentType], body: body,
            // Hummingbird makes the first Host the request's authority and keeps a second as a field.
            repeatedHost: HTTPField.Name("Host").map { !fields[values: $0].isEmpty } ?? false)
    }

    /// The answer as Hummingbird sends it.
    static func response(_ answer: FeedResponse) -> Response {
        if let line = answer.logLine { log(line) }
        var headers = HTTPFields()
        for (name, value) in answer.headers {
            if let fieldName = HTTPField.Name(name) { headers.append(HTTPField(name: fieldName, value: value)) }
        }
        return Response(
            status: HTTPResponse.Status(code: answer.status), headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body)))
    }

    /// The store for one request: SQLite read-only, PostgreSQL as usual.
    static func openStore(_ location: String?, account: Account) throws(EventStoreError) -> any EventStore {
        try ReadOnlyStore.open(location, postgres: PostgresEventStore.init(url:account:), account: account)
    }

    /// The token or tokens of `--token-file`; never printed.
    static func tokens(_ path: String) throws(StartFailure) -> TokenFile {
        func why(_ refusal: AccessToken.Refusal) -> String {
            switch refusal {
            case .tooShort: "must be at least \(AccessToken.minimumLength) characters"
            case .tooLong: "must be at most \(AccessToken.maximumLength) characters"
            case .notURLSafe: "may hold only A-Z a-z 0-9 - . _ ~"
            }
        }
        let read = TokenFile.read(fileText: try secret(path, option: .tokenFile)) { text in try? AccountAddress.parse(text) }
        switch read {
        case .success(let tokens): return tokens
        case .failure(.token(let refusal)): throw StartFailure("\(path): the token \(why(refusal))", code: 78)
        case .failure(.lineToken(let line, let refusal)): throw StartFailure("\(path):\(line): the token \(why(refusal))", code: 78)
        case .failure(.malformedLine(let line)):
            throw StartFailure("\(path):\(line): a line of a file of several tokens is TOKEN ACCOUNT, the account a mailbox address", code: 78)
        case .failure(.repeatedToken(let line)): throw StartFailure("\(path):\(line): this token is given twice", code: 78)
        case .failure(.tooManyLines): throw StartFailure("\(path): more than \(TokenFile.maximumLines) tokens", code: 78)
        }
    }

    /// The login and password of the netrc entry for `--netrc-machine` (default: the listen
    /// host); with several entries for it, one per account, each login a mailbox address.
    static func logins(_ path: String, _ settings: ServeSettings) throws(StartFailure) -> (
        single: BasicCredentials?, accounts: [AccountCredentials]
    ) {
        let machine = settings.netrcMachine ?? settings.listen.host
        let file = NetrcFile(text: String(decoding: try secret(path, option: .netrc), as: UTF8.self))
        let all = file.allCredentials(for: machine)
        if all.count > 1 {
            var accounts: [AccountCredentials] = []
            for credentials in all {
                let login = String(decoding: credentials.user, as: UTF8.self)
                guard let account = try? AccountAddress.parse(login), !account.isImplicit else {
                    throw StartFailure(
                        "\(path): machine \(machine) has several entries, one per account, and the login \(login) is no mailbox address", code: 78)
                }
                guard !accounts.contains(where: { $0.credentials.user == credentials.user }) else {
                    throw StartFailure("\(path): machine \(machine) lists the login \(login) twice", code: 78)
                }
                accounts.append(AccountCredentials(credentials: credentials, account: account))
            }
            return (nil, accounts)
        }
        guard let credentials = file.credentials(for: machine) else {
            throw StartFailure("\(path): no machine \(machine) (nor default) entry with both a login and a password", code: 78)
        }
        return (credentials, [])
    }

    static func secret(_ path: String, option: ServeOption) throws(StartFailure) -> [UInt8] {
        switch SecretFile.read(path) {
        case .read(let bytes): return bytes
        case .unreadable(let why): throw StartFailure("\(path): cannot read the \(option.flag) file: \(why)", code: 66)
        case .notASecretFile:
            throw StartFailure("\(path): the \(option.flag) file must be a regular file of at most \(SecretFile.maximumBytes) bytes", code: 78)
        case .tooOpen(let mode):
            throw StartFailure(
                "\(path): the \(option.flag) file is mode \(String(mode, radix: 8)); it holds a secret, so it must be 0600 (chmod 600 \(path))",
                code: 78)
        }
    }

    static func log(_ line: String) { ServeTelemetry.log.info(line) }

    /// sysexits.h: EX_USAGE 64, EX_NOINPUT 66, EX_UNAVAILABLE 69, EX_CONFIG 78.
    static func fail(_ message: String, code: Int32) -> Never {
        ServeTelemetry.log.error(message)
        exit(code)
    }
}
