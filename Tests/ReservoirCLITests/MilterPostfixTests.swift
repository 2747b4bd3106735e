import Foundation
import Glibc
import PostgresTestSupport
import Testing

extension ProcessSuites {
    /// `reservoir milter` behind a real Postfix, started by the test in a private
    /// `config_directory` and queue: `smtpd` on a loopback port with `smtpd_milters`, virtual
    /// mailboxes delivered to Maildirs. Every sample goes over SMTP (Python's smtplib) to three
    /// recipients, two of them accounts of the site, each copy carrying forged fields. Every
    /// delivered copy must carry our fields and none of the forged ones, and each account's
    /// store exactly the bookings a scan of the samples records, the third recipient none; on
    /// SQLite and, where a PostgreSQL server can be started, on PostgreSQL.
    @Suite("Postfix with reservoir milter")
    struct MilterPostfixTests {
        /// Debian's master.cf reduced to what the milter tests use: smtpd on a loopback port, no
        /// chroot, and the virtual delivery agent.
        static func master(smtpPort: Int) -> String {
            """
            127.0.0.1:\(smtpPort) inet n - n - - smtpd
            pickup    unix  n       -       n       60      1       pickup
            cleanup   unix  n       -       n       -       0       cleanup
            qmgr      unix  n       -       n       300     1       qmgr
            rewrite   unix  -       -       n       -       -       trivial-rewrite
            bounce    unix  -       -       n       -       0       bounce
            defer     unix  -       -       n       -       0       bounce
            trace     unix  -       -       n       -       0       bounce
            verify    unix  -       -       n       -       1       verify
            flush     unix  n       -       n       1000?   0       flush
            proxymap  unix  -       -       n       -       -       proxymap
            showq     unix  n       -       n       -       -       showq
            error     unix  -       -       n       -       -       error
            retry     unix  -       -       n       -       -       error
            discard   unix  -       -       n       -       -       discard
            anvil     unix  -       -       n       -       1       anvil
            scache    unix  -       -       n       -       1       scache
            postlog   unix-dgram n  -       n       -       1       postlogd
            virtual   unix  -       n       n       -       -       virtual

            """
        }

        /// main.cf for a private Postfix in `directory` (its queue, data and log there): `smtpd`
        /// on loopback with docs/SITE.md's milter settings for `milterPort`, and `delivery`,
        /// the lines saying where mail for the test's domains goes.
        static func mainConfig(_ directory: String, milterPort: Int, delivery: String) -> String {
            """
            compatibility_level = 3.6
            queue_directory = \(directory)/queue
            data_directory = \(directory)/data
            mail_owner = postfix
            myhostname = mx.test
            mydomain = test
            mydestination =
            inet_interfaces = loopback-only
            inet_protocols = ipv4
            mynetworks = 127.0.0.0/8
            smtpd_recipient_restrictions = permit_mynetworks, reject
            maillog_file = \(directory)/maillog
            maillog_file_prefixes = \(directory)
            \(delivery)
            default_transport = discard
            relay_transport = discard
            # The recipe of docs/SITE.md.
            smtpd_milters = inet:127.0.0.1:\(milterPort)
            milter_default_action = accept
            milter_protocol = 6
            milter_content_timeout = 60s
            milter_connect_timeout = 10s

            """
        }

        static let postfix = "/usr/sbin/postfix"
        static let python = "/usr/bin/python3"

        static var available: Bool {
            getuid() == 0 && FileManager.default.isExecutableFile(atPath: postfix)
                && FileManager.default.isExecutableFile(atPath: "/usr/lib/postfix/sbin/virtual")
                && FileManager.default.isExecutableFile(atPath: python) && getpwnam("postfix") != nil && getpwnam("nobody") != nil
                && FileManager.default.isExecutableFile(
                    atPath: ReservoirBinary.executable.deletingLastPathComponent().appendingPathComponent("reservoir-milter").path)
        }

        /// Fields a sender adds to pass for ours: our authserv-id's results and a summary. The
        /// third, another server's results, is no forgery and stays (RFC 8601 §5 removes only
        /// those claiming our authserv-id).
        static let forged = [
            "Authentication-Results: mx.test; dkim=pass header.d=forged.example",
            "X-Reservation: Flight Forged 2031-01-01 10:00 +00:00 confirmed #FORGED",
            "authentication-results: mx.test ; arc=pass",
            "Authentication-Results: upstream.example; dkim=pass header.d=upstream.example",
        ]

        /// The account's events as `key status`, from `events --all --json`.
        static func stored(_ store: String, account: String?) throws -> [String] {
            let r = try ReservoirBinary.run(
                ["events", "--all", "--json", "--store", store, "--now", ReservoirBinary.now] + (account.map { ["--account", $0] } ?? []))
            #expect(r.status == 0, "events --account \(account ?? "-"): \(r.stderr)")
            let list = try JSONSerialization.jsonObject(with: r.stdout) as? [[String: Any]] ?? []
            return list.map { "\($0["key"] as? String ?? "?") \($0["status"] as? String ?? "?")" }.sorted()
        }

        static let stores = PostgresServer.isAvailable ? ["sqlite", "postgres"] : ["sqlite"]

        @Test(
            "mail for three recipients over two connections through Postfix and the milter: our fields on every copy, no forged one, each account its own bookings",
            .enabled(if: available, "needs root, postfix (with its virtual agent), python3, the users postfix and nobody, and reservoir-milter"),
            arguments: stores)
        func accountsThroughPostfix(_ kind: String) throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            chmod(tmp.path, 0o755)
            let config = tmp.path + "/postfix"
            let mail = tmp.path + "/mail"
            for dir in [config, tmp.path + "/queue", tmp.path + "/data", mail] {
                try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            }
            guard let nobody = getpwnam("nobody")?.pointee, let postfixUser = getpwnam("postfix")?.pointee else { return }
            chown(tmp.path + "/data", postfixUser.pw_uid, postfixUser.pw_gid)
            chown(mail, nobody.pw_uid, nobody.pw_gid)
            // A site's ordinary role: the milter refuses one that row-level security does not hold.
            let store =
                kind == "sqlite"
                ? "sqlite:\(tmp.path)/events.sqlite3" : try PostgresServer.shared.get().makeDatabase(ownedBy: PostgresServer.ordinaryRole).url
            let smtpPort = try LoopbackPort.free()
            let milterPort = try LoopbackPort.free()

            // The milter, through `reservoir milter`, for two of the three mailboxes.
            let milter = Process()
            let milterLog = tmp.path + "/milter.log"
            _ = FileManager.default.createFile(atPath: milterLog, contents: nil)
            milter.executableURL = ReservoirBinary.executable
            milter.arguments = [
                "milter", "--socket", "inet:\(milterPort)@127.0.0.1", "--account", "jane@home.example", "--account", "joe@HOME.example",
                "--store", store, "--keys", ReservoirBinary.keys, "--allowed-domains", ReservoirBinary.allowed, "--now", ReservoirBinary.now,
                "--authserv-id", "mx.test", "--retry-spool", tmp.path + "/retry",
            ]
            // Joe's table lists the household's domain among his addresses; Jane's own address
            // binds her mail (the samples are addressed to her).
            let siteConfig = tmp.path + "/config.toml"
            try "[accounts.\"joe@home.example\"]\naliases = [\"@home.example\"]\n".write(toFile: siteConfig, atomically: true, encoding: .utf8)
            milter.environment = ProcessInfo.processInfo.environment.merging(["RESERVOIR_CONFIG": siteConfig]) { $1 }
            milter.standardOutput = FileHandle(forWritingAtPath: milterLog)
            milter.standardError = FileHandle(forWritingAtPath: milterLog)
            try milter.run()
            defer { if milter.isRunning { kill(milter.processIdentifier, SIGKILL) } }
            var log: String { (try? String(contentsOfFile: milterLog, encoding: .utf8)) ?? "" }
            let started = Date().addingTimeInterval(30)
            while Date() < started, milter.isRunning, !log.contains("listening on") { usleep(50_000) }
            try #require(log.contains("listening on"), "the milter did not start: \(log)")

            let main = Self.mainConfig(
                tmp.path, milterPort: milterPort,
                delivery: """
                    virtual_mailbox_domains = home.example
                    virtual_mailbox_base = \(mail)
                    virtual_mailbox_maps = inline:{ {jane@home.example = jane/}, {joe@home.example = joe/}, {other@home.example = other/} }
                    virtual_uid_maps = static:\(nobody.pw_uid)
                    virtual_gid_maps = static:\(nobody.pw_gid)
                    virtual_minimum_uid = 1
                    """)
            let master = Self.master(smtpPort: smtpPort)
            try main.write(toFile: config + "/main.cf", atomically: true, encoding: .utf8)
            try master.write(toFile: config + "/master.cf", atomically: true, encoding: .utf8)
            let check = try PostfixTests.run([Self.postfix, "-c", config, "check"])
            #expect(check.status == 0, "postfix check: \(check.output)")
            let start = try PostfixTests.run([Self.postfix, "-c", config, "start"])
            try #require(start.status == 0, "postfix start: \(start.output)")
            defer { _ = try? PostfixTests.run([Self.postfix, "-c", config, "stop"]) }

            // Every sample, with the forged fields above its own, in order, over two connections at
            // once (two of the milter's threads, writing one store): one to Jane and the stranger
            // in one transaction each, one to Joe; then a 3 MB message on each.
            let samples = try PostfixTests.allSamples()
            let submit = tmp.path + "/submit.py"
            try """
            import smtplib, sys, threading
            forged = sys.argv[2].encode().replace(b"|", b"\\r\\n")
            paths = sys.argv[3:]
            failures = []
            def send(recipients):
                try:
                    with smtplib.SMTP("127.0.0.1", int(sys.argv[1]), timeout=60) as smtp:
                        for path in paths:
                            smtp.sendmail("sender@example.com", recipients, forged + b"\\r\\n" + open(path, "rb").read())
                        # Past the milter's in-memory limit (2 MB): spooled, still analysed.
                        big = b"From: big@example.com\\r\\nSubject: big\\r\\n" + forged + b"\\r\\n\\r\\n" + (b"x" * 76 + b"\\r\\n") * 40000
                        smtp.sendmail("sender@example.com", recipients, big)
                except Exception as error:
                    failures.append(repr(error))
            shares = [["jane@home.example", "other@home.example"], ["joe@home.example"]]
            threads = [threading.Thread(target=send, args=(share,)) for share in shares]
            for thread in threads: thread.start()
            for thread in threads: thread.join()
            sys.exit("\\n".join(failures) if failures else 0)

            """.write(toFile: submit, atomically: true, encoding: .utf8)
            let sent = try ChildProcess.capture([Self.python, submit, String(smtpPort), Self.forged.joined(separator: "|")] + samples)
            try #require(sent.status == 0, "smtplib: \(String(decoding: sent.stderr, as: UTF8.self))")

            let expectedCopies = (samples.count + 1) * 3
            var delivered: [String: [String]] = [:]
            var maillog = ""
            let deadline = Date().addingTimeInterval(90)
            while Date() < deadline {
                for box in ["jane", "joe", "other"] {
                    delivered[box] = ((try? FileManager.default.contentsOfDirectory(atPath: "\(mail)/\(box)/new")) ?? []).map {
                        "\(mail)/\(box)/new/\($0)"
                    }
                }
                if delivered.values.reduce(0, { $0 + $1.count }) >= expectedCopies { break }
                usleep(300_000)
            }
            maillog = (try? String(contentsOfFile: tmp.path + "/maillog", encoding: .utf8)) ?? ""
            #expect(delivered.values.reduce(0, { $0 + $1.count }) == expectedCopies, "\(delivered)\n\(maillog.suffix(3000))\n\(log)")
            #expect(!maillog.contains("milter"), "Postfix reported a milter problem:\n\(maillog.suffix(3000))")

            // Every copy: exactly one Authentication-Results of ours, the upstream one kept, no
            // forged summary; a summary of ours wherever a scan finds a reservation.
            var summaries = 0
            for (box, files) in delivered {
                for file in files {
                    let text = try String(contentsOfFile: file, encoding: .utf8)
                    let header = text.components(separatedBy: "\n\n").first ?? ""
                    let lines = header.split(separator: "\n").map(String.init)
                    let ours = lines.filter { $0.lowercased().hasPrefix("authentication-results: mx.test") }
                    #expect(ours.count == 1, "\(box) \(file): \(ours)")
                    #expect(!ours.contains { $0.contains("forged.example") || $0.contains("arc=pass") }, "\(box): \(ours)")
                    #expect(lines.contains(Self.forged[3]), "\(box): the upstream results were removed")
                    #expect(!header.contains("#FORGED"), "\(box): a forged X-Reservation reached the mailbox")
                    summaries += lines.filter { $0.hasPrefix("X-Reservation: ") }.count
                }
            }
            #expect(summaries > 0)

            // Each account holds what a scan of the samples records; the third recipient,
            // and the implicit account, nothing.
            let reference = "sqlite:\(tmp.path)/reference.sqlite3"
            for account in ["jane@home.example", "joe@home.example"] {
                _ = try ReservoirBinary.run(
                    [
                        "scan", ReservoirBinary.samples.path, "--keys", ReservoirBinary.keys, "--allowed-domains", ReservoirBinary.allowed,
                        "--now", ReservoirBinary.now, "--store", reference, "--account", account,
                    ], environment: ["RESERVOIR_CONFIG": siteConfig])
                let expected = try PostfixTests.stored(reference, account: account)
                #expect(expected.count >= 5, "\(expected)")
                #expect(try Self.stored(store, account: account) == expected, "\(account): \(log)")
            }
            #expect(try Self.stored(store, account: "other@home.example") == [])
            let accounts = try ReservoirBinary.run(["accounts", "--json", "--store", store])
            let listed = (try JSONSerialization.jsonObject(with: accounts.stdout) as? [[String: Any]] ?? []).compactMap {
                $0["account"] as? String
            }
            #expect(listed.sorted() == ["jane@home.example", "joe@home.example"], "\(String(decoding: accounts.stdout, as: UTF8.self))")

            // SIGTERM: it stops accepting, finishes, and exits 0.
            milter.terminate()
            let stopping = Date().addingTimeInterval(40)
            while milter.isRunning, Date() < stopping { usleep(50_000) }
            #expect(!milter.isRunning && milter.terminationStatus == 0, "\(log)")
        }
    }
}
