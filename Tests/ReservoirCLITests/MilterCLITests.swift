import Foundation
import Glibc
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
        // A port another process listens on.
        let (fd, port) = try LoopbackPort.bound()
        defer { close(fd) }
        listen(fd, 1)
        let busy = try ReservoirBinary.run(["milter", "--socket", "inet:\(port)@127.0.0.1", "--account", "jane@example.org", "--no-store"])
        #expect(busy.status == 69 && busy.stderr.contains("cannot listen"), "\(busy.stderr)")
    }
}
