public import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Runs programs for tests the way a mail system or a shell would: `posix_spawn` with no file
/// of the test process open in the child, default signal dispositions and an empty signal mask.
///
/// Foundation's `Process` passes on the mask of the thread that starts it, and the test runner's
/// worker threads block most signals, SIGCHLD and SIGALRM among them. A Dovecot started that way
/// never hears its filter exit and waits out its time limit whenever the filter outlives its first
/// look — a failure of the harness, not of the program under test.
public enum ChildProcess {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Runs `command` (an absolute path, then arguments) with standard input from `stdin`
    /// (default /dev/null) and standard output and error into the given files; returns the exit
    /// status (128 + signal number when killed by a signal). `blocking` lists signals to start
    /// the child with blocked, as some supervisors do.
    public static func run(
        _ command: [String], stdin: String? = nil, stdout: String, stderr: String,
        blocking: [Int32] = []
    ) throws -> Int32 {
        let pid = try spawn(command, stdin: stdin, stdout: stdout, stderr: stderr, blocking: blocking)
        return wait(pid)
    }

    /// Waits for `pid` to end; its exit status (128 + signal number when killed by a signal).
    public static func wait(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        // WIFEXITED / WEXITSTATUS are macros: exited normally when the low 7 bits are 0.
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }

    /// Starts `command` as `run` does and returns at once with its process id, for a program
    /// that runs until it is told to stop (`kill`, then `wait`).
    public static func spawn(
        _ command: [String], stdin: String? = nil, stdout: String, stderr: String,
        blocking: [Int32] = []
    ) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, stdin ?? "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        if stderr == stdout {
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        } else {
            posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        }
        // Nothing else open in the test process reaches the child: a server started while other
        // tests feed pipes to their children would hold those pipes open for its lifetime.
        // posix_spawn_file_actions_addclosefrom_np (glibc 2.34) is not in Swift's Glibc module.
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else {
            throw Failure(description: "glibc without posix_spawn_file_actions_addclosefrom_np")
        }
        _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var mask = sigset_t()
        var all = sigset_t()
        sigemptyset(&mask)
        for signal in blocking { sigaddset(&mask, signal) }
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &mask)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = command.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, command[0], &actions, &attributes, argv, environ)
        guard rc == 0 else { throw Failure(description: "cannot run \(command[0]): \(String(cString: strerror(rc)))") }
        return pid
    }

    /// GNU time (`/usr/bin/time`, Debian package `time`), which measures peak memory.
    public static let timeProgram = "/usr/bin/time"

    /// `run` under GNU time, also returning the program's peak resident memory in kilobytes.
    /// Not wait4's ru_maxrss: a child started with posix_spawn (vfork) carries the spawning test
    /// process's high-water mark into it; time forks from its own small process.
    public static func measure(_ command: [String], stdin: String? = nil, stdout: String, stderr: String) throws -> (
        status: Int32, peakKilobytes: Int
    ) {
        let report = stdout + ".time"
        defer { try? FileManager.default.removeItem(atPath: report) }
        let status = try run([timeProgram, "-f", "%M", "-o", report] + command, stdin: stdin, stdout: stdout, stderr: stderr)
        let text = (try? String(contentsOfFile: report, encoding: .utf8)) ?? ""
        let peak = text.split(separator: "\n").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } ?? -1
        return (status, peak)
    }

    /// Runs `command` and returns its exit status, standard output and standard error.
    public static func capture(
        _ command: [String], stdin: String? = nil,
        blocking: [Int32] = []
    ) throws -> (status: Int32, stdout: Data, stderr: Data) {
        let base = NSTemporaryDirectory() + "reservoir-child-\(UUID().uuidString)"
        defer {
            try? FileManager.default.removeItem(atPath: base + ".out")
            try? FileManager.default.removeItem(atPath: base + ".err")
        }
        let status = try run(command, stdin: stdin, stdout: base + ".out", stderr: base + ".err", blocking: blocking)
        let out = (try? Data(contentsOf: URL(fileURLWithPath: base + ".out"))) ?? Data()
        let err = (try? Data(contentsOf: URL(fileURLWithPath: base + ".err"))) ?? Data()
        return (status, out, err)
    }
}
