import Foundation
import Glibc
import PostgresTestSupport
import Testing

extension ProcessSuites.IMAPWatchTests {
    /// SIGHUP to a running watch against a real Dovecot: the configuration's `watch` list read
    /// again, a mailbox added to it read at once and idled on, the one it kept still on its
    /// connection (Dovecot sees no second login for it); a configuration that does not read is
    /// refused and the watch goes on; READY=1 once its start's checks passed.
    @Test(
        "a watch reloads its configuration on SIGHUP: a new mailbox is watched, a kept one keeps its connection, a broken file is refused",
        .enabled(if: available, "needs root, dovecot-imapd, python3 and openssl"))
    func reloadsOnHangUp() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let d = try Self.dovecotDirectory(tmp)
        let server = try Server(directory: d)
        for folder in ["cur", "new", "tmp"] {
            try FileManager.default.createDirectory(atPath: d + "/Maildir/.Travel/" + folder, withIntermediateDirectories: true)
        }
        try server.start()
        defer { server.stop() }
        let netrc = try Self.janeNetrc(tmp)
        let inbox = "imaps://jane@127.0.0.1:\(server.port)/INBOX"
        let travel = "imaps://jane@127.0.0.1:\(server.port)/Travel"
        let config = tmp.path + "/config.toml"
        try "watch = [\"\(inbox)\"]\n".write(toFile: config, atomically: true, encoding: .utf8)

        // systemd's side of sd_notify.
        let notify = try NotifySocket(at: tmp.path + "/notify", seconds: 60)
        let out = tmp.path + "/watch.out"
        let err = tmp.path + "/watch.err"
        let pid = try ChildProcess.spawn(
            [
                "/usr/bin/env", "NO_COLOR=1", "RESERVOIR_CONFIG=\(config)", "NOTIFY_SOCKET=\(notify.path)", ReservoirBinary.executable.path, "watch",
                "--json", "--interval", "3600", "--store", "sqlite:\(tmp.path)/watch.sqlite3", "--netrc", netrc, "--ca-file", d + "/ca.pem",
                "--no-calendar", "--keys", ReservoirBinary.keys, "--allowed-domains", ReservoirBinary.allowed, "--now", ReservoirBinary.now,
            ], stdout: out, stderr: err)
        var running = true
        defer {
            if running {
                kill(pid, SIGKILL)
                _ = ChildProcess.wait(pid)
            }
        }
        func log() -> String { (try? String(contentsOfFile: err, encoding: .utf8)) ?? "" }
        func logins() -> Int {
            ((try? String(contentsOfFile: d + "/dovecot.log", encoding: .utf8)) ?? "").components(separatedBy: "Login: user=<jane>").count - 1
        }
        #expect(notify.next() == "READY=1", "\(log())")
        try #require(Self.waitFor(60) { Self.watchOutput(out).summaries >= 1 } != nil, "the first read: \(log())")
        #expect(logins() == 1)
        usleep(500_000)  // into IDLE

        // Travel added: read at once, and idled on; INBOX keeps its connection.
        try "watch = [\"\(inbox)\", \"\(travel)\"]\n".write(toFile: config, atomically: true, encoding: .utf8)
        kill(pid, SIGHUP)
        #expect(Self.waitFor(10) { log().contains("reloaded: 2 mailboxes (1 kept, 1 new, 0 closed)") } != nil, "\(log())")
        #expect(Self.waitFor(10) { logins() == 2 } != nil, "one new login, for Travel: \(logins())")
        usleep(800_000)
        _ = try Self.client(server, ["append", try ReservoirBinary.sample(10), "Travel"])
        #expect(Self.waitFor(5) { Self.watchOutput(out).messages == 1 } != nil, "the message in the added mailbox: \(log())")
        _ = try Self.client(server, ["append", try ReservoirBinary.sample(11)])
        #expect(Self.waitFor(5) { Self.watchOutput(out).messages == 2 } != nil, "the kept mailbox still idles: \(log())")
        // The two appends logged in themselves: still only the watch's two and those.
        #expect(logins() == 4, "INBOX was not reconnected: \(logins()) logins")

        // A file that does not read: refused, the watch goes on with what it had.
        try "watch = [\"\(inbox)\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        kill(pid, SIGHUP)
        #expect(Self.waitFor(10) { log().contains("reload refused, the settings in use are kept") } != nil, "\(log())")
        #expect(log().contains("config.toml"), "\(log())")
        _ = try Self.client(server, ["append", try ReservoirBinary.sample(9), "Travel"])
        #expect(Self.waitFor(5) { Self.watchOutput(out).messages == 3 } != nil, "still watching Travel: \(log())")

        kill(pid, SIGTERM)
        let status = ChildProcess.wait(pid)
        running = false
        #expect(status == 0, "\(log())")
    }
}
