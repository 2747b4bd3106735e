import Glibc

/// A program the tests start (a CalDAV server, openssl), with posix_spawn: no file of the test
/// process open in the child, default signal dispositions, output into a log file.
final class ServerProcess {
    let pid: pid_t
    let log: String
    private var reaped = false

    init(_ command: [String], log: String) throws {
        self.log = log
        pid = try Self.spawn(command, log: log)
    }

    /// SIGKILL and reap: on SIGTERM Radicale waits for keep-alive connections to close.
    func kill() {
        guard !reaped else { return }
        _ = Glibc.kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        reaped = true
    }

    deinit { kill() }

    /// The log's text, for failure messages.
    var output: String {
        guard let file = fopen(log, "r") else { return "" }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count <= 0 { break }
            bytes += buffer[..<count]
        }
        return String(decoding: bytes.suffix(2000), as: UTF8.self)
    }

    /// Runs `command` to its end; throws when it fails.
    static func run(_ command: [String]) throws {
        let pid = try spawn(command, log: "/dev/null")
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        guard status == 0 else { throw TestFailure("\(command.joined(separator: " ")) failed with status \(status)") }
    }

    private static func spawn(_ command: [String], log: String) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // posix_spawn_file_actions_addclosefrom_np (glibc 2.34) is not in Swift's Glibc module.
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else {
            throw TestFailure("glibc without posix_spawn_file_actions_addclosefrom_np")
        }
        _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var mask = sigset_t()
        var all = sigset_t()
        sigemptyset(&mask)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &mask)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = command.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, command[0], &actions, &attributes, argv, environ)
        guard rc == 0 else { throw TestFailure("cannot run \(command[0]): \(String(cString: strerror(rc)))") }
        return pid
    }

    /// Whether `program` is an executable file.
    static func isInstalled(_ program: String) -> Bool { access(program, X_OK) == 0 }
}
