import Foundation

/// A throwaway PostgreSQL cluster from the Debian packages (`postgresql`), in a temporary
/// directory, listening only on a Unix socket there. When the tests run as root the server
/// runs as `postgres` (or `nobody`), since PostgreSQL refuses to run as root.
///
/// `@unchecked Sendable`: every property is immutable after `start()`; the processes it drives
/// are external.
public final class PostgresServer: @unchecked Sendable {
    /// `initdb`, `pg_ctl` and `createdb` from the newest installed major version, nil when
    /// PostgreSQL is not installed.
    public static let binDirectory: String? = {
        let root = "/usr/lib/postgresql"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return versions.sorted { (Int($0) ?? 0) > (Int($1) ?? 0) }
            .map { "\(root)/\($0)/bin" }
            .first {
                FileManager.default.isExecutableFile(atPath: $0 + "/initdb")
                    && FileManager.default.isExecutableFile(atPath: $0 + "/pg_ctl")
            }
    }()

    public static let isAvailable = binDirectory != nil
    public static let skipReason =
        "PostgreSQL server binaries (initdb, pg_ctl) not found under /usr/lib/postgresql/*/bin; install the postgresql package"

    /// The suite-wide server, started on first use and stopped when the test process exits.
    public static let shared: Result<PostgresServer, ServerError> = {
        do {
            let server = try PostgresServer()
            atexit { if case .success(let server) = PostgresServer.shared { server.stop() } }
            return .success(server)
        } catch let error as ServerError {
            return .failure(error)
        } catch {
            return .failure(ServerError(message: "\(error)"))
        }
    }()

    public struct ServerError: Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    public let directory: String
    private let bin: String
    /// The account the server runs as when we are root.
    private let account: String?
    private var dataDirectory: String { directory + "/data" }
    private let databaseCounter = Counter()
    private let roleLock = NSLock()
    private let maxConnections: Int

    /// `maxConnections`: the server's `max_connections` (3 of them are reserved for superusers).
    public init(maxConnections: Int = 50) throws {
        self.maxConnections = maxConnections
        guard let bin = Self.binDirectory else { throw ServerError(message: "no PostgreSQL binaries") }
        self.bin = bin
        var template = Array("/tmp/reservoir-pg-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw ServerError(message: "mkdtemp failed") }
        directory = String(cString: made)
        if getuid() == 0 {
            let name = getpwnam("postgres") != nil ? "postgres" : "nobody"
            guard let entry = getpwnam(name) else { throw ServerError(message: "no account to run PostgreSQL as") }
            chown(directory, entry.pointee.pw_uid, entry.pointee.pw_gid)
            account = name
        } else {
            account = nil
        }
        chmod(directory, 0o700)
        try run(
            server: true, "initdb",
            [
                "-D", dataDirectory, "-U", "postgres", "-A", "trust", "-E", "UTF8",
                "--locale=C", "--no-sync",
            ])
        try start()
    }

    public func start() throws {
        try run(
            server: true, "pg_ctl",
            [
                "-D", dataDirectory, "-l", directory + "/server.log", "-w", "-t", "60",
                "-o", serverOptions, "start",
            ])
    }

    /// Restarts the server, waiting until it accepts connections again; open connections break.
    public func restart() throws {
        try run(
            server: true, "pg_ctl",
            [
                "-D", dataDirectory, "-l", directory + "/server.log", "-w", "-t", "60",
                "-m", "fast", "-o", serverOptions, "restart",
            ])
    }

    private var serverOptions: String {
        "-c listen_addresses='' -c unix_socket_directories='\(directory)' -c fsync=off -c max_connections=\(maxConnections)"
    }

    public func stop() {
        _ = try? run(server: true, "pg_ctl", ["-D", dataDirectory, "-m", "immediate", "-w", "stop"])
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// A new empty database; its URL.
    public func makeDatabase() throws -> String {
        let name = "reservoir_test_\(databaseCounter.next())"
        try run(server: false, "createdb", ["-h", directory, "-U", "postgres", name])
        return url(database: name)
    }

    public func url(database: String, user: String = "postgres") -> String {
        "postgresql:///\(database)?host=\(directory)&user=\(user)"
    }

    /// The role ``makeDatabase(ownedBy:)`` databases belong to: an ordinary login role, neither
    /// superuser nor BYPASSRLS, as a site's reservoir role is, so row-level security applies.
    public static let ordinaryRole = "reservoir_site"

    /// A new empty database owned by ``ordinaryRole`` (made on first use): the URL reservoir
    /// connects with as that role, and a superuser's URL of the same database for checks made
    /// behind the store's back.
    public func makeDatabase(ownedBy role: String) throws -> (url: String, superuserURL: String) {
        roleLock.lock()
        defer { roleLock.unlock() }
        let name = "reservoir_test_\(databaseCounter.next())"
        let exists = try psqlColumn(url: url(database: "postgres"), "SELECT 1 FROM pg_roles WHERE rolname = '\(role)'")
        if exists.isEmpty {
            try psql(url: url(database: "postgres"), "CREATE ROLE \(role) LOGIN NOSUPERUSER NOBYPASSRLS")
        }
        try run(server: false, "createdb", ["-h", directory, "-U", "postgres", "-O", role, name])
        return (url(database: name, user: role), url(database: name))
    }

    @discardableResult
    private func run(server: Bool, _ tool: String, _ arguments: [String]) throws -> String {
        let command =
            server && account != nil
            ? ["/usr/sbin/runuser", "-u", account ?? "", "--", bin + "/" + tool] + arguments
            : [bin + "/" + tool] + arguments
        let (status, text) = try Self.spawn(command)
        guard status == 0 else {
            let log = (try? String(contentsOfFile: directory + "/server.log", encoding: .utf8)) ?? ""
            throw ServerError(message: "\(tool) failed (\(status)): \(text)\n\(log.suffix(2000))")
        }
        return text
    }
}

/// A thread-safe counter. `@unchecked Sendable`: the value is only touched under the lock.
public final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    public func next() -> Int {
        lock.lock()
        defer { lock.unlock() }
        value += 1
        return value
    }
}

extension PostgresServer {
    /// Runs a command through `ChildProcess`, its output sent to a temporary file.
    /// Not Foundation's `Process` nor a pipe: the server `pg_ctl start` leaves running would
    /// inherit them and `waitUntilExit` / reading to the end would never return.
    public static func spawn(_ command: [String]) throws -> (status: Int32, output: String) {
        let path = NSTemporaryDirectory() + "reservoir-pg-output-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let status: Int32
        do {
            status = try ChildProcess.run(command, stdout: path, stderr: path)
        } catch {
            throw ServerError(message: "\(error)")
        }
        return (status, (try? String(contentsOfFile: path, encoding: .utf8)) ?? "")
    }

    /// Runs one SQL command as the superuser with `psql`.
    public func psql(url: String, _ sql: String) throws {
        let psql = Self.binDirectory.map { $0 + "/psql" } ?? "/usr/bin/psql"
        let (status, text) = try Self.spawn([psql, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", sql])
        guard status == 0 else { throw ServerError(message: "psql failed: \(text)") }
    }

    /// Runs one SQL query as the superuser with `psql`; the first column of each row, as text.
    public func psqlColumn(url: String, _ sql: String) throws -> [String] {
        let psql = Self.binDirectory.map { $0 + "/psql" } ?? "/usr/bin/psql"
        let (status, text) = try Self.spawn([psql, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", sql])
        guard status == 0 else { throw ServerError(message: "psql failed: \(text)") }
        return text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map { String($0.split(separator: "|").first ?? "") }
    }
}
