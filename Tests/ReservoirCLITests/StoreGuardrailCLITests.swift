import Foundation
import Glibc
import PostgresTestSupport
import Testing

/// A mistyped `--store` must not look like an empty calendar: a store is made only where it is
/// recorded into and its directory exists (or with `--create`), saying so; reading, forgetting
/// or syncing a store that does not exist is an error naming it. The hooks still never lose
/// mail over it. And a store made writable again works at once, its side files too.
@Suite("the store: made only on purpose, never mistaken for an empty one")
struct StoreGuardrailCLITests {
    static let options = ["--keys", ReservoirBinary.keys, "--allowed-domains", ReservoirBinary.allowed, "--now", ReservoirBinary.now]

    static func entries(_ path: String) -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }

    @Test(
        "events, forget and sync on a store that does not exist: exit 66 with its path, and no file is made",
        arguments: [["events"], ["events", "--ics"], ["forget", "IWDSCA"], ["sync", "--calendar", "vdir:/nonexistent/cal"]])
    func missingStore(command: [String]) throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let path = tmp.path + "/evnets.sqlite3"
        let r = try ReservoirBinary.run(command + ["--store", "sqlite:" + path])
        #expect(r.status == 66, "\(command): \(r.status) \(r.text) \(r.stderr)")
        #expect(r.stderr.contains(path), "\(r.stderr)")
        #expect(!r.text.contains("No upcoming events"), "\(r.text)")
        #expect(Self.entries(tmp.path).isEmpty, "\(Self.entries(tmp.path))")
    }

    @Test("events with no store at the default location yet: exit 66 naming it and what makes it")
    func missingDefaultStore() throws {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        let r = try ReservoirBinary.run(["events"], environment: ["HOME": home.path, "RESERVOIR_CONFIG": ""], removing: ["XDG_DATA_HOME"])
        #expect(r.status == 66, "\(r.stderr)")
        #expect(r.stderr.contains(home.path + "/.local/share/reservoir/events.sqlite3") && r.stderr.contains("scan"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: home.path + "/.local"))
    }

    @Test("scan into a directory that does not exist: exit 78 naming it, nothing made; --create makes it, and a new store is said once")
    func scanCreates() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let sample = try ReservoirBinary.sample(1)
        let typo = "sqlite:\(tmp.path)/nonexistent/dir/x.sqlite3"
        let refused = try ReservoirBinary.run(["scan", sample, "--store", typo] + Self.options)
        #expect(refused.status == 78, "\(refused.stderr)")
        #expect(refused.stderr.contains("\(tmp.path)/nonexistent/dir") && refused.stderr.contains("--create"), "\(refused.stderr)")
        #expect(Self.entries(tmp.path).isEmpty, "\(Self.entries(tmp.path))")

        let created = try ReservoirBinary.run(["scan", sample, "--store", typo, "--create"] + Self.options)
        #expect(created.status == 0, "\(created.stderr)")
        #expect(created.stderr.contains("created a new store at \(tmp.path)/nonexistent/dir/x.sqlite3"), "\(created.stderr)")

        // In a directory that exists, a new store is made without --create, and said.
        let here = "sqlite:\(tmp.path)/events.sqlite3"
        let first = try ReservoirBinary.run(["scan", sample, "--store", here] + Self.options)
        #expect(first.status == 0 && first.stderr.contains("created a new store at \(tmp.path)/events.sqlite3"), "\(first.stderr)")
        let second = try ReservoirBinary.run(["scan", sample, "--store", here, "--rescan"] + Self.options)
        #expect(second.status == 0 && !second.stderr.contains("created"), "\(second.stderr)")
        #expect(try ProcessSuites.FaultTests.events(here).count == 1)
    }

    @Test(
        "the hooks with a store directory that does not exist: the mail goes out analysed, exit 0, kept for retry, which applies it once the directory is made",
        arguments: ["reservoir filter", "reservoir-filter", "reservoir ingest"])
    func hookKeepsMail(hook: String) throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let spool = tmp.path + "/retry"
        let directory = tmp.path + "/var/lib/reservoir"
        let store = "sqlite:\(directory)/events.sqlite3"
        let message = try ReservoirBinary.sampleMessage(1)
        let arguments = ["--store", store, "--retry-spool", spool] + Self.options
        let r: ReservoirBinary.Result
        switch hook {
        case "reservoir-filter": r = try ReservoirBinary.run(arguments, stdin: message, executable: ReservoirBinary.filterExecutable)
        case "reservoir ingest": r = try ReservoirBinary.run(["ingest", "-"] + arguments, stdin: message)
        default: r = try ReservoirBinary.run(["filter"] + arguments, stdin: message)
        }
        #expect(r.status == 0, "\(hook): \(r.stderr)")
        if hook != "reservoir ingest" {
            let text = r.text
            #expect(text.hasPrefix("Authentication-Results:") && text.contains("X-Reservation: Restaurant"), "\(hook): \(text.prefix(300))")
            #expect(r.stdout.suffix(message.count) == message, "\(hook): the message is not intact")
        }
        #expect(r.stderr.contains(directory) && r.stderr.contains("kept for reservoir retry"), "\(hook): \(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: tmp.path + "/var"), "\(hook) made the directory")
        #expect(ProcessSuites.RetryTests.records(spool).count == 1, "\(hook): \(ProcessSuites.RetryTests.records(spool))")

        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let retry = try ProcessSuites.RetryTests.retry(spool, store: store)
        #expect(retry.status == 0, "\(retry.text) \(retry.stderr)")
        #expect(try ProcessSuites.FaultTests.events(store).count == 1)
    }

    // MARK: side files

    /// `script` run by `sh` as `nobody` when the tests run as root (root may write any file,
    /// so a read-only store means nothing to it), else as the test's user.
    static func asUnprivileged(_ script: String, in directory: String) throws -> (status: Int32, output: String) {
        let isRoot = getuid() == 0
        if isRoot {
            chmod(directory, 0o777)
            _ = try ChildProcess.capture(["/bin/chown", "-R", "nobody", directory])
        }
        let command = isRoot ? ["/usr/sbin/runuser", "-u", "nobody", "--", "/bin/sh", "-c", script] : ["/bin/sh", "-c", script]
        let r = try ChildProcess.capture(command)
        return (r.status, String(decoding: r.stdout + r.stderr, as: UTF8.self))
    }

    @Test(
        "a store made read-only with its -wal and -shm, then writable again: the first retry applies what waited",
        .enabled(if: getuid() != 0 || FileManager.default.isExecutableFile(atPath: "/usr/sbin/runuser")))
    func sideFilesAfterReadOnly() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        chmod(tmp.path, 0o755)
        // The user runs its own copy: the checkout may be out of nobody's reach.
        try FileManager.default.copyItem(atPath: ReservoirBinary.executable.path, toPath: tmp.path + "/reservoir")
        for (from, to) in [(ReservoirBinary.keys, "keys.zone"), (ReservoirBinary.allowed, "allowed-domains")] {
            try FileManager.default.copyItem(atPath: from, toPath: tmp.path + "/" + to)
        }
        try ReservoirBinary.sampleMessage(1).write(to: URL(fileURLWithPath: tmp.path + "/m1.eml"))
        try ReservoirBinary.sampleMessage(4).write(to: URL(fileURLWithPath: tmp.path + "/m4.eml"))
        let d = tmp.path
        let options =
            "--keys \(d)/keys.zone --allowed-domains \(d)/allowed-domains --now \(ReservoirBinary.now) --store sqlite:\(d)/events.sqlite3 --retry-spool \(d)/retry"
        let script = """
            set -e
            \(d)/reservoir filter \(options) < \(d)/m1.eml > /dev/null
            chmod 400 \(d)/events.sqlite3 \(d)/events.sqlite3-wal \(d)/events.sqlite3-shm
            \(d)/reservoir filter \(options) < \(d)/m4.eml > /dev/null
            chmod 600 \(d)/events.sqlite3
            \(d)/reservoir retry \(options)
            """
        let r = try Self.asUnprivileged(script, in: d)
        #expect(r.status == 0, "\(r.output)")
        #expect(r.output.contains("1 applied, 0 kept"), "\(r.output)")
        #expect(try ProcessSuites.FaultTests.events("sqlite:\(d)/events.sqlite3").count == 3, "the restaurant and both flight legs")
        for side in ["-wal", "-shm"] {
            var info = stat()
            #expect(
                stat(d + "/events.sqlite3" + side, &info) == 0 && info.st_mode & 0o777 == 0o600, "\(side): \(String(info.st_mode & 0o777, radix: 8))")
        }
    }
}
