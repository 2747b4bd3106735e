import Foundation

/// Runs the built `reservoir` executable, as a user or a mail system would.
struct ReservoirBinary {
    struct Result {
        var status: Int32
        var stdout: Data
        var stderr: String
        var text: String { String(decoding: stdout, as: UTF8.self) }
    }

    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let samples = packageRoot.appendingPathComponent("Maildir-samples")
    static let keys = samples.appendingPathComponent("keys.zone").path
    static let allowed = samples.appendingPathComponent("allowed-domains").path
    /// The CA the sample Wallet pass is signed under (`--pass-ca`).
    static let passCA = samples.appendingPathComponent("pass-ca.pem").path
    static let now = "2026-11-22T12:00:00Z"

    /// The executable sits beside the test bundle in the build products folder;
    /// `RESERVOIR_BINARY` points the tests at another build (the release binary, for figures).
    static var executable: URL {
        if let path = ProcessInfo.processInfo.environment["RESERVOIR_BINARY"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        let candidates = [Bundle.main.bundleURL, URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()]
        for dir in candidates {
            let url = dir.appendingPathComponent("reservoir")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return candidates[0].appendingPathComponent("reservoir")
    }

    /// `reservoir-filter`, built beside `reservoir`.
    static var filterExecutable: URL {
        executable.deletingLastPathComponent().appendingPathComponent("reservoir-filter")
    }

    /// The programs and the samples' key and allowed-domains files, as another user reaches them.
    struct Copies {
        var executable: String
        var filterExecutable: String
        var keys: String
        var allowed: String
    }

    /// Copies the programs and the samples' key files into `directory` (made 0755: programs
    /// 0755, files 0644), for a mail system that runs Reservoir as another user (`nobody`, a
    /// user a test creates): the checkout may lie below a directory only its owner may enter
    /// (`mktemp -d` makes 0700 ones).
    static func copiesForOtherUsers(in directory: String) throws -> Copies {
        try FileManager.default.createDirectory(atPath: directory + "/bin", withIntermediateDirectories: true)
        chmod(directory, 0o755)
        chmod(directory + "/bin", 0o755)
        let copies = Copies(
            executable: directory + "/bin/reservoir", filterExecutable: directory + "/bin/reservoir-filter",
            keys: directory + "/keys.zone", allowed: directory + "/allowed-domains")
        for (from, to, mode) in [
            (executable.path, copies.executable, mode_t(0o755)), (filterExecutable.path, copies.filterExecutable, 0o755),
            (keys, copies.keys, 0o644), (allowed, copies.allowed, 0o644),
        ] {
            try FileManager.default.copyItem(atPath: from, toPath: to)
            chmod(to, mode)
        }
        return copies
    }

    static func sample(_ number: Int) throws -> String {
        for folder in ["cur", "new"] {
            let dir = samples.appendingPathComponent(folder)
            if let name = try FileManager.default.contentsOfDirectory(atPath: dir.path).first(where: { $0.contains(".M\(number)P") }) {
                return dir.appendingPathComponent(name).path
            }
        }
        throw CocoaError(.fileNoSuchFile)
    }

    /// The bytes of sample message `number` (see ``sample(_:)``).
    static func sampleMessage(_ number: Int) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: try sample(number)))
    }

    /// Where each run's `XDG_STATE_HOME` is made (unless a test gives its own), removed after the run.
    static let stateHome = NSTemporaryDirectory() + "reservoir-cli-state-\(getpid())"

    /// `directory`: where it starts (the test's own directory otherwise); `removing`: variables
    /// taken out of its environment.
    static func run(
        _ arguments: [String], stdin: Data? = nil, environment: [String: String] = [:],
        executable: URL = Self.executable, directory: String? = nil, removing: [String] = []
    ) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        var env = ProcessInfo.processInfo.environment
        env["NO_COLOR"] = "1"
        // Messages kept for `reservoir retry` go to a spool of this run alone, never the user's,
        // nor one another test's scan would find and apply.
        let state = environment["XDG_STATE_HOME"] == nil ? Self.stateHome + "/" + UUID().uuidString : nil
        if let state { env["XDG_STATE_HOME"] = state }
        defer { if let state { try? FileManager.default.removeItem(atPath: state) } }
        for (k, v) in environment { env[k] = v }
        for name in removing { env[name] = nil }
        process.environment = env
        let out = Pipe()
        let err = Pipe()
        let input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        // Feed stdin and drain both pipes concurrently so large messages cannot deadlock.
        let writer = Thread {
            if let stdin { input.fileHandleForWriting.write(stdin) }
            try? input.fileHandleForWriting.close()
        }
        writer.start()
        // The semaphore orders the reader thread's write before the read below.
        nonisolated(unsafe) var errData = Data()
        let errDone = DispatchSemaphore(value: 0)
        let errReader = Thread {
            errData = err.fileHandleForReading.readDataToEndOfFile()
            errDone.signal()
        }
        errReader.start()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        errDone.wait()
        return Result(status: process.terminationStatus, stdout: outData, stderr: String(decoding: errData, as: UTF8.self))
    }
}

/// A temporary directory removed at the end of a test.
struct TemporaryDirectory {
    let path = NSTemporaryDirectory() + "reservoir-cli-\(UUID().uuidString)"
    init() throws { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
    func remove() { try? FileManager.default.removeItem(atPath: path) }
}
