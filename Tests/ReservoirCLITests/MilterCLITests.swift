import Foundation
import Glibc
import PostgresTestSupport
import Testing

/// `reservoir milter` refuses to start on settings that cannot work, each with its sysexits
/// status and one line saying why: a service fails at `systemctl start`, not on mail.
@Suite("reservoir milter at start")
struct MilterCLITests {
    static var available: Bool {
        FileManager.default.isExecutableFile(
            atPath: ReservoirBinary.executable.deletingLastPathComponent().appendingPathComponent("reservoir-milter").path)
    }

    @Test(
        "wrong arguments 64, settings that cannot work 78, a socket that cannot be opened 69",
        .enabled(if: available, "needs reservoir-milter built beside reservoir"))
    func refusals() throws {
        let usage = try ReservoirBinary.run(["milter", "--socket", "inet:8894@127.0.0.1"])
        #expect(usage.status == 64 && usage.stderr.contains("--account"), "\(usage.stderr)")
        let socket = try ReservoirBinary.run(["milter", "--socket", "tcp:8894", "--account", "jane@example.org"])
        #expect(socket.status == 64 && socket.stderr.contains("--socket"), "\(socket.stderr)")
        let recipient = try ReservoirBinary.run(["milter", "--socket", "inet:8894@127.0.0.1", "--account", "jane"])
        #expect(recipient.status == 64, "\(recipient.stderr)")
        let keys = try ReservoirBinary.run([
            "milter", "--socket", "inet:8894@127.0.0.1", "--account", "jane@example.org", "--keys", "/nonexistent/keys.zone",
        ])
        #expect(keys.status == 78 && keys.stderr.contains("/nonexistent/keys.zone"), "\(keys.stderr)")
        // What it will need, before it listens: a store that does not answer (75) and a retry
        // spool it cannot make (73), each named; the same with a store that opens starts.
        let closed = try LoopbackPort.free()
        let store = try ReservoirBinary.run([
            "milter", "--socket", "inet:8894@127.0.0.1", "--account", "jane@example.org", "--store",
            "postgres://reservoir@127.0.0.1:\(closed)/reservoir?connect_timeout=2",
        ])
        #expect(store.status == 75 && store.stderr.contains("store"), "\(store.stderr)")
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let spool = try ReservoirBinary.run([
            "milter", "--socket", "inet:8894@127.0.0.1", "--account", "jane@example.org", "--store", "sqlite:\(tmp.path)/s.sqlite3",
            "--retry-spool", "/proc/reservoir-retry",
        ])
        #expect(spool.status == 73 && spool.stderr.contains("/proc/reservoir-retry"), "\(spool.stderr)")
        // A PostgreSQL role that row-level security does not hold (a superuser) cannot keep a
        // site's accounts apart: refused, named; the site's ordinary role starts.
        if PostgresServer.isAvailable {
            let server = try PostgresServer.shared.get()
            let superuser = try ReservoirBinary.run([
                "milter", "--socket", "inet:8894@127.0.0.1", "--account", "jane@example.org", "--store", try server.makeDatabase(),
            ])
            #expect(superuser.status == 78 && superuser.stderr.contains("BYPASSRLS"), "\(superuser.stderr)")
        }
        // A port another process listens on.
        let (fd, port) = try LoopbackPort.bound()
        defer { close(fd) }
        listen(fd, 1)
        let busy = try ReservoirBinary.run(["milter", "--socket", "inet:\(port)@127.0.0.1", "--account", "jane@example.org", "--no-store"])
        #expect(busy.status == 69 && busy.stderr.contains("cannot listen"), "\(busy.stderr)")
    }

    @Test(
        "READY=1 to systemd once the socket is open, and a SIGTERM right after it stops the milter cleanly",
        .enabled(if: available, "needs reservoir-milter built beside reservoir"))
    func readyAndStop() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        // systemd's side: a datagram socket at $NOTIFY_SOCKET.
        let notify = try NotifySocket(at: tmp.path + "/notify")
        let milter = Process()
        milter.executableURL = ReservoirBinary.executable
        milter.arguments = ["milter", "--socket", "unix:\(tmp.path)/milter.sock", "--account", "jane@example.org", "--no-store"]
        milter.environment = ProcessInfo.processInfo.environment.merging(["NOTIFY_SOCKET": notify.path]) { _, new in new }
        let errors = tmp.path + "/milter.err"
        _ = FileManager.default.createFile(atPath: errors, contents: nil)
        milter.standardError = FileHandle(forWritingAtPath: errors)
        try milter.run()
        defer { if milter.isRunning { kill(milter.processIdentifier, SIGKILL) } }
        #expect(notify.next() == "READY=1")
        #expect(FileManager.default.fileExists(atPath: tmp.path + "/milter.sock"))
        milter.terminate()
        milter.waitUntilExit()
        #expect(
            milter.terminationReason == .exit && milter.terminationStatus == 0,
            "status \(milter.terminationStatus): \((try? String(contentsOfFile: errors, encoding: .utf8)) ?? "")")
    }
}
