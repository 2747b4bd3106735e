import Foundation
import Glibc
import PostgresTestSupport
import TestRequirements
import Testing

extension ProcessSuites {
    /// `reservoir watch` against a real Dovecot on loopback: a private configuration (its own
    /// base_dir, a passwd-file user, a Maildir of the samples), TLS from a CA the test makes with
    /// openssl. What it reads must be what `reservoir scan` of the same messages records; the
    /// flags python3's imaplib reads before and after must not change; the UID state must make a
    /// second run read nothing and the next run read what was appended; a changed UIDVALIDITY
    /// reads everything again and changes nothing; a wrong password, an untrusted certificate, a
    /// netrc file others may read and a silent server each end with their own exit status.
    @Suite("reservoir watch reads a Dovecot mailbox")
    struct IMAPWatchTests {
        static let dovecot = "/usr/sbin/dovecot"
        static let python = "/usr/bin/python3"
        static let openssl = "/usr/bin/openssl"

        static var available: Bool {
            getuid() == 0
                && [dovecot, "/usr/lib/dovecot/imap", "/usr/lib/dovecot/imap-login", python, openssl].allSatisfy {
                    FileManager.default.isExecutableFile(atPath: $0)
                } && getpwnam("nobody") != nil && getpwnam("dovecot") != nil && getpwnam("dovenull") != nil
        }

        /// One Dovecot serving `jane` (password s3cret, mail as nobody) over imaps on `port`,
        /// and on `plainPort` over imap, where it offers STARTTLS and logs in only after it.
        final class Server {
            let directory: String
            let port: Int
            let plainPort: Int
            private var started = false

            /// `extra`: more lines of dovecot.conf.
            init(directory: String, extra: String = "") throws {
                self.directory = directory
                port = try LoopbackPort.free()
                plainPort = try LoopbackPort.free()
                let d = directory
                try FileManager.default.createDirectory(atPath: d + "/home", withIntermediateDirectories: true)
                for folder in ["cur", "new", "tmp"] {
                    try FileManager.default.createDirectory(atPath: d + "/Maildir/" + folder, withIntermediateDirectories: true)
                }
                try "jane:{PLAIN}s3cret:65534:65534::\(d)/home\n".write(toFile: d + "/passwd", atomically: true, encoding: .utf8)
                let config = """
                    protocols = imap
                    listen = 127.0.0.1
                    base_dir = \(d)/run
                    state_dir = \(d)/state
                    log_path = \(d)/dovecot.log
                    ssl = required
                    ssl_cert = <\(d)/server.pem
                    ssl_key = <\(d)/server.key
                    auth_mechanisms = plain
                    passdb {
                      driver = passwd-file
                      args = scheme=PLAIN username_format=%u \(d)/passwd
                    }
                    userdb {
                      driver = passwd-file
                      args = username_format=%u \(d)/passwd
                    }
                    mail_location = maildir:\(d)/Maildir
                    service imap-login {
                      chroot =
                      inet_listener imap {
                        port = \(plainPort)
                      }
                      inet_listener imaps {
                        port = \(port)
                        ssl = yes
                      }
                    }
                    service anvil {
                      chroot =
                    }
                    \(extra)

                    """
                try config.write(toFile: d + "/dovecot.conf", atomically: true, encoding: .utf8)
            }

            func chownMail() {
                _ = try? ChildProcess.capture(["/bin/chown", "-R", "nobody:nogroup", directory + "/Maildir", directory + "/home"])
            }

            /// Starts Dovecot as a daemon through `ChildProcess` (an empty signal mask: one
            /// started by Foundation's `Process` inherits the test thread's blocked SIGCHLD and
            /// SIGTERM and can neither reap its children nor stop).
            func start() throws {
                chownMail()
                let log = directory + "/start.log"
                let status = try ChildProcess.run([IMAPWatchTests.dovecot, "-c", directory + "/dovecot.conf"], stdout: log, stderr: log)
                try #require(status == 0, "dovecot: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
                started = true
                // Ready when it accepts a connection on the port.
                for _ in 0..<100 {
                    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
                    var address = LoopbackPort.address(port)
                    let connected = withUnsafePointer(to: &address) {
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
                    }
                    close(fd)
                    if connected { return }
                    usleep(100_000)
                }
                throw CocoaError(.fileReadUnknown)
            }

            /// Stops the master and every process it started: `dovecot stop` leaves the login and
            /// imap processes of open connections running, which a server that went away must not.
            func stop() {
                guard started else { return }
                started = false
                let master = (try? String(contentsOfFile: directory + "/run/master.pid", encoding: .utf8))
                    .flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
                let children = master.map(Self.children) ?? []
                let log = directory + "/stop.log"
                _ = try? ChildProcess.run([IMAPWatchTests.dovecot, "-c", directory + "/dovecot.conf", "stop"], stdout: log, stderr: log)
                // The master removes its pid file last; wait for it so a restart finds none.
                for _ in 0..<100 where FileManager.default.fileExists(atPath: directory + "/run/master.pid") { usleep(100_000) }
                for child in children { kill(child, SIGKILL) }
            }

            /// The processes whose parent is `parent` (the fourth field of /proc/PID/stat, after
            /// the parenthesized name).
            static func children(_ parent: pid_t) -> [pid_t] {
                let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
                return entries.compactMap { name -> pid_t? in
                    guard let pid = pid_t(name), let stat = try? String(contentsOfFile: "/proc/\(name)/stat", encoding: .utf8),
                        let close = stat.lastIndex(of: ")")
                    else { return nil }
                    let fields = stat[stat.index(after: close)...].split(separator: " ")
                    return fields.count > 1 && pid_t(fields[1]) == parent ? pid : nil
                }
            }
        }

        /// A CA and a certificate for 127.0.0.1 signed by it, and a second CA that signed nothing.
        static func makeCertificates(in d: String) throws {
            func run(_ arguments: [String]) throws {
                let r = try ChildProcess.capture([Self.openssl] + arguments)
                try #require(r.status == 0, "openssl \(arguments.first ?? ""): \(String(decoding: r.stderr, as: UTF8.self))")
            }
            for name in ["ca", "other-ca"] {
                try run([
                    "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "\(d)/\(name).key", "-out", "\(d)/\(name).pem", "-days", "2",
                    "-subj", "/CN=reservoir test \(name)",
                ])
            }
            try run(["req", "-newkey", "rsa:2048", "-nodes", "-keyout", "\(d)/server.key", "-out", "\(d)/server.csr", "-subj", "/CN=127.0.0.1"])
            try "subjectAltName=IP:127.0.0.1\n".write(toFile: d + "/ext", atomically: true, encoding: .utf8)
            try run([
                "x509", "-req", "-in", "\(d)/server.csr", "-CA", "\(d)/ca.pem", "-CAkey", "\(d)/ca.key", "-CAcreateserial", "-out",
                "\(d)/server.pem", "-days", "2", "-extfile", "\(d)/ext",
            ])
        }

        /// A folder for a Dovecot of the test's own below `tmp` (both readable by the mail
        /// user), holding the test CA and the server's certificate.
        static func dovecotDirectory(_ tmp: TemporaryDirectory) throws -> String {
            chmod(tmp.path, 0o755)
            let d = tmp.path + "/dovecot"
            try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
            chmod(d, 0o755)
            try makeCertificates(in: d)
            return d
        }

        /// A netrc file (mode 0600) with jane's login at 127.0.0.1.
        static func janeNetrc(_ tmp: TemporaryDirectory) throws -> String {
            let netrc = tmp.path + "/netrc"
            try "machine 127.0.0.1 login jane password s3cret\n".write(toFile: netrc, atomically: true, encoding: .utf8)
            chmod(netrc, 0o600)
            return netrc
        }

        /// python3's imaplib as another client: `flags` (every message's UID and flags, read
        /// with EXAMINE), `uidvalidity`, or `append FILE [MAILBOX]` (INBOX unless named).
        static func client(_ server: Server, _ arguments: [String]) throws -> [String] {
            let script = """
                import imaplib, ssl, sys
                ctx = ssl.create_default_context(cafile=sys.argv[2])
                m = imaplib.IMAP4_SSL('127.0.0.1', int(sys.argv[1]), ssl_context=ctx)
                m.login('jane', 's3cret')
                if sys.argv[3] == 'flags':
                    m.select('INBOX', readonly=True)
                    typ, data = m.uid('FETCH', '1:*', '(FLAGS)')
                    print('\\n'.join(sorted(x.decode() for x in data if x)))
                elif sys.argv[3] == 'uidvalidity':
                    m.select('INBOX', readonly=True)
                    print(m.response('UIDVALIDITY')[1][0].decode())
                elif sys.argv[3] == 'append':
                    box = sys.argv[5] if len(sys.argv) > 5 else 'INBOX'
                    typ, data = m.append(box, None, None, open(sys.argv[4], 'rb').read())
                    assert typ == 'OK', data
                m.logout()
                """
            let r = try ChildProcess.capture([python, "-c", script, String(server.port), server.directory + "/ca.pem"] + arguments)
            try #require(r.status == 0, "imaplib \(arguments): \(String(decoding: r.stderr, as: UTF8.self))")
            return String(decoding: r.stdout, as: UTF8.self).split(separator: "\n").map(String.init)
        }

        /// The summary line of a `--json` run, and the number of message lines before it.
        static func summary(_ r: ReservoirBinary.Result) throws -> (messages: Int, lines: Int, events: [String: Int]) {
            let lines = String(decoding: r.stdout, as: UTF8.self).split(separator: "\n")
            let last = try #require(lines.last.flatMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] })
            let summary = try #require(last["summary"] as? [String: Any])
            return (summary["messages"] as? Int ?? -1, lines.count - 1, summary["events"] as? [String: Int] ?? [:])
        }

        @Test(
            "watch reads every message once, as scan records them, sets no flag, reads what is appended, and rescans a new UIDVALIDITY without a change",
            .enabled(if: available, "needs root, dovecot-imapd, python3 and openssl"))
        func watchesDovecot() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let d = try Self.dovecotDirectory(tmp)
            let server = try Server(directory: d)
            // Every sample but one, under its own name (its Maildir flags with it); the one left
            // out is appended later.
            let appended = try ReservoirBinary.sample(10)
            let samples = try PostfixTests.allSamples()
            for path in samples where path != appended {
                let folder = URL(fileURLWithPath: path).deletingLastPathComponent().lastPathComponent
                try FileManager.default.copyItem(atPath: path, toPath: "\(d)/Maildir/\(folder)/\(URL(fileURLWithPath: path).lastPathComponent)")
            }
            try server.start()
            defer { server.stop() }
            let netrc = try Self.janeNetrc(tmp)
            let url = "imaps://jane@127.0.0.1:\(server.port)/INBOX"
            let common = ["--keys", ReservoirBinary.keys, "--allowed-domains", ReservoirBinary.allowed, "--now", ReservoirBinary.now]
            let watchStore = "sqlite:\(tmp.path)/watch.sqlite3"
            func watch(_ extra: [String] = [], netrcFile: String = netrc, ca: String = d + "/ca.pem") throws -> ReservoirBinary.Result {
                try ReservoirBinary.run(
                    ["watch", "--once", url, "--json", "--store", watchStore, "--netrc", netrcFile, "--ca-file", ca, "--no-calendar"] + common
                        + extra)
            }
            func scan(_ paths: [String], store: String) throws {
                let r = try ReservoirBinary.run(["scan"] + paths + ["--store", store, "--no-calendar"] + common)
                try #require(r.status == 0, "scan: \(r.stderr)")
            }
            let flagsBefore = try Self.client(server, ["flags"])
            #expect(flagsBefore.count == samples.count - 1)
            #expect(flagsBefore.contains { $0.contains("\\Seen") }, "some samples are read already")
            #expect(flagsBefore.contains { !$0.contains("\\Seen") }, "and some are not")

            // The first run reads every message, and the store holds what a scan records.
            let first = try watch()
            #expect(first.status == 0, "\(first.stderr)")
            #expect(try Self.summary(first).messages == samples.count - 1)
            #expect(try Self.summary(first).lines == samples.count - 1)
            try scan(samples.filter { $0 != appended }, store: "sqlite:\(tmp.path)/scan-before.sqlite3")
            let expectedBefore = try PostfixTests.stored("sqlite:\(tmp.path)/scan-before.sqlite3")
            #expect(!expectedBefore.isEmpty)
            #expect(try PostfixTests.stored(watchStore) == expectedBefore)

            // A second run reads nothing.
            let second = try watch()
            #expect(second.status == 0, "\(second.stderr)")
            #expect(try Self.summary(second).messages == 0)
            #expect(try Self.client(server, ["flags"]) == flagsBefore, "no flag set or cleared")

            // A message appended by another client is read by the next run, and only it.
            _ = try Self.client(server, ["append", appended])
            let flagsAppended = try Self.client(server, ["flags"])
            #expect(flagsAppended.count == samples.count)
            // This run names no mailbox: it reads the configuration file's `watch`.
            let config = tmp.path + "/config.toml"
            try "watch = [\"\(url)\"]\n".write(toFile: config, atomically: true, encoding: .utf8)
            let third = try ReservoirBinary.run(
                ["watch", "--once", "--json", "--store", watchStore, "--netrc", netrc, "--ca-file", d + "/ca.pem", "--no-calendar"] + common,
                environment: ["RESERVOIR_CONFIG": config])
            #expect(third.status == 0, "\(third.stderr)")
            #expect(try Self.summary(third).messages == 1)
            try scan(samples, store: "sqlite:\(tmp.path)/scan-all.sqlite3")
            let expectedAll = try PostfixTests.stored("sqlite:\(tmp.path)/scan-all.sqlite3")
            #expect(expectedAll != expectedBefore, "the appended sample holds a reservation of its own")
            #expect(try PostfixTests.stored(watchStore) == expectedAll)
            #expect(try Self.client(server, ["flags"]) == flagsAppended, "the appended message is still unread")

            // A new UIDVALIDITY (the server's index and UID list gone): everything read again,
            // nothing changed.
            let validity = try Self.client(server, ["uidvalidity"])
            server.stop()
            for name in try FileManager.default.contentsOfDirectory(atPath: d + "/Maildir") where name.hasPrefix("dovecot") {
                try FileManager.default.removeItem(atPath: d + "/Maildir/" + name)
            }
            sleep(1)  // UIDVALIDITY is made from the clock
            try server.start()
            #expect(try Self.client(server, ["uidvalidity"]) != validity)
            let flagsRestarted = try Self.client(server, ["flags"])
            let rescan = try watch()
            #expect(rescan.status == 0, "\(rescan.stderr)")
            #expect(try Self.summary(rescan).messages == samples.count)
            let rescanEvents = try Self.summary(rescan).events
            #expect(rescanEvents.filter { !["unchanged", "older-than-stored"].contains($0.key) }.isEmpty, "\(rescanEvents)")
            #expect(rescanEvents["unchanged"] ?? 0 > 0, "read again: \(rescanEvents)")
            #expect(try PostfixTests.stored(watchStore) == expectedAll)
            #expect(try Self.client(server, ["flags"]) == flagsRestarted)

            // A site: each account's own `watch`, read into that account, its place kept per
            // account. Both read the INBOX, whose mail is addressed to Jane: her account holds
            // what a scan for her records, Joe's holds nothing (recipient binding), and each has
            // read every message once.
            let site = tmp.path + "/site.toml"
            try """
            [accounts."jane@home.example"]
            watch = ["\(url)"]

            [accounts."joe@home.example"]
            watch = ["\(url)"]

            """.write(toFile: site, atomically: true, encoding: .utf8)
            let siteStore = "sqlite:\(tmp.path)/site.sqlite3"
            func siteWatch(_ extra: [String] = []) throws -> [Int] {
                let r = try ReservoirBinary.run(
                    ["watch", "--once", "--json", "--store", siteStore, "--netrc", netrc, "--ca-file", d + "/ca.pem", "--no-calendar"] + common
                        + extra, environment: ["RESERVOIR_CONFIG": site])
                #expect(r.status == 0, "\(r.stderr)")
                return String(decoding: r.stdout, as: UTF8.self).split(separator: "\n").compactMap {
                    ((try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any])?["summary"] as? [String: Any]
                }.map { $0["messages"] as? Int ?? -1 }
            }
            #expect(try siteWatch() == [samples.count, samples.count], "one summary per account, each read every message")
            let reference = "sqlite:\(tmp.path)/scan-jane.sqlite3"
            let janeScan = try ReservoirBinary.run(
                ["scan"] + samples + ["--store", reference, "--no-calendar", "--account", "jane@home.example"] + common,
                environment: ["RESERVOIR_CONFIG": site])
            try #require(janeScan.status == 0, "\(janeScan.stderr)")
            let janeExpected = try PostfixTests.stored(reference, account: "jane@home.example")
            #expect(!janeExpected.isEmpty)
            #expect(try PostfixTests.stored(siteStore, account: "jane@home.example") == janeExpected)
            #expect(try PostfixTests.stored(siteStore, account: "joe@home.example").isEmpty)
            #expect(try siteWatch() == [0, 0], "each account's place is kept")
            #expect(try siteWatch(["--account", "joe@home.example"]) == [0], "a named account reads its own list only")

            // Failures, each with its status: a wrong password 77, a certificate from another CA
            // 69, a netrc file others may read 73.
            let wrong = tmp.path + "/wrong-netrc"
            try "machine 127.0.0.1 login jane password wrong\n".write(toFile: wrong, atomically: true, encoding: .utf8)
            chmod(wrong, 0o600)
            let refused = try watch(netrcFile: wrong)
            #expect(refused.status == 77, "\(refused.stderr)")
            #expect(refused.stderr.contains("imap-login-refused"))
            // Nothing was read: no summary claims a round that did not happen.
            #expect(refused.stdout.isEmpty, "\(refused.text)")
            // A running watch says a refused login at error, and tries it again with the back-off.
            let refusedErrors = tmp.path + "/refused-watch.err"
            let refusing = try ChildProcess.spawn(
                [
                    "/usr/bin/env", "NO_COLOR=1", ReservoirBinary.executable.path, "watch", url, "--store", "sqlite:\(tmp.path)/refused.sqlite3",
                    "--netrc", wrong, "--ca-file", d + "/ca.pem", "--no-calendar",
                ] + common, stdout: "/dev/null", stderr: refusedErrors)
            func refusedLog() -> String { (try? String(contentsOfFile: refusedErrors, encoding: .utf8)) ?? "" }
            let saidRefused = Self.waitFor(30) { refusedLog().contains("authentication failed") }
            kill(refusing, SIGTERM)
            _ = ChildProcess.wait(refusing)
            #expect(saidRefused != nil, "\(refusedLog())")
            #expect(refusedLog().contains("reservoir watch: error: \(url): authentication failed: imap-login-refused"), "\(refusedLog())")
            #expect(refusedLog().contains("; next try in 1 s\n"), "\(refusedLog())")
            // A site's watch names whose mailbox failed.
            let siteRefused = try ReservoirBinary.run(
                ["watch", "--once", "--json", "--store", siteStore, "--netrc", wrong, "--ca-file", d + "/ca.pem", "--no-calendar"] + common,
                environment: ["RESERVOIR_CONFIG": site])
            #expect(siteRefused.status == 77 && siteRefused.stderr.contains("watch: jane@home.example: imaps://"), "\(siteRefused.stderr)")
            #expect(siteRefused.stdout.isEmpty, "\(siteRefused.text)")
            let untrusted = try watch(ca: d + "/other-ca.pem")
            #expect(untrusted.status == 69, "\(untrusted.stderr)")
            #expect(untrusted.stderr.contains("imap-certificate-refused"))
            chmod(wrong, 0o644)
            let open = try watch(netrcFile: wrong)
            #expect(open.status == 73, "\(open.stderr)")
            #expect(open.stderr.contains("imap-netrc-unusable"))
            #expect(try PostfixTests.stored(watchStore) == expectedAll, "failures change nothing")
        }

        /// The message lines and the summary lines a `watch --json` has written to `path` so far.
        static func watchOutput(_ path: String) -> (messages: Int, summaries: Int) {
            let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            var messages = 0
            var summaries = 0
            for line in text.split(separator: "\n") {
                guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { continue }
                if object["summary"] != nil { summaries += 1 } else { messages += 1 }
            }
            return (messages, summaries)
        }

        /// Waits up to `seconds` for `condition`; the seconds it took, nil when it never held.
        static func waitFor(_ seconds: Double, _ condition: () throws -> Bool) rethrows -> Double? {
            let started = Date()
            while Date().timeIntervalSince(started) < seconds {
                if try condition() { return Date().timeIntervalSince(started) }
                usleep(50_000)
            }
            return nil
        }

        @Test(
            "a running watch idles on two mailboxes: an appended message is stored within 5 seconds, a Dovecot restart loses nothing and reads nothing twice, SIGTERM ends it at once",
            .enabled(if: available, "needs root, dovecot-imapd, python3 and openssl"))
        func idlesThroughRestart() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let d = try Self.dovecotDirectory(tmp)
            let server = try Server(directory: d)
            let first = try ReservoirBinary.sample(10)
            let second = try ReservoirBinary.sample(11)
            let samples = try PostfixTests.allSamples()
            for path in samples where path != first && path != second {
                let folder = URL(fileURLWithPath: path).deletingLastPathComponent().lastPathComponent
                try FileManager.default.copyItem(atPath: path, toPath: "\(d)/Maildir/\(folder)/\(URL(fileURLWithPath: path).lastPathComponent)")
            }
            // A second mailbox, empty at first (Maildir++: `.Travel`).
            for folder in ["cur", "new", "tmp"] {
                try FileManager.default.createDirectory(atPath: d + "/Maildir/.Travel/" + folder, withIntermediateDirectories: true)
            }
            try server.start()
            defer { server.stop() }
            let netrc = try Self.janeNetrc(tmp)
            let common = ["--keys", ReservoirBinary.keys, "--allowed-domains", ReservoirBinary.allowed, "--now", ReservoirBinary.now]
            let watchStore = "sqlite:\(tmp.path)/watch.sqlite3"
            let flagsBefore = try Self.client(server, ["flags"])
            func scan(_ paths: [String]) throws -> [String] {
                let store = "sqlite:\(tmp.path)/scan-\(paths.count).sqlite3"
                let r = try ReservoirBinary.run(["scan"] + paths + ["--store", store, "--no-calendar"] + common)
                try #require(r.status == 0, "scan: \(r.stderr)")
                return try PostfixTests.stored(store)
            }

            // --interval 3600: only IDLE can bring the appended message within seconds.
            let metrics = try LoopbackPort.free()
            let out = tmp.path + "/watch.out"
            let err = tmp.path + "/watch.err"
            let pid = try ChildProcess.spawn(
                [
                    "/usr/bin/env", "NO_COLOR=1", "XDG_STATE_HOME=\(tmp.path)/state", ReservoirBinary.executable.path, "watch",
                    "imaps://jane@127.0.0.1:\(server.port)/INBOX", "imaps://jane@127.0.0.1:\(server.port)/Travel", "--json", "--interval", "3600",
                    "--store", watchStore, "--netrc", netrc,
                    "--ca-file", d + "/ca.pem", "--no-calendar", "--metrics", String(metrics),
                ] + common, stdout: out, stderr: err)
            var running = true
            defer {
                if running {
                    kill(pid, SIGKILL)
                    _ = ChildProcess.wait(pid)
                }
            }
            func log() -> String { (try? String(contentsOfFile: err, encoding: .utf8)) ?? "" }
            let initial = samples.count - 2
            try #require(Self.waitFor(120) { Self.watchOutput(out).summaries >= 1 } != nil, "the first read: \(log())")
            #expect(Self.watchOutput(out).messages == initial)
            usleep(500_000)  // into IDLE
            // Both mailboxes in IDLE, as the metrics count them.
            let scrape = MilterTelemetryTests.get(metrics, "/metrics").body
            #expect(scrape.contains("reservoir_imap_connections{state=\"idle\"} 2"), "\(scrape)")
            #expect(scrape.contains("reservoir_imap_connections{state=\"reconnecting\"} 0"), "\(scrape)")
            #expect(MilterTelemetryTests.get(metrics, "/healthz").status == 200)

            _ = try Self.client(server, ["append", first, "Travel"])
            let took = Self.waitFor(5) { Self.watchOutput(out).messages == initial + 1 }
            #expect(took != nil, "the appended message within 5 seconds: \(log())")
            #expect(try PostfixTests.stored(watchStore) == scan(samples.filter { $0 != second }))

            // The server goes away and comes back; a message appended then is read after the
            // reconnection, and the ones read before are not read again.
            server.stop()
            sleep(2)
            try server.start()
            _ = try Self.client(server, ["append", second])
            #expect(Self.waitFor(40) { Self.watchOutput(out).messages >= initial + 2 } != nil, "after the restart: \(log())")
            #expect(log().contains("imap-unreachable"), "the broken connection is reported: \(log())")
            // Reconnecting waits 1 s, then 2, 4…: a few failed tries per mailbox, never a busy loop.
            let failures = log().split(separator: "\n").filter { $0.contains("imap-") }.count
            #expect((2...10).contains(failures), "\(failures) failures: \(log())")
            // Each mailbox's connection as its log tells it: connected, in IDLE, reconnecting with
            // the reason and the back-off.
            let mailbox = "imaps://jane@127.0.0.1:\(server.port)/INBOX"
            #expect(log().contains("reservoir watch: \(mailbox): connected\n"), "\(log())")
            #expect(log().contains("reservoir watch: \(mailbox): idle (IDLE, RFC 2177)\n"), "\(log())")
            #expect(log().contains("reservoir watch: warning: \(mailbox): reconnecting: imap-unreachable"), "\(log())")
            #expect(log().contains("; next try in 1 s\n"), "\(log())")

            let stopping = Date()
            kill(pid, SIGTERM)
            let status = ChildProcess.wait(pid)
            running = false
            #expect(status == 0, "\(log())")
            #expect(Date().timeIntervalSince(stopping) < 5, "SIGTERM ends an IDLE at once")
            #expect(Self.watchOutput(out).messages == samples.count, "every message read once")
            #expect(try PostfixTests.stored(watchStore) == scan(samples))
            let flagsAfter = try Self.client(server, ["flags"])
            #expect(flagsAfter.count == samples.count - 1, "one appended to INBOX, one to Travel")
            #expect(Set(flagsBefore).isSubset(of: Set(flagsAfter)), "no flag set or cleared")
            #expect(flagsAfter.filter { $0.contains("\\Seen") }.count == flagsBefore.filter { $0.contains("\\Seen") }.count)
        }

        /// A booking of `number` at EPIC Steak in 2031, signed now by `reservoir sign` with the
        /// sample key, its signature expiring `lifetime` seconds from now.
        static func freshlySigned(_ number: String, lifetime: Int64, in directory: String) throws -> String {
            let unsigned = directory + "/\(number).unsigned.eml"
            let text = """
                From: EPIC Steak <reservations@epicsteak.example>\r
                To: Jane Appleseed <jane@home.example>\r
                Subject: Your table \(number)\r
                Date: \(Self.rfc5322(Date()))\r
                Message-ID: <\(number)@epicsteak.example>\r
                MIME-Version: 1.0\r
                Content-Type: text/html; charset=utf-8\r
                \r
                <html><body><script type="application/ld+json">{"@context":"https://schema.org","@type":"FoodEstablishmentReservation",\r
                "reservationNumber":"\(number)","reservationStatus":"https://schema.org/ReservationConfirmed",\r
                "startTime":"2031-05-12T19:30:00-07:00","reservationFor":{"@type":"FoodEstablishment","name":"EPIC Steak"}}</script></body></html>\r

                """
            try text.write(toFile: unsigned, atomically: true, encoding: .utf8)
            let key = ReservoirBinary.packageRoot.appendingPathComponent("scripts/samples/sample-dkim-key.pem").path
            let now = Int64(Date().timeIntervalSince1970)
            let r = try ReservoirBinary.run(
                [
                    "sign", "--key", key, "--domain", "epicsteak.example", "--selector", "s2026", "--timestamp", String(now),
                    "--expiration", String(now + lifetime),
                ], stdin: try Data(contentsOf: URL(fileURLWithPath: unsigned)))
            try #require(r.status == 0, "sign: \(r.stderr)")
            let signed = directory + "/\(number).eml"
            try r.stdout.write(to: URL(fileURLWithPath: signed))
            return signed
        }

        static func rfc5322(_ date: Date) -> String {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss Z"
            return formatter.string(from: date)
        }

        @Test(
            "a watch reads the clock per message: mail whose signature expired after the watch started is refused when read, a valid one beside it stored",
            .enabled(if: available, "needs root, dovecot-imapd, python3 and openssl"))
        func clockMoves() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let d = try Self.dovecotDirectory(tmp)
            let server = try Server(directory: d)
            try server.start()
            defer { server.stop() }
            let netrc = try Self.janeNetrc(tmp)
            // Signed before the watch starts: one expiring 4 s from now, one in an hour.
            let expiring = try Self.freshlySigned("EXPIRING", lifetime: 4, in: tmp.path)
            let lasting = try Self.freshlySigned("LASTING", lifetime: 3600, in: tmp.path)
            let signedAt = Date()
            let store = "sqlite:\(tmp.path)/watch.sqlite3"
            let out = tmp.path + "/watch.out"
            let err = tmp.path + "/watch.err"
            // No --now: the real clock, as a watch that runs for days reads it.
            let pid = try ChildProcess.spawn(
                [
                    "/usr/bin/env", "NO_COLOR=1", "XDG_STATE_HOME=\(tmp.path)/state", ReservoirBinary.executable.path, "watch",
                    "imaps://jane@127.0.0.1:\(server.port)/INBOX", "--json", "--interval", "3600", "--store", store, "--netrc", netrc,
                    "--ca-file", d + "/ca.pem", "--no-calendar", "--keys", ReservoirBinary.keys, "--allowed-domains", ReservoirBinary.allowed,
                ], stdout: out, stderr: err)
            defer {
                kill(pid, SIGKILL)
                _ = ChildProcess.wait(pid)
            }
            func log() -> String { (try? String(contentsOfFile: err, encoding: .utf8)) ?? "" }
            try #require(Self.waitFor(60) { Self.watchOutput(out).summaries >= 1 } != nil, "the first read: \(log())")
            // Past the first signature's x=, the watch still running since before it.
            let left = 6 - Date().timeIntervalSince(signedAt)
            if left > 0 { usleep(useconds_t(left * 1_000_000)) }
            _ = try Self.client(server, ["append", expiring])
            _ = try Self.client(server, ["append", lasting])
            try #require(Self.waitFor(20) { Self.watchOutput(out).messages >= 2 } != nil, "both read: \(log())")
            let lines = ((try? String(contentsOfFile: out, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            let trusted = lines.filter { $0["summary"] == nil }.map { line -> (String, Bool) in
                let subject = line["subject"] as? String ?? ""
                return (subject, (line["trust"] as? [String: Any])?["trusted"] as? Bool ?? false)
            }
            #expect(trusted.first { $0.0.contains("EXPIRING") }?.1 == false, "\(lines)")
            #expect(trusted.first { $0.0.contains("LASTING") }?.1 == true, "\(lines)")
            #expect(try PostfixTests.stored(store).contains { $0.contains("LASTING") }, "the valid one is stored")
            #expect(!(try PostfixTests.stored(store).contains { $0.contains("EXPIRING") }), "the expired one is not")
        }

        @Test(
            "a running watch of a server that does not offer IDLE reads again every --interval seconds",
            .enabled(if: available, "needs root, dovecot-imapd, python3 and openssl"))
        func pollsWithoutIdle() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let d = try Self.dovecotDirectory(tmp)
            // The capabilities after login, without IDLE.
            let server = try Server(directory: d, extra: "imap_capability = IMAP4rev1 SASL-IR LITERAL+ UIDPLUS")
            try server.start()
            defer { server.stop() }
            let netrc = try Self.janeNetrc(tmp)
            let out = tmp.path + "/watch.out"
            let err = tmp.path + "/watch.err"
            let pid = try ChildProcess.spawn(
                [
                    "/usr/bin/env", "NO_COLOR=1", "XDG_STATE_HOME=\(tmp.path)/state", ReservoirBinary.executable.path, "watch",
                    "imaps://jane@127.0.0.1:\(server.port)/INBOX", "--json", "--interval", "2", "--store", "sqlite:\(tmp.path)/s.sqlite3",
                    "--netrc", netrc, "--ca-file", d + "/ca.pem", "--no-calendar", "--keys", ReservoirBinary.keys, "--allowed-domains",
                    ReservoirBinary.allowed, "--now", ReservoirBinary.now,
                ], stdout: out, stderr: err)
            defer {
                kill(pid, SIGKILL)
                _ = ChildProcess.wait(pid)
            }
            func log() -> String { (try? String(contentsOfFile: err, encoding: .utf8)) ?? "" }
            try #require(Self.waitFor(60) { Self.watchOutput(out).summaries >= 1 } != nil, "the first read: \(log())")
            _ = try Self.client(server, ["append", try ReservoirBinary.sample(10)])
            #expect(Self.waitFor(6) { Self.watchOutput(out).messages == 1 } != nil, "read by the next poll: \(log())")
            // A summary per poll: more than one after a few intervals, at most one per interval.
            sleep(3)
            let summaries = Self.watchOutput(out).summaries
            #expect((3...8).contains(summaries), "\(summaries) summaries")
            #expect(!log().contains("imap-"), "\(log())")
        }

        /// A TLS server that answers `IDLE` with `answer` and writes a line per connection it
        /// gets (`connection`) and per command (`command NAME`) to the file its third argument
        /// names; `well` idles as RFC 2177 says, until `DONE`.
        static let idleServer = #"""
            import socket, ssl, sys
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(sys.argv[1], sys.argv[2])
            s = socket.socket()
            s.bind(('127.0.0.1', 0))
            s.listen(5)
            print(s.getsockname()[1], flush=True)
            while True:
                c, _ = s.accept()
                with open(sys.argv[3], 'a') as count:
                    count.write('connection\n')
                try:
                    t = ctx.wrap_socket(c, server_side=True)
                except Exception:
                    continue
                t.sendall(b'* OK [CAPABILITY IMAP4rev1 SASL-IR AUTH=PLAIN IDLE] ready\r\n')
                f = t.makefile('rb')
                idling = b'*'
                while True:
                    line = f.readline()
                    if not line:
                        break
                    tag, _, rest = line.decode().strip().partition(' ')
                    command = rest.split(' ')[0].upper()
                    with open(sys.argv[3], 'a') as count:
                        count.write('command ' + (tag.upper() if tag.upper() == 'DONE' else command) + '\n')
                    if tag.upper() == 'DONE':
                        t.sendall(idling + b' OK IDLE done\r\n')
                    elif command == 'CAPABILITY':
                        t.sendall(b'* CAPABILITY IMAP4rev1 SASL-IR AUTH=PLAIN IDLE\r\n' + tag.encode() + b' OK done\r\n')
                    elif command == 'EXAMINE':
                        t.sendall(b'* 0 EXISTS\r\n* OK [UIDVALIDITY 7] ok\r\n' + tag.encode() + b' OK [READ-ONLY] done\r\n')
                    elif command == 'IDLE' and sys.argv[4] == 'well':
                        idling = tag.encode()
                        t.sendall(b'+ idling\r\n')
                    elif command == 'IDLE':
                        t.sendall({'line': b'+ idling\r\n' + b'* OK ' * 20000, 'tagged': b'+ idling\r\n' + tag.encode() + b' OK done\r\n',
                                   'refused': tag.encode() + b' BAD no\r\n'}[sys.argv[4]])
                    else:
                        t.sendall(tag.encode() + b' OK done\r\n')
                t.close()
            """#

        @Test(
            "a server that breaks IDLE (an endless line, a tagged answer while idling, IDLE refused) ends the connection with imap-protocol-violation, and the watch reconnects after 1, 2, 4 seconds, never at once",
            .enabled(if: Requirement.met(FileManager.default.isExecutableFile(atPath: python)), "needs python3"),
            arguments: ["line", "tagged", "refused"])
        func hostileIdle(_ answer: String) throws {
            // In 5.5 seconds: connections at 0, 1, 3 seconds (then 7): three, not hundreds.
            let run = try Self.watchIdleServer(answer, for: 5_500_000, ["--imap-timeout", "10"])
            let count = run.record.filter { $0 == "connection" }.count
            #expect(count == 3, "\(count) connections: \(run.log)")
            #expect(run.log.contains("imap-protocol-violation"), "\(run.log)")
        }

        @Test(
            "--idle 5: the IDLE is ended with DONE and issued again every 5 seconds on the one connection (RFC 2177 §3), never more often",
            .enabled(if: Requirement.met(FileManager.default.isExecutableFile(atPath: python)), "needs python3"))
        func idleReissued() throws {
            // IDLE at about 0.5, 5.5 and 10.5 seconds; 13 seconds in, three and two DONEs.
            let run = try Self.watchIdleServer("well", for: 13_000_000, ["--idle", "5"])
            let lines = run.record
            let idles = lines.filter { $0 == "command IDLE" }.count
            let dones = lines.filter { $0 == "command DONE" }.count
            #expect(lines.filter { $0 == "connection" }.count == 1, "one connection: \(lines) \(run.log)")
            #expect(lines.filter { $0 == "command LOGIN" || $0 == "command AUTHENTICATE" }.count == 1, "\(lines)")
            #expect((3...4).contains(idles) && dones == idles - 1, "\(idles) IDLE, \(dones) DONE: \(lines) \(run.log)")
            #expect(!run.log.contains("imap-"), "\(run.log)")

            let refused = try ReservoirBinary.run(["watch", "imaps://jane@127.0.0.1:1/INBOX", "--idle", "1800"])
            #expect(refused.status == 64 && refused.stderr.contains("--idle"), "\(refused.stderr)")
        }

        /// A running `watch` of ``idleServer`` answering IDLE with `answer`, for `microseconds`:
        /// the server's record (a line per connection and per command) and the watch's stderr.
        static func watchIdleServer(_ answer: String, for microseconds: useconds_t, _ extra: [String]) throws -> (record: [String], log: String) {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            try Self.makeCertificates(in: tmp.path)
            let netrc = try Self.janeNetrc(tmp)
            let record = tmp.path + "/record"
            let (server, port) = try Self.pythonServer(Self.idleServer, [tmp.path + "/server.pem", tmp.path + "/server.key", record, answer])
            defer {
                kill(server.processIdentifier, SIGKILL)
                server.waitUntilExit()
            }
            let err = tmp.path + "/watch.err"
            let pid = try ChildProcess.spawn(
                [
                    "/usr/bin/env", "XDG_STATE_HOME=\(tmp.path)/state", ReservoirBinary.executable.path, "watch",
                    "imaps://jane@127.0.0.1:\(port)/INBOX", "--netrc", netrc, "--ca-file", tmp.path + "/ca.pem",
                    "--store", "sqlite:\(tmp.path)/s.sqlite3", "--no-calendar",
                ] + extra, stdout: "/dev/null", stderr: err)
            usleep(microseconds)
            kill(pid, SIGKILL)
            _ = ChildProcess.wait(pid)
            let lines = ((try? String(contentsOfFile: record, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
            return (lines, (try? String(contentsOfFile: err, encoding: .utf8)) ?? "")
        }

        /// A plain IMAP server that offers no STARTTLS, would log anyone in, and writes every
        /// line it receives to the file named by its first argument.
        static let plainServer = #"""
            import socket, sys
            s = socket.socket()
            s.bind(('127.0.0.1', 0))
            s.listen(1)
            print(s.getsockname()[1], flush=True)
            c, _ = s.accept()
            c.sendall(b'* OK [CAPABILITY IMAP4rev1 SASL-IR AUTH=PLAIN AUTH=LOGIN] ready\r\n')
            f = c.makefile('rb')
            seen = open(sys.argv[1], 'ab')
            while True:
                line = f.readline()
                if not line:
                    break
                seen.write(line)
                seen.flush()
                tag, _, rest = line.decode().partition(' ')
                if rest.strip().upper() == 'CAPABILITY':
                    c.sendall(b'* CAPABILITY IMAP4rev1 SASL-IR AUTH=PLAIN AUTH=LOGIN\r\n' + tag.encode() + b' OK done\r\n')
                else:
                    c.sendall(tag.encode() + b' OK done\r\n')
            """#

        /// Starts python3 with `script` and `arguments`; the process and the port it printed.
        static func pythonServer(_ script: String, _ arguments: [String]) throws -> (Process, Int) {
            let server = Process()
            server.executableURL = URL(fileURLWithPath: Self.python)
            server.arguments = ["-c", script] + arguments
            let out = Pipe()
            server.standardOutput = out
            server.standardError = FileHandle.nullDevice
            try server.run()
            var portText = ""
            while !portText.hasSuffix("\n"), let byte = try out.fileHandleForReading.read(upToCount: 1), !byte.isEmpty {
                portText += String(decoding: byte, as: UTF8.self)
            }
            return (server, try #require(Int(portText.trimmingCharacters(in: .whitespacesAndNewlines))))
        }

        @Test(
            "imap:// reads Dovecot's plain port after STARTTLS; a server that offers no STARTTLS is refused before any login, imap-starttls-refused, exit 69",
            .enabled(if: available, "needs root, dovecot-imapd, python3 and openssl"))
        func startTLS() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let d = try Self.dovecotDirectory(tmp)
            let server = try Server(directory: d)
            let samples = Array(try PostfixTests.allSamples().prefix(3))
            for path in samples {
                let folder = URL(fileURLWithPath: path).deletingLastPathComponent().lastPathComponent
                try FileManager.default.copyItem(atPath: path, toPath: "\(d)/Maildir/\(folder)/\(URL(fileURLWithPath: path).lastPathComponent)")
            }
            try server.start()
            defer { server.stop() }
            let netrc = try Self.janeNetrc(tmp)
            func watch(_ url: String) throws -> ReservoirBinary.Result {
                try ReservoirBinary.run([
                    "watch", "--once", url, "--json", "--store", "sqlite:\(tmp.path)/s.sqlite3", "--netrc", netrc, "--ca-file", d + "/ca.pem",
                    "--imap-timeout", "10", "--no-calendar", "--keys", ReservoirBinary.keys, "--allowed-domains", ReservoirBinary.allowed,
                    "--now", ReservoirBinary.now,
                ])
            }
            let upgraded = try watch("imap://jane@127.0.0.1:\(server.plainPort)/INBOX")
            #expect(upgraded.status == 0, "\(upgraded.stderr)")
            #expect(try Self.summary(upgraded).messages == samples.count)

            let seen = tmp.path + "/seen"
            let (plain, port) = try Self.pythonServer(Self.plainServer, [seen])
            defer {
                kill(plain.processIdentifier, SIGKILL)
                plain.waitUntilExit()
            }
            let refused = try watch("imap://jane@127.0.0.1:\(port)/INBOX")
            #expect(refused.status == 69, "\(refused.stderr)")
            #expect(refused.stderr.contains("imap-starttls-refused"), "\(refused.stderr)")
            let received = ((try? String(contentsOfFile: seen, encoding: .utf8)) ?? "").uppercased()
            #expect(received.contains("CAPABILITY"), "the client spoke to it: \(received)")
            #expect(!received.contains("LOGIN") && !received.contains("AUTHENTICATE"), "no login in plain text: \(received)")
        }

        /// A TLS IMAP server offering PLAIN, XOAUTH2 and OAUTHBEARER that writes each SASL
        /// exchange (the mechanism, a tab, the decoded initial response with ^A written `^A`) or
        /// LOGIN to a file, and logs in only a response carrying `auth=Bearer TOKEN` (argv[4]).
        static let oauthServer = #"""
            import base64, socket, ssl, sys
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(sys.argv[1], sys.argv[2])
            s = socket.socket()
            s.bind(('127.0.0.1', 0))
            s.listen(5)
            print(s.getsockname()[1], flush=True)
            caps = b'IMAP4rev1 SASL-IR AUTH=PLAIN AUTH=XOAUTH2 AUTH=OAUTHBEARER'
            while True:
                c, _ = s.accept()
                try:
                    t = ctx.wrap_socket(c, server_side=True)
                except Exception:
                    continue
                t.sendall(b'* OK [CAPABILITY ' + caps + b'] ready\r\n')
                f = t.makefile('rb')
                record = open(sys.argv[3], 'a')
                while True:
                    line = f.readline()
                    if not line:
                        break
                    tag, _, rest = line.decode().strip().partition(' ')
                    words = rest.split(' ')
                    command = words[0].upper()
                    if command == 'AUTHENTICATE':
                        answer = words[2] if len(words) > 2 else None
                        if answer is None:
                            t.sendall(b'+ \r\n')
                            answer = f.readline().decode().strip()
                        decoded = base64.b64decode(answer).decode('latin-1')
                        record.write(words[1].upper() + '\t' + decoded.replace('\x01', '^A') + '\n')
                        record.flush()
                        good = 'auth=Bearer ' + sys.argv[4] + '\x01' in decoded
                        t.sendall(tag.encode() + (b' OK done\r\n' if good else b' NO [AUTHENTICATIONFAILED] no\r\n'))
                    elif command == 'LOGIN':
                        record.write('LOGIN\n')
                        record.flush()
                        t.sendall(tag.encode() + b' NO no\r\n')
                    elif command == 'CAPABILITY':
                        t.sendall(b'* CAPABILITY ' + caps + b'\r\n' + tag.encode() + b' OK done\r\n')
                    elif command == 'EXAMINE':
                        t.sendall(b'* 0 EXISTS\r\n* OK [UIDVALIDITY 7] ok\r\n' + tag.encode() + b' OK [READ-ONLY] done\r\n')
                    elif command == 'LOGOUT':
                        t.sendall(b'* BYE bye\r\n' + tag.encode() + b' OK done\r\n')
                        break
                    else:
                        t.sendall(tag.encode() + b' OK done\r\n')
                t.close()
            """#

        @Test(
            "--oauth-token-file logs in with SASL XOAUTH2 or OAUTHBEARER carrying the file's token, read again for each run, never LOGIN; a token others may read or that is not a bearer token is refused before connecting",
            .enabled(if: Requirement.met(FileManager.default.isExecutableFile(atPath: python)), "needs python3"))
        func oauthBearer() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            try Self.makeCertificates(in: tmp.path)
            let record = tmp.path + "/record"
            let (server, port) = try Self.pythonServer(
                Self.oauthServer, [tmp.path + "/server.pem", tmp.path + "/server.key", record, "ya29.tok-1_A~/+=="])
            defer {
                kill(server.processIdentifier, SIGKILL)
                server.waitUntilExit()
            }
            let token = tmp.path + "/token"
            func write(_ text: String, mode: mode_t = 0o600) throws {
                try text.write(toFile: token, atomically: true, encoding: .utf8)
                chmod(token, mode)
            }
            func watch(_ extra: [String] = []) throws -> ReservoirBinary.Result {
                try ReservoirBinary.run(
                    [
                        "watch", "--once", "imaps://jane%40example.org@127.0.0.1:\(port)/INBOX", "--oauth-token-file", token, "--ca-file",
                        tmp.path + "/ca.pem", "--imap-timeout", "10", "--store", "sqlite:\(tmp.path)/s.sqlite3", "--no-calendar",
                    ] + extra, environment: ["HOME": tmp.path])
            }
            func recorded() -> [String] {
                ((try? String(contentsOfFile: record, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
            }

            try write("ya29.tok-1_A~/+==\nrefresh-token-kept-by-the-other-tool\n")
            let xoauth2 = try watch()
            #expect(xoauth2.status == 0, "\(xoauth2.stderr)")
            #expect(recorded() == ["XOAUTH2\tuser=jane@example.org^Aauth=Bearer ya29.tok-1_A~/+==^A^A"])

            let bearer = try watch(["--oauth-mechanism", "oauthbearer"])
            #expect(bearer.status == 0, "\(bearer.stderr)")
            let line = try #require(recorded().last)
            #expect(line.hasPrefix("OAUTHBEARER\tn,a=jane@example.org,^A"), "\(line)")
            #expect(line.hasSuffix("^Aauth=Bearer ya29.tok-1_A~/+==^A^A"), "\(line)")

            // The file is read again: a token the server does not take is a refused login.
            try write("ya29.expired\r\n")
            let expired = try watch()
            #expect(expired.status == 77, "\(expired.stderr)")
            #expect(expired.stderr.contains("imap-login-refused"), "\(expired.stderr)")
            #expect(recorded().last == "XOAUTH2\tuser=jane@example.org^Aauth=Bearer ya29.expired^A^A")
            #expect(!recorded().contains("LOGIN"), "never a LOGIN")

            // Refused before any connection: a file others may read, an empty first line, a
            // ^A that would add a field to the SASL message.
            let before = recorded().count
            for (text, mode) in [("ya29.tok-1_A~/+==\n", mode_t(0o644)), ("\nya29.tok-1\n", 0o600), ("ya29\u{1}auth=Bearer x\n", 0o600)] {
                try write(text, mode: mode)
                let refused = try watch()
                #expect(refused.status == 73, "\(text.debugDescription): \(refused.stderr)")
                #expect(refused.stderr.contains("imap-oauth-token-unusable"), "\(refused.stderr)")
            }
            #expect(recorded().count == before)
        }

        /// A TLS server (python3's ssl) that logs anyone in and answers EXAMINE with `answer`.
        static let hostileServer = #"""
            import socket, ssl, sys, time
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(sys.argv[1], sys.argv[2])
            s = socket.socket()
            s.bind(('127.0.0.1', 0))
            s.listen(1)
            print(s.getsockname()[1], flush=True)
            c, _ = s.accept()
            t = ctx.wrap_socket(c, server_side=True)
            t.sendall(b'* OK [CAPABILITY IMAP4rev1 SASL-IR AUTH=PLAIN] ready\r\n')
            f = t.makefile('rb')
            while True:
                line = f.readline()
                if not line:
                    break
                tag, _, rest = line.decode().partition(' ')
                word = rest.split(' ')[0].strip().upper()
                if word == 'CAPABILITY':
                    t.sendall(b'* CAPABILITY IMAP4rev1 SASL-IR AUTH=PLAIN\r\n' + tag.encode() + b' OK done\r\n')
                elif word == 'EXAMINE':
                    t.sendall({'line': b'* OK ' * 20000, 'literal': b'* OK [UIDVALIDITY 1] {999999999}\r\n',
                               'continuation': b'+ go on\r\n'}[sys.argv[3]])
                    time.sleep(3)
                    break
                else:
                    t.sendall(tag.encode() + b' OK done\r\n')
            """#

        @Test(
            "a server that answers EXAMINE with an endless line, a huge literal or a stray continuation ends the run with imap-protocol-violation, exit 76",
            .enabled(if: Requirement.met(FileManager.default.isExecutableFile(atPath: python)), "needs python3"),
            arguments: ["line", "literal", "continuation"])
        func hostileServer(_ answer: String) throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            try Self.makeCertificates(in: tmp.path)
            let netrc = try Self.janeNetrc(tmp)
            let (server, port) = try Self.pythonServer(Self.hostileServer, [tmp.path + "/server.pem", tmp.path + "/server.key", answer])
            defer {
                kill(server.processIdentifier, SIGKILL)
                server.waitUntilExit()
            }
            let r = try ReservoirBinary.run([
                "watch", "--once", "imaps://jane@127.0.0.1:\(port)/INBOX", "--netrc", netrc, "--ca-file", tmp.path + "/ca.pem",
                "--imap-timeout", "10", "--store", "sqlite:\(tmp.path)/s.sqlite3", "--no-calendar",
            ])
            #expect(r.status == 76, "\(r.stderr)")
            #expect(r.stderr.contains("imap-protocol-violation"), "\(r.stderr)")
        }

        @Test("a server that accepts the connection and says nothing ends the run within the time-out, exit 75")
        func silentServer() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let netrc = try Self.janeNetrc(tmp)
            let silent = try LoopbackPort.silent()
            defer { close(silent.fd) }
            let started = Date()
            let r = try ReservoirBinary.run([
                "watch", "--once", "imaps://jane@127.0.0.1:\(silent.port)/INBOX", "--netrc", netrc, "--imap-timeout", "2",
                "--store", "sqlite:\(tmp.path)/s.sqlite3", "--no-calendar",
            ])
            #expect(r.status == 75, "\(r.stderr)")
            #expect(r.stderr.contains("imap-timeout") || r.stderr.contains("imap-unreachable"))
            #expect(Date().timeIntervalSince(started) < 20)
        }
    }
}
