import CommandCore
import EventStore
import Feed
import Glibc
import JSON
import ReservoirBase
import Synchronization

/// The page's forms, run as the commands of the same names: `reservoir add URL --json`,
/// `reservoir allow DOMAIN`, `reservoir deny DOMAIN`, with the page's account and store. The
/// server links none of the pipeline, libcurl or DKIM, and a change made from the page follows
/// exactly the rules a change made at the shell does.
final class ActionRunner: Sendable {
    /// The most an action may take: a page's fetch is limited to 20 s, an import of a
    /// sender's pending mail re-reads at most 200 messages.
    static let timeLimitSeconds = 120
    /// The most of a command's output read.
    static let maxOutputBytes = 1 << 20

    let program: String
    let store: String?
    /// `--now` of the server, passed on so a pinned clock holds for the commands too.
    let now: String?
    /// One action at a time: a second press while one runs is told to wait (429), not queued.
    private let busy = Mutex(false)

    init(program: String, store: String?, now: String?) {
        self.program = program
        self.store = store
        self.now = now
    }

    /// `reservoir` in the directory of this executable.
    static func sibling() -> String { ProgramPath.beside("reservoir") }

    func run(_ action: PageAction, account: Account?) -> PageActionResult? {
        guard
            busy.withLock({ (running: inout Bool) -> Bool in
                if running { return false }
                running = true
                return true
            })
        else { return nil }
        defer { busy.withLock { $0 = false } }
        var arguments = [program]
        switch action {
        case .add: arguments += ["add", "--json"]
        // Recorded as the page account's choice (`page:ADDRESS`), answered as JSON.
        case .allow(let domain): arguments += ["allow", domain, "--json", "--from-page"]
        case .deny(let domain): arguments += ["deny", domain, "--json", "--from-page"]
        }
        if let store { arguments += ["--store", store] }
        if let now { arguments += ["--now", now] }
        if let account, !account.isImplicit { arguments += ["--account", account.address] }
        if case .add(let url) = action { arguments += ["--", url] }
        guard let (status, output) = Self.spawn(arguments) else {
            return PageActionResult(succeeded: false, summary: "reservoir could not be run beside reservoir-serve (\(program)).")
        }
        switch action {
        case .add: return Self.addResult(status: status, output: output)
        case .allow(let domain), .deny(let domain):
            return Self.decisionResult(domain: domain, status: status, output: output)
        }
    }

    /// What `reservoir allow|deny --json` said, in a sentence (``PageActionResult/trusted(domain:added:notAdded:)``).
    static func decisionResult(domain: String, status: Int32, output: [UInt8]) -> PageActionResult {
        guard status == 0, let object = TolerantJSONReader.read(output).values.first?.objectValue else {
            return PageActionResult(succeeded: false, summary: "The choice for \(domain) was not kept (exit \(status)).")
        }
        if object["decision"]?.stringValue == "deny" {
            let dropped = object["dropped"]?.stringValue.flatMap { Int($0) } ?? 0
            return .refused(domain: domain, dropped: dropped)
        }
        let titles = (object["imported"]?.listValue ?? []).compactMap { $0.objectValue?["title"]?.stringValue }
        let refused = (object["notImported"]?.listValue ?? []).compactMap { value -> (message: String, reason: String)? in
            guard let entry = value.objectValue else { return nil }
            return (entry["message"]?.stringValue ?? "a message", entry["reason"]?.stringValue ?? "")
        }
        return .trusted(domain: domain, added: titles, notAdded: refused)
    }

    /// What `reservoir add --json` said, in a sentence.
    static func addResult(status: Int32, output: [UInt8]) -> PageActionResult {
        guard let object = TolerantJSONReader.read(output).values.first?.objectValue else {
            return PageActionResult(succeeded: false, summary: "The page could not be added (exit \(status)).")
        }
        if let failure = object["failure"]?.objectValue {
            let reason = failure["reason"]?.stringValue ?? "it could not be fetched"
            return PageActionResult(succeeded: false, summary: "The page was not added: \(reason).")
        }
        let reservations = object["reservations"]?.listValue ?? []
        let trusted = reservations.filter { $0.objectValue?["trusted"] == .bool(true) }
        let titles = trusted.compactMap { $0.objectValue?["title"]?.stringValue }
        if reservations.isEmpty { return PageActionResult(succeeded: false, summary: "The page holds no reservation Reservoir reads.") }
        if trusted.isEmpty {
            let reason = object["trust"]?.objectValue?["reason"]?.stringValue ?? "nothing vouches for it"
            return PageActionResult(succeeded: false, summary: "Shown, not added: \(reason).")
        }
        let domain = object["trust"]?.objectValue?["vouchingDomain"]?.stringValue
        return PageActionResult(
            succeeded: status == 0,
            summary: "Added \(titles.joined(separator: "; "))" + (domain.map { ", vouched for by \($0)" } ?? "") + ".")
    }

    /// Runs `arguments` with no standard input, reading its standard output (at most
    /// ``maxOutputBytes``; standard error goes to the server's) until it exits, killed at
    /// ``timeLimitSeconds``. The child starts with default signal dispositions and an empty mask.
    static func spawn(_ arguments: [String]) -> (Int32, [UInt8])? {
        var pipe: [Int32] = [-1, -1]
        guard Glibc.pipe(&pipe) == 0 else { return nil }
        // Not inherited by children the server's other threads start meanwhile.
        _ = fcntl(pipe[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(pipe[1], F_SETFD, FD_CLOEXEC)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, pipe[1], 1)
        let spawned = ChildSpawn.spawn(arguments, actions: &actions)
        close(pipe[1])
        guard let pid = spawned else {
            close(pipe[0])
            return nil
        }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        let deadline = WallClock.system.now() + Int64(timeLimitSeconds)
        var descriptor = pollfd(fd: pipe[0], events: Int16(POLLIN), revents: 0)
        while WallClock.system.now() < deadline {
            let ready = poll(&descriptor, 1, 1000)
            if ready < 0 && errno == EINTR { continue }
            if ready <= 0 { continue }
            let count = read(pipe[0], &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            if output.count < maxOutputBytes { output += chunk[0..<min(count, maxOutputBytes - output.count)] }
        }
        close(pipe[0])
        if WallClock.system.now() >= deadline { kill(pid, SIGKILL) }
        return (ChildSpawn.wait(pid), output)
    }
}
