import Foundation
import Glibc
import PostgresTestSupport
import TestRequirements
import Testing

extension ProcessSuites {
    /// docs/SITE.md, "Catching up after an outage", on the real path: Postfix's `smtpd` with
    /// `reservoir-milter` (started as contrib/site/reservoir-milter.service starts it, the site's
    /// settings from `RESERVOIR_CONFIG`), delivering over LMTP to Dovecot with virtual users,
    /// which files each account's mail in its Maildir. 300 signed confirmations go to two
    /// accounts, one SMTP connection each; the milter is killed with SIGKILL once while mail
    /// flows (and started again, as `Restart=on-failure` does) and stopped with SIGTERM for the
    /// middle third. Then `reservoir scan --all-accounts`: every booking is in its account, once.
    @Suite("catching up after an outage: Postfix, the milter, Dovecot LMTP and scan --all-accounts")
    struct SiteCatchUpPostfixTests {
        typealias Delivery = UserDeliveryTests

        static let accounts = ["jane@site.test", "joe@site.test"]

        static var present: Bool { MilterPostfixTests.available && Delivery.hasLMTP }
        static let needs = "needs root, postfix, dovecot-core, dovecot-lmtpd, dovecot-sieve, python3 and reservoir-milter"

        /// Booking `CU<index>` at EPIC Steak in 2031 for the account `index` picks, unsigned.
        static func confirmation(_ index: Int) -> (number: String, account: String, text: String) {
            let number = "CU" + String(1000 + index)
            let account = accounts[index % accounts.count]
            let day = 1 + index % 28
            let text = """
                From: EPIC Steak <reservations@epicsteak.example>\r
                To: <\(account)>\r
                Subject: Your table \(number)\r
                Date: Wed, 02 Dec 2026 04:00:00 +0000\r
                Message-ID: <\(number)@epicsteak.example>\r
                MIME-Version: 1.0\r
                Content-Type: text/html; charset=utf-8\r
                \r
                <html><body><p>Your table is booked.</p><script type="application/ld+json">{"@context":"https://schema.org","@type":"FoodEstablishmentReservation",\r
                "reservationNumber":"\(number)","reservationStatus":"https://schema.org/ReservationConfirmed",\r
                "startTime":"2031-05-\(day < 10 ? "0" : "")\(day)T19:30:00-07:00","reservationFor":{"@type":"FoodEstablishment","name":"EPIC Steak"}}</script></body></html>\r

                """
            return (number, account, text)
        }

        /// The reservation numbers of `account`'s events, one per event (a number twice is a
        /// booking recorded twice).
        static func numbers(_ store: String, _ account: String) throws -> [String] {
            try PostfixTests.stored(store, account: account).map { String($0.prefix { $0 != "/" && $0 != " " }) }.sorted()
        }

        /// Radicale on a loopback port with one collection per account below the account's
        /// address, the site's one login allowed to write them all (`rights = authenticated`):
        /// the server, the calendar template, and what an account's collection holds.
        static func radicale(in base: String) throws -> (Process, String, (String) throws -> [String]) {
            let port = try LoopbackPort.free()
            let collections = base + "/radicale/collection-root"
            for account in accounts {
                try FileManager.default.createDirectory(atPath: "\(collections)/\(account)/reservations", withIntermediateDirectories: true)
                try #"{"tag": "VCALENDAR"}"#.write(
                    toFile: "\(collections)/\(account)/reservations/.Radicale.props", atomically: true, encoding: .utf8)
            }
            try "reservoir:s3cret\n".write(toFile: base + "/radicale/users", atomically: true, encoding: .utf8)
            try """
            [server]
            hosts = 127.0.0.1:\(port)
            [auth]
            type = htpasswd
            htpasswd_filename = \(base)/radicale/users
            htpasswd_encryption = plain
            delay = 0
            [storage]
            filesystem_folder = \(base)/radicale
            [rights]
            type = authenticated

            """.write(toFile: base + "/radicale/config", atomically: true, encoding: .utf8)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: CalDAVDeliveryTests.radicale)
            process.arguments = ["--config", base + "/radicale/config"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            try LoopbackPort.waitUntilListening(port)
            let copies: (String) throws -> [String] = { account in
                let directory = "\(collections)/\(account)/reservations"
                return try FileManager.default.contentsOfDirectory(atPath: directory).filter { !$0.hasPrefix(".") }.map {
                    try String(contentsOfFile: directory + "/" + $0, encoding: .utf8)
                }
            }
            return (process, "http://127.0.0.1:\(port)/{account}/reservations/", copies)
        }

        /// A running `reservoir-milter`, its output in a file of its own.
        final class Milter {
            let process = Process()
            let log: String

            init(port: Int, configuration: String, log: String) throws {
                self.log = log
                _ = FileManager.default.createFile(atPath: log, contents: nil)
                process.executableURL = ReservoirBinary.executable.deletingLastPathComponent().appendingPathComponent("reservoir-milter")
                // contrib/site/reservoir-milter.service's command line, on a port of the test's.
                process.arguments = ["--socket", "inet:\(port)@127.0.0.1"]
                process.environment = ProcessInfo.processInfo.environment.merging(["RESERVOIR_CONFIG": configuration]) { $1 }
                process.standardOutput = FileHandle(forWritingAtPath: log)
                process.standardError = FileHandle(forWritingAtPath: log)
                try process.run()
                let started = Date().addingTimeInterval(30)
                while Date() < started, process.isRunning, !text.contains("listening on") { usleep(20_000) }
            }

            var text: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }
            var listening: Bool { process.isRunning && text.contains("listening on") }

            func stop(_ signal: Int32) -> Int32? {
                kill(process.processIdentifier, signal)
                let deadline = Date().addingTimeInterval(40)
                while process.isRunning, Date() < deadline { usleep(20_000) }
                return process.isRunning ? nil : process.terminationStatus
            }

            deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        }

        /// Where the site keeps its events and calendars: SQLite and a vdir per account, or
        /// PostgreSQL as an ordinary role (row-level security) and Radicale through the
        /// `{account}` calendar template.
        enum Backing { case sqliteVdir, postgresRadicale }

        @Test(
            "300 confirmations to two accounts through Postfix, the milter killed once and stopped for the middle third: after scan --all-accounts every booking is in its account once, as a fresh scan finds them",
            .enabled(if: Requirement.met(present), Comment(rawValue: needs)))
        func catchUpAfterOutage() throws {
            try #require(Self.present, Comment(rawValue: Self.needs))
            try Self.site(.sqliteVdir, messages: 300)
        }

        static var radicaleAndPostgres: Bool { CalDAVDeliveryTests.hasRadicale && PostgresServer.isAvailable }

        @Test(
            "the whole site path: Postfix, the milter, Dovecot LMTP, PostgreSQL with row-level security and Radicale through {account}; after the outage, scan --all-accounts and sync --all-accounts leave each account's calendar holding only its own bookings, once",
            .enabled(if: Requirement.met(present && radicaleAndPostgres), Comment(rawValue: needs + ", radicale and PostgreSQL")))
        func wholeSitePath() throws {
            try #require(Self.present && Self.radicaleAndPostgres, Comment(rawValue: Self.needs + ", radicale and PostgreSQL"))
            try Self.site(.postgresRadicale, messages: 60)
        }

        /// The site with `backing` and `messages` confirmations (a multiple of 6), through the
        /// outage and the catch-up.
        static func site(_ backing: Backing, messages: Int) throws {
            let vmail = try Delivery.MailUser()
            let base = vmail.base
            for directory in ["/postfix", "/queue", "/data", "/site", "/vhome", "/state", "/unsigned", "/signed"] {
                try FileManager.default.createDirectory(atPath: base + directory, withIntermediateDirectories: true)
            }
            guard let postfixUser = getpwnam("postfix")?.pointee else { return }
            chown(base + "/data", postfixUser.pw_uid, postfixUser.pw_gid)
            chown(base + "/vhome", vmail.uid, vmail.gid)

            // The site's configuration as docs/SITE.md writes it: the store, the settings the
            // milter reads, each account's table, a calendar template and the Maildir template.
            let configuration = base + "/site/config.toml"
            // The site's one calendar login (Radicale's; a vdir needs none).
            try "machine 127.0.0.1 login reservoir password s3cret\n".write(toFile: base + "/netrc", atomically: true, encoding: .utf8)
            chmod(base + "/netrc", 0o600)
            var radicale: Process?
            defer { if let radicale { kill(radicale.processIdentifier, SIGKILL) } }
            let store: String
            let calendar: String
            /// The copies in `account`'s calendar, each object's text.
            let copies: (String) throws -> [String]
            switch backing {
            case .sqliteVdir:
                store = "sqlite:\(base)/site/events.sqlite3"
                calendar = "vdir:\(base)/calendars/{account}/reservations"
                copies = { account in
                    let directory = "\(base)/calendars/\(account)/reservations"
                    return try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".ics") }.map {
                        try String(contentsOfFile: directory + "/" + $0, encoding: .utf8)
                    }
                }
            case .postgresRadicale:
                store = try PostgresServer.shared.get().makeDatabase(ownedBy: PostgresServer.ordinaryRole).url
                (radicale, calendar, copies) = try Self.radicale(in: base)
            }
            try """
            store = "\(store)"
            keys = "\(ReservoirBinary.keys)"
            allowed-domains = "\(ReservoirBinary.allowed)"
            authserv-id = "mx.test"
            retry-spool = "\(base)/site/retry"
            calendar = ["\(calendar)"]
            netrc = "\(base)/netrc"
            maildir = "\(base)/vhome/{domain}/{local}/Maildir"

            [accounts."jane@site.test"]
            [accounts."joe@site.test"]

            """.write(toFile: configuration, atomically: true, encoding: .utf8)

            // 300 confirmations, signed with the samples' key of epicsteak.example.
            var expected: [String: [String]] = [:]
            var order: [(path: String, account: String)] = []
            for index in 0..<messages {
                let (number, account, text) = Self.confirmation(index)
                try text.write(toFile: "\(base)/unsigned/\(number).eml", atomically: false, encoding: .utf8)
                expected[account, default: []].append(number)
                order.append(("\(base)/signed/\(number).eml", account))
            }
            let key = ReservoirBinary.packageRoot.appendingPathComponent("scripts/samples/sample-dkim-key.pem").path
            let signing = try ChildProcess.capture([
                "/bin/sh", "-c",
                "cd \(base)/unsigned && ls | RESERVOIR='\(ReservoirBinary.executable.path)' KEY='\(key)' xargs -P 4 -I{} "
                    + "sh -c '\"$RESERVOIR\" sign --key \"$KEY\" --domain epicsteak.example --selector s2026 < {} > ../signed/{}'",
            ])
            try #require(signing.status == 0, "sign: \(String(decoding: signing.stderr, as: UTF8.self))")

            // Dovecot's LMTP server with virtual users, all delivered as one system user.
            let dovecotConfig = base + "/dovecot.conf"
            try """
            base_dir = \(base)/run
            state_dir = \(base)/state
            log_path = \(base)/dovecot.log
            protocols = lmtp
            ssl = no
            default_internal_user = dovecot
            default_login_user = dovenull
            mail_location = maildir:~/Maildir
            passdb {
              driver = static
              args = nopassword=y
            }
            userdb {
              driver = static
              args = uid=\(vmail.uid) gid=\(vmail.gid) home=\(base)/vhome/%d/%n
            }
            service lmtp {
              unix_listener lmtp {
                mode = 0666
              }
            }
            protocol lmtp {
              postmaster_address = postmaster@mx.test
            }

            """.write(toFile: dovecotConfig, atomically: false, encoding: .utf8)
            let dovecot = try ChildProcess.capture([Delivery.dovecot, "-c", dovecotConfig])
            try #require(dovecot.status == 0, "dovecot: \(String(decoding: dovecot.stdout + dovecot.stderr, as: UTF8.self))")
            defer { Delivery.stop(dovecotConfig, pidFile: base + "/run/master.pid") }

            let smtpPort = try LoopbackPort.free()
            let milterPort = try LoopbackPort.free()
            var milters: [Milter] = []
            func startMilter() throws -> Milter {
                let milter = try Milter(port: milterPort, configuration: configuration, log: "\(base)/milter-\(milters.count).log")
                milters.append(milter)
                try #require(milter.listening, "the milter did not start: \(milter.text)")
                return milter
            }
            var milter = try startMilter()

            // docs/SITE.md's Postfix settings, delivering to Dovecot over LMTP.
            let config = base + "/postfix"
            try MilterPostfixTests.mainConfig(
                base, milterPort: milterPort,
                delivery: """
                    virtual_mailbox_domains = site.test
                    virtual_mailbox_maps = inline:{ {jane@site.test = jane}, {joe@site.test = joe} }
                    virtual_transport = lmtp:unix:\(base)/run/lmtp
                    """
            ).write(toFile: config + "/main.cf", atomically: true, encoding: .utf8)
            try (MilterPostfixTests.master(smtpPort: smtpPort) + "lmtp      unix  -       -       n       -       -       lmtp\n").write(
                toFile: config + "/master.cf", atomically: true, encoding: .utf8)
            let check = try PostfixTests.run([MilterPostfixTests.postfix, "-c", config, "check"])
            #expect(check.status == 0, "postfix check: \(check.output)")
            let start = try PostfixTests.run([MilterPostfixTests.postfix, "-c", config, "start"])
            try #require(start.status == 0, "postfix start: \(start.output)")
            defer { _ = try? PostfixTests.run([MilterPostfixTests.postfix, "-c", config, "stop"]) }

            // One SMTP connection per message, as many senders make; a line per message sent.
            let submit = base + "/submit.py"
            try """
            import smtplib, sys
            port, progress, batch = int(sys.argv[1]), open(sys.argv[2], "a", buffering=1), sys.argv[3]
            for line in open(batch):
                path, recipient = line.split()
                with smtplib.SMTP("127.0.0.1", port, timeout=60) as smtp:
                    smtp.sendmail("reservations@epicsteak.example", [recipient], open(path, "rb").read())
                progress.write(path + "\\n")

            """.write(toFile: submit, atomically: true, encoding: .utf8)
            let progress = base + "/sent"
            func batch(_ range: Range<Int>) throws -> Process {
                let list = "\(base)/batch-\(range.lowerBound)"
                try order[range].map { "\($0.path) \($0.account)\n" }.joined().write(toFile: list, atomically: true, encoding: .utf8)
                let process = Process()
                process.executableURL = URL(fileURLWithPath: MilterPostfixTests.python)
                process.arguments = [submit, String(smtpPort), progress, list]
                try process.run()
                return process
            }
            func sent() -> Int { ((try? String(contentsOfFile: progress, encoding: .utf8)) ?? "").split(separator: "\n").count }
            func finish(_ process: Process) {
                process.waitUntilExit()
                #expect(process.terminationStatus == 0, "smtplib failed after \(sent()) messages")
            }

            // The first third, the milter killed once mid-flow and brought back at once.
            let third = messages / 3
            let first = try batch(0..<third)
            let killAt = Date().addingTimeInterval(60)
            while sent() < third / 3, first.isRunning, Date() < killAt { usleep(10_000) }
            _ = milter.stop(SIGKILL)
            #expect(!milter.process.isRunning && milter.process.terminationReason == .uncaughtSignal, "SIGKILL: \(milter.text)")
            milter = try startMilter()
            finish(first)
            // The middle third with the milter stopped.
            #expect(milter.stop(SIGTERM) == 0, "SIGTERM: \(milter.text)")
            finish(try batch(third..<(2 * third)))
            milter = try startMilter()
            finish(try batch((2 * third)..<messages))
            #expect(sent() == messages)

            // Every message in its account's Maildir.
            func delivered(_ local: String) -> Int {
                ((try? FileManager.default.contentsOfDirectory(atPath: "\(base)/vhome/site.test/\(local)/Maildir/new")) ?? []).count
            }
            let deadline = Date().addingTimeInterval(90)
            while delivered("jane") + delivered("joe") < messages, Date() < deadline { usleep(200_000) }
            let maillog = (try? String(contentsOfFile: base + "/maillog", encoding: .utf8)) ?? ""
            #expect(delivered("jane") == messages / 2 && delivered("joe") == messages / 2, "\(maillog.suffix(3000))")
            // Postfix met the milter away and delivered without it.
            #expect(maillog.contains("connect to Milter service"), "\(maillog.suffix(3000))")

            // The milter recorded what it saw, at most the first and last thirds; the rest waits.
            let before = try Self.accounts.map { try Self.numbers(store, $0).count }.reduce(0, +)
            #expect(before > 0 && before <= messages - third, "\(before) recorded by the milter")
            // The milter recorded the first and the last booking, none of the middle third:
            // those read by both the milter and the scan, and by the scan alone, below.
            let recorded = Set(try Self.accounts.flatMap { try Self.numbers(store, $0) })
            #expect(recorded.contains(Self.confirmation(0).number) && recorded.contains(Self.confirmation(messages - 1).number))
            #expect(recorded.isDisjoint(with: (third..<(2 * third)).map { Self.confirmation($0).number }))

            // The catch-up, as contrib/site/reservoir-catchup.service runs it, the milter running.
            let catchUp = try ReservoirBinary.run(["scan", "--all-accounts"], environment: ["RESERVOIR_CONFIG": configuration])
            #expect(catchUp.status == 0, "\(catchUp.stderr)\n\(catchUp.text.suffix(2000))")
            let lines = catchUp.text.split(separator: "\n").filter { line in Self.accounts.contains { line.hasPrefix($0 + ": ") } }
            #expect(lines.count == 2, "\(catchUp.text.suffix(2000))")
            for account in Self.accounts {
                #expect(
                    lines.contains {
                        $0.hasPrefix(account + ": \(messages / 2) messages read · \(messages / 2) with reservations · \(messages / 2) trusted")
                    }, "\(lines)")
            }

            // Every booking in its account, once: as a scan of the same Maildirs into a fresh
            // store finds them.
            let reference = "sqlite:\(base)/reference.sqlite3"
            for account in Self.accounts {
                let local = String(account.prefix { $0 != "@" })
                let numbers = try Self.numbers(store, account)
                #expect(numbers == (expected[account] ?? []).sorted(), "\(account): \(numbers.count) events")
                let fresh = try ReservoirBinary.run(
                    ["scan", "\(base)/vhome/site.test/\(local)/Maildir", "--store", reference, "--account", account, "--no-calendar"],
                    environment: ["RESERVOIR_CONFIG": configuration])
                #expect(fresh.status == 0, "\(fresh.stderr)")
                #expect(try PostfixTests.stored(store, account: account) == PostfixTests.stored(reference, account: account), "\(account)")
                // Each of the account's bookings one calendar copy, and none of the other's.
                let held = try copies(account)
                #expect(held.count == messages / 2, "\(account): \(held.count) calendar copies")
                let named = held.map { text in (expected[account] ?? []).filter { text.contains("UID:\($0)_") }.count }
                #expect(named.allSatisfy { $0 == 1 }, "\(account): a copy names none or several of the account's bookings")
                let others = (expected.filter { $0.key != account }.values.flatMap { $0 })
                #expect(!held.contains { text in others.contains { text.contains("UID:\($0)_") } }, "\(account) holds another's booking")
            }
            // A booking of each third: one history line, whether the milter, the scan or both read it.
            for index in [0, third + 1, messages - 1] {
                let (number, account, _) = Self.confirmation(index)
                let history = try ReservoirBinary.run(
                    ["events", "--history", number, "--json", "--account", account], environment: ["RESERVOIR_CONFIG": configuration])
                let entries = try JSONSerialization.jsonObject(with: history.stdout) as? [[String: Any]] ?? []
                #expect(entries.count == 1, "\(number): \(history.text)")
            }

            // Nothing waits for a calendar, and a second catch-up reads nothing again.
            let sync = try ReservoirBinary.run(["sync", "--all-accounts"], environment: ["RESERVOIR_CONFIG": configuration])
            #expect(sync.status == 0, "\(sync.text)\(sync.stderr)")
            let again = try ReservoirBinary.run(["scan", "--all-accounts"], environment: ["RESERVOIR_CONFIG": configuration])
            #expect(again.status == 0)
            for account in Self.accounts {
                #expect(
                    again.text.contains(account + ": 0 messages read · 0 with reservations · 0 trusted · \(messages / 2) unchanged"), "\(again.text)")
            }
            #expect(milter.stop(SIGTERM) == 0, "SIGTERM: \(milter.text)")
        }
    }
}
