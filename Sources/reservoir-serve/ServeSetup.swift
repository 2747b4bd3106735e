import CommandCore
import EventStore
import Feed
import Glibc
import ReservoirBase
import Synchronization

/// Why the server cannot start (or a reload cannot take its settings), with the sysexits code
/// a start exits with.
struct StartFailure: Error {
    var message: String
    var code: Int32

    init(_ message: String, code: Int32) {
        self.message = message
        self.code = code
    }
}

/// What the server answers with, made from its settings at start and again at each reload:
/// the token and netrc files, the configuration file's store, account and pending days.
struct Setup {
    let service: FeedService
    let access: FeedAccess
    let location: String?
    let configured: Account
    /// Whether a request's first path segment is a token, which the request log never shows.
    var tokenInPath: Bool { access.token != nil || !access.accountTokens.isEmpty }

    /// `configuration` is the file the settings are read over (the process's, read again at each
    /// reload); `clock` the one every request reads.
    init(_ settings: ServeSettings, configuration: ConfigurationLoad, clock: WallClock, secret: [UInt8]?) throws(StartFailure) {
        let netrcLogins = try settings.netrc.map { (path) throws(StartFailure) in try ReservoirServe.logins(path, settings) }
        access = FeedAccess(
            tokens: try settings.tokenFile.map { (path) throws(StartFailure) in try ReservoirServe.tokens(path) },
            credentials: netrcLogins?.single, accountCredentials: netrcLogins?.accounts ?? [])
        // --store, else the configuration file's `store` (docs/CONFIGURATION.md), else the
        // default; a file that cannot be used stops the server as it stops the other commands.
        if let problem = configuration.problem { throw StartFailure(problem.description, code: 78) }
        let file = EffectiveSettings(file: configuration.file, commandLine: [:])
        let location = settings.store ?? file.store
        self.location = location
        // The account of a bare token, of credentials or of an open server: the file's `account`,
        // else the store's implicit one. A `TOKEN ACCOUNT` line names its own.
        let configured: Account
        do { configured = try AccountAddress.parse(file.account) } catch {
            throw StartFailure(error.description, code: 78)
        }
        self.configured = configured
        var actions: PageActions?
        if let secret {
            let program = ActionRunner.sibling()
            guard Glibc.access(program, X_OK) == 0 else {
                throw StartFailure("--actions runs reservoir add, allow and deny: reservoir must be installed beside reservoir-serve", code: 69)
            }
            let runner = ActionRunner(program: program, store: settings.store, now: settings.now)
            actions = PageActions(secret: secret) { action, account in runner.run(action, account: account ?? configured) }
        }
        let pendingDays = file.number(.pendingDays) ?? PendingLimits.defaultDays
        service = FeedService(
            access: access,
            openStore: { (account: Account?) throws(EventStoreError) -> any EventStore in
                try ReservoirServe.openStore(location, account: account ?? configured)
            },
            clock: clock, writer: configuration.calendarWriter, actions: actions, pendingDays: pendingDays,
            hosts: ServedHosts(listen: settings.listen, serverNames: settings.serverNames), serverAccount: configured)
    }

    /// The store opened as a request opens it: nil when it answers, a line to log when it is
    /// one to wait for (an SQLite file not made yet is made by the first message recorded;
    /// requests get 503 until then). A store that cannot work throws: a PostgreSQL server that
    /// is not reached or refuses the login 75 (EX_TEMPFAIL, which `Restart=on-failure` tries
    /// again), a URL or schema this program cannot read 78.
    func checkStore() throws(StartFailure) -> String? {
        do {
            let store = try ReservoirServe.openStore(location, account: configured)
            // Accounts on one PostgreSQL database are held apart by it only for an ordinary role.
            let accounts = !configured.isImplicit || !access.accountTokens.isEmpty || !access.accountCredentials.isEmpty
            if accounts, let role = try store.roleBypassingRowSecurity() { throw StartFailure(RowSecurity.refusal(role), code: 78) }
            return nil
        } catch let failure as StartFailure {
            throw failure
        } catch let error as EventStoreError {
            switch error.kind {
            case .unsupportedURL, .schemaTooNew: throw StartFailure("the store cannot be used: \(error.message)", code: 78)
            case _ where location.map(EventStoreLocation.isPostgresURL) == true:
                throw StartFailure("the store cannot be used: \(error.message)", code: 75)
            default: return "the store cannot be read yet (each request tries again): \(error.message)"
            }
        } catch {
            throw StartFailure("the store cannot be used: \(error)", code: 78)
        }
    }
}

/// The service requests are answered with: replaced whole by a reload, read once per request.
final class CurrentService: Sendable {
    private let held: Mutex<FeedService>

    init(_ service: FeedService) { held = Mutex(service) }

    var service: FeedService { held.withLock { $0 } }

    func replace(_ service: FeedService) { held.withLock { $0 = service } }
}
