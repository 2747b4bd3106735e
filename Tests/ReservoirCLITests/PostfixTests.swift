import Foundation
import Glibc
import PostgresTestSupport
import Testing

extension ProcessSuites {
    /// A real Postfix, started by the test in a private `config_directory` and queue, runs the
    /// recipe of docs/HOOKS.md: `recipient_bcc_maps` copies each message for a chosen user to an
    /// address naming that user, which `transport_maps` routes to a `pipe` service running
    /// `reservoir ingest --account ${mailbox}@${nexthop} -` as an unprivileged user, without
    /// HOME. Mail is submitted with `sendmail -C DIR` to three users at once, two of them chosen.
    /// Every sample's trusted reservations must reach Jane's account, whom the samples are
    /// addressed to, as `reservoir scan` of the samples records them; Joe's copies are read as
    /// his and bind to his address, which they do not name, so his account stays empty.
    @Suite("Postfix pipe runs reservoir ingest")
    struct PostfixTests {
        static let postfix = "/usr/sbin/postfix"
        static let sendmail = "/usr/sbin/sendmail"
        static let postconf = "/usr/sbin/postconf"

        static var available: Bool {
            getuid() == 0 && FileManager.default.isExecutableFile(atPath: postfix)
                && FileManager.default.isExecutableFile(atPath: "/usr/lib/postfix/sbin/pipe") && getpwnam("postfix") != nil
                && getpwnam("nobody") != nil
        }

        static func run(_ command: [String]) throws -> (status: Int32, output: String) {
            let r = try ChildProcess.capture(command)
            return (r.status, String(decoding: r.stdout + r.stderr, as: UTF8.self))
        }

        /// Every message of `Maildir-samples`, `cur/` then `new/`.
        static func allSamples() throws -> [String] {
            try ["cur", "new"].flatMap { folder in
                let dir = ReservoirBinary.samples.appendingPathComponent(folder).path
                return try FileManager.default.contentsOfDirectory(atPath: dir).sorted().map { dir + "/" + $0 }
            }
        }

        /// The stored events as keys with their item, from `events --all --json`.
        static func stored(_ store: String, account: String? = nil) throws -> [String] {
            let r = try ReservoirBinary.run(
                ["events", "--all", "--json", "--store", store, "--now", ReservoirBinary.now] + (account.map { ["--account", $0] } ?? []))
            try #require(r.status == 0, "events \(account ?? ""): \(r.stderr)")
            let list = try JSONSerialization.jsonObject(with: r.stdout) as? [[String: Any]] ?? []
            return list.map { "\($0["key"] as? String ?? "?") \($0["status"] as? String ?? "?")" }.sorted()
        }

        @Test(
            "every sample submitted to Postfix reaches its addressee's account through the pipe service, as a scan records them, and no one else's",
            .enabled(if: available, "needs root, postfix (the postfix package) and the users postfix and nobody"))
        func samplesThroughPostfix() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            // The directories nobody must reach: the store's, the spool's and the test's own.
            chmod(tmp.path, 0o755)
            let config = tmp.path + "/postfix"
            let queue = tmp.path + "/queue"
            let data = tmp.path + "/data"
            let state = tmp.path + "/state"
            for dir in [config, queue, data, state] { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) }
            guard let nobody = getpwnam("nobody")?.pointee, let postfixUser = getpwnam("postfix")?.pointee else { return }
            chown(data, postfixUser.pw_uid, postfixUser.pw_gid)
            chown(state, nobody.pw_uid, nobody.pw_gid)
            let store = "sqlite:\(state)/events.sqlite3"
            // The programs and keys where `nobody` reaches them, wherever the checkout is.
            let copies = try ReservoirBinary.copiesForOtherUsers(in: tmp.path + "/reservoir")
            // The recipe of docs/HOOKS.md, with the test's paths and the samples' keys.
            let main = """
                compatibility_level = 3.6
                queue_directory = \(queue)
                data_directory = \(data)
                mail_owner = postfix
                myhostname = mx.test
                mydomain = test
                mydestination =
                inet_interfaces = loopback-only
                inet_protocols = ipv4
                maillog_file = \(tmp.path)/maillog
                maillog_file_prefixes = \(tmp.path)
                # The originals go nowhere in this test; a real site delivers them as usual.
                default_transport = discard
                local_transport = discard
                relay_transport = discard
                recipient_bcc_maps = regexp:\(config)/reservoir_bcc
                transport_maps = inline:{ {home.example.reservoir.invalid = reservoir:home.example} }
                reservoir_destination_recipient_limit = 1

                """
            let pipe = [
                copies.executable, "ingest", "--account", "${mailbox}@${nexthop}", "--store", store, "--retry-spool", state + "/retry", "--keys",
                copies.keys,
                "--allowed-domains", copies.allowed, "--now", ReservoirBinary.now, "-",
            ].joined(separator: " ")
            // Debian's master.cf without smtpd: mail arrives through sendmail only.
            let master = """
                pickup    unix  n       -       y       60      1       pickup
                cleanup   unix  n       -       y       -       0       cleanup
                qmgr      unix  n       -       n       300     1       qmgr
                rewrite   unix  -       -       y       -       -       trivial-rewrite
                bounce    unix  -       -       y       -       0       bounce
                defer     unix  -       -       y       -       0       bounce
                trace     unix  -       -       y       -       0       bounce
                verify    unix  -       -       y       -       1       verify
                flush     unix  n       -       y       1000?   0       flush
                proxymap  unix  -       -       n       -       -       proxymap
                showq     unix  n       -       y       -       -       showq
                error     unix  -       -       y       -       -       error
                retry     unix  -       -       y       -       -       error
                discard   unix  -       -       y       -       -       discard
                anvil     unix  -       -       y       -       1       anvil
                scache    unix  -       -       y       -       1       scache
                postlog   unix-dgram n  -       n       -       1       postlogd
                reservoir unix  -       n       n       -       -       pipe
                  flags=Rq user=nobody argv=\(pipe)

                """
            try main.write(toFile: config + "/main.cf", atomically: true, encoding: .utf8)
            try "/^(jane|joe)@(home\\.example)$/ $1@$2.reservoir.invalid\n".write(
                toFile: config + "/reservoir_bcc", atomically: true, encoding: .utf8)
            try master.write(toFile: config + "/master.cf", atomically: true, encoding: .utf8)
            let check = try Self.run([Self.postfix, "-c", config, "check"])
            #expect(check.status == 0, "postfix check: \(check.output)")
            let start = try Self.run([Self.postfix, "-c", config, "start"])
            try #require(start.status == 0, "postfix start: \(start.output)")
            defer { _ = try? Self.run([Self.postfix, "-c", config, "stop"]) }

            var submitted = 0
            for sample in try Self.allSamples() {
                let r = try ChildProcess.capture(
                    [Self.sendmail, "-C", config, "-f", "sender@example.com", "-i", "jane@home.example", "joe@home.example", "sam@home.example"],
                    stdin: sample)
                #expect(r.status == 0, "sendmail \(sample): \(String(decoding: r.stderr, as: UTF8.self))")
                submitted += 2  // a copy for jane and one for joe; sam is not a chosen user
            }
            // The reference: what a scan of the same samples for the same account records.
            let reference = "sqlite:\(tmp.path)/reference.sqlite3"
            _ = try ReservoirBinary.run(
                [
                    "scan", ReservoirBinary.samples.path, "--keys", ReservoirBinary.keys, "--allowed-domains", ReservoirBinary.allowed,
                    "--now", ReservoirBinary.now, "--store", reference, "--account", "jane@home.example",
                ])
            let expected = try Self.stored(reference, account: "jane@home.example")
            #expect(expected.count >= 5, "\(expected)")
            // Deliveries are asynchronous: wait until the queue is empty and every copy went through
            // the pipe. The store is read after that, so no run as root touches it while `nobody` writes.
            let logPath = tmp.path + "/maillog"
            var piped: [Substring] = []
            var log = ""
            let deadline = Date().addingTimeInterval(90)
            while Date() < deadline {
                let queue = try Self.run(["/usr/sbin/postqueue", "-c", config, "-p"])
                log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
                piped = log.split(separator: "\n").filter { $0.contains("relay=reservoir,") && $0.contains("status=") }
                if queue.output.contains("Mail queue is empty") && piped.count >= submitted { break }
                usleep(500_000)
            }
            let warnings = log.split(separator: "\n").filter { $0.contains("warning:") || $0.contains("fatal:") }.prefix(20)
            #expect(
                piped.count == submitted,
                "\(piped.count) of \(submitted) copies went through the pipe:\n\(warnings.joined(separator: "\n"))\n\(log.suffix(4000))")
            #expect(piped.allSatisfy { $0.contains("status=sent") }, "\(piped)")
            // Jane's account holds every booking; Joe's copy of mail addressed to Jane is not his
            // booking (recipient binding follows the account), so his account stays empty.
            let jane = try? PostfixTests.stored(store, account: "jane@home.example")
            #expect(jane == expected, "jane after Postfix: \(jane ?? []); a scan: \(expected)\n\(log.suffix(4000))")
            #expect(try PostfixTests.stored(store, account: "joe@home.example").isEmpty)
            let accounts = try ReservoirBinary.run(["accounts", "--json", "--store", store])
            let listed = (try JSONSerialization.jsonObject(with: accounts.stdout) as? [[String: Any]] ?? []).map { $0["account"] as? String ?? "?" }
            #expect(listed == ["jane@home.example"], "no one else's account: \(accounts.text)")
            // Written by the pipe's user, not root.
            var info = stat()
            #expect(stat(state + "/events.sqlite3", &info) == 0 && info.st_uid == nobody.pw_uid)
        }
    }
}
