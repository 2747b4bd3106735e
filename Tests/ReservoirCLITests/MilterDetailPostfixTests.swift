import Foundation
import Glibc
import PostgresTestSupport
import Testing

extension ProcessSuites {
    /// `reservoir milter` behind a real Postfix (a private `config_directory` and queue, `smtpd`
    /// on a loopback port, virtual mailboxes of `home.example` in Maildirs, Postfix's own
    /// `recipient_delimiter = +`), with `--account-domain home.example`. Mail to
    /// `jane+trips@home.example` is Jane's, in her Maildir and in her account, beside a control
    /// to plain `jane@`; with `--recipient-delimiter=` (none) the detail address is no longer
    /// hers, as before. Every copy carries forged `Authentication-Results` in encoded-word form
    /// (``EncodedFieldTests``): read as Python's `email` decodes it, none names our
    /// authserv-id but the milter's own field, and the controls are delivered as sent.
    @Suite("Postfix with reservoir milter: detail recipients, encoded forged fields")
    struct MilterDetailPostfixTests {
        static var available: Bool { MilterPostfixTests.available }

        /// One run: the milter with `extra` arguments behind Postfix, `messages` sent as
        /// (envelope recipient, bytes) in one SMTP session; the copies delivered to Jane's
        /// Maildir, the store, and the milter's log.
        static func deliver(_ messages: [(String, Data)], milter extra: [String], in tmp: String) throws -> (
            copies: [Data], store: String, log: String
        ) {
            chmod(tmp, 0o755)
            let config = tmp + "/postfix"
            let mail = tmp + "/mail"
            for dir in [config, tmp + "/queue", tmp + "/data", mail, tmp + "/outgoing"] {
                try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            }
            guard let nobody = getpwnam("nobody")?.pointee, let postfixUser = getpwnam("postfix")?.pointee else {
                throw POSIXError(.ENOENT)
            }
            chown(tmp + "/data", postfixUser.pw_uid, postfixUser.pw_gid)
            chown(mail, nobody.pw_uid, nobody.pw_gid)
            let store = "sqlite:\(tmp)/events.sqlite3"
            let smtpPort = try LoopbackPort.free()
            let milterPort = try LoopbackPort.free()

            let milter = Process()
            let milterLog = tmp + "/milter.log"
            _ = FileManager.default.createFile(atPath: milterLog, contents: nil)
            milter.executableURL = ReservoirBinary.executable
            milter.arguments =
                [
                    "milter", "--socket", "inet:\(milterPort)@127.0.0.1", "--account-domain", "home.example", "--store", store,
                    "--keys", ReservoirBinary.keys, "--allowed-domains", ReservoirBinary.allowed, "--now", ReservoirBinary.now,
                    "--authserv-id", "mx.test", "--retry-spool", tmp + "/retry",
                ] + extra
            let siteConfig = tmp + "/config.toml"
            try "".write(toFile: siteConfig, atomically: true, encoding: .utf8)
            milter.environment = ProcessInfo.processInfo.environment.merging(["RESERVOIR_CONFIG": siteConfig]) { $1 }
            milter.standardOutput = FileHandle(forWritingAtPath: milterLog)
            milter.standardError = FileHandle(forWritingAtPath: milterLog)
            try milter.run()
            defer {
                if milter.isRunning {
                    milter.terminate()
                    milter.waitUntilExit()
                }
            }
            var log: String { (try? String(contentsOfFile: milterLog, encoding: .utf8)) ?? "" }
            let started = Date().addingTimeInterval(30)
            while Date() < started, milter.isRunning, !log.contains("listening on") { usleep(50_000) }
            try #require(log.contains("listening on"), "the milter did not start: \(log)")

            let main = MilterPostfixTests.mainConfig(
                tmp, milterPort: milterPort,
                delivery: """
                    recipient_delimiter = +
                    virtual_mailbox_domains = home.example
                    virtual_mailbox_base = \(mail)
                    virtual_mailbox_maps = inline:{ {jane@home.example = jane/}, {joe@home.example = joe/} }
                    virtual_uid_maps = static:\(nobody.pw_uid)
                    virtual_gid_maps = static:\(nobody.pw_gid)
                    virtual_minimum_uid = 1
                    """)
            let master = MilterPostfixTests.master(smtpPort: smtpPort)
            try main.write(toFile: config + "/main.cf", atomically: true, encoding: .utf8)
            try master.write(toFile: config + "/master.cf", atomically: true, encoding: .utf8)
            let start = try PostfixTests.run([MilterPostfixTests.postfix, "-c", config, "start"])
            try #require(start.status == 0, "postfix start: \(start.output)")
            defer { _ = try? PostfixTests.run([MilterPostfixTests.postfix, "-c", config, "stop"]) }

            var paths: [String] = []
            for (index, message) in messages.enumerated() {
                let path = tmp + "/outgoing/\(index)"
                try message.1.write(to: URL(fileURLWithPath: path))
                paths += [message.0, path]
            }
            let submit = tmp + "/submit.py"
            try """
            import smtplib, sys
            with smtplib.SMTP("127.0.0.1", int(sys.argv[1]), timeout=60) as smtp:
                for recipient, path in zip(sys.argv[2::2], sys.argv[3::2]):
                    smtp.sendmail("sender@example.com", [recipient], open(path, "rb").read())

            """.write(toFile: submit, atomically: true, encoding: .utf8)
            let sent = try ChildProcess.capture([MilterPostfixTests.python, submit, String(smtpPort)] + paths)
            try #require(sent.status == 0, "smtplib: \(String(decoding: sent.stderr, as: UTF8.self))")

            var files: [String] = []
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline {
                files = ((try? FileManager.default.contentsOfDirectory(atPath: "\(mail)/jane/new")) ?? []).map { "\(mail)/jane/new/\($0)" }
                if files.count >= messages.count { break }
                usleep(200_000)
            }
            let maillog = (try? String(contentsOfFile: tmp + "/maillog", encoding: .utf8)) ?? ""
            #expect(files.count == messages.count, "\(files)\n\(maillog.suffix(3000))\n\(log)")
            #expect(!maillog.contains("milter"), "Postfix reported a milter problem:\n\(maillog.suffix(3000))")
            // The bookings are recorded before the end-of-message reply: stop the milter so the
            // store is whole when read.
            milter.terminate()
            milter.waitUntilExit()
            return (try files.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }, store, log)
        }

        /// `account`'s bookings in `store`; none when the store was never made.
        static func bookings(_ store: String, account: String) throws -> [String] {
            guard FileManager.default.fileExists(atPath: String(store.dropFirst("sqlite:".count))) else { return [] }
            return try MilterPostfixTests.stored(store, account: account)
        }

        /// The store's accounts.
        static func accounts(_ store: String) throws -> [String] {
            let r = try ReservoirBinary.run(["accounts", "--json", "--store", store])
            return (try JSONSerialization.jsonObject(with: r.stdout) as? [[String: Any]] ?? []).compactMap { $0["account"] as? String }.sorted()
        }

        /// What `reservoir ingest` of `messages` records for Jane's account.
        static func reference(_ messages: [Data], in tmp: String) throws -> [String] {
            let store = "sqlite:\(tmp)/reference-\(UUID().uuidString).sqlite3"
            for message in messages {
                let file = tmp + "/reference.eml"
                try message.write(to: URL(fileURLWithPath: file))
                let r = try ReservoirBinary.run(
                    [
                        "ingest", file, "--keys", ReservoirBinary.keys, "--allowed-domains", ReservoirBinary.allowed,
                        "--now", ReservoirBinary.now, "--store", store, "--create", "--account", "jane@home.example",
                    ], environment: ["RESERVOIR_CONFIG": tmp + "/config.toml"])
                #expect(r.status == 0, "\(r.stderr)")
            }
            return try MilterPostfixTests.stored(store, account: "jane@home.example")
        }

        @Test(
            "jane+trips@ through Postfix and the milter: Jane's Maildir and Jane's account (a confirmation to jane@ or signed to jane+trips@), beside plain jane@; no forged field that Python's email decodes to our authserv-id",
            .enabled(if: available, "needs root, postfix (with its virtual agent), python3, the users postfix and nobody, and reservoir-milter"))
        func detailIsTheAccount() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let samples = try PostfixTests.allSamples()
            // EPIC Steak's table to Jane, sent to jane+trips@; the hotel, to plain jane@ (the
            // control); Cascadia Air's flight addressed (and signed) to jane+trips@, sent there.
            let table = try Data(contentsOf: URL(fileURLWithPath: samples[0]))
            let hotel = try Data(contentsOf: URL(fileURLWithPath: samples[3]))
            let flight = try RecipientDelimiterCLITests.flight(to: "jane+trips@home.example")
            let run = try Self.deliver(
                [
                    ("jane+trips@home.example", EncodedFieldTests.withFields(table)), ("jane@home.example", EncodedFieldTests.withFields(hotel)),
                    ("jane+trips@home.example", EncodedFieldTests.withFields(flight)),
                ], milter: [], in: tmp.path)

            let expected = try Self.reference([table, hotel, flight], in: tmp.path)
            #expect(expected.count >= 3 && expected.contains { $0.contains("K7Q2PX") }, "\(expected)")
            #expect(try MilterPostfixTests.stored(run.store, account: "jane@home.example") == expected, "\(run.log)")
            #expect(try Self.accounts(run.store) == ["jane@home.example"], "no account for the detail address")

            let readings = try EncodedFieldTests.decodedFields(run.copies)
            for (copy, fields) in zip(run.copies, readings) {
                let text = String(decoding: copy, as: UTF8.self)
                #expect(!text.contains("FORGED"), "a forged field was delivered: \(text.prefix(1500))")
                for control in EncodedFieldTests.controls {
                    #expect(text.contains(control.replacingOccurrences(of: "\n", with: "")), "the control was not delivered: \(control)")
                }
                let (results, summaries) = EncodedFieldTests.ours(fields)
                #expect(results.count == 1 && results[0].contains("dkim=pass"), "\(results)")
                #expect(summaries.count >= 1 && !summaries.contains { $0.contains("FORGED") }, "\(summaries)")
            }
        }

        @Test(
            "--recipient-delimiter= (none): jane+trips@ reaches Jane's Maildir through Postfix but is filed under an account of its own, as before",
            .enabled(if: available, "needs root, postfix (with its virtual agent), python3, the users postfix and nobody, and reservoir-milter"))
        func delimiterOff() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let flight = try RecipientDelimiterCLITests.flight(to: "jane+trips@home.example")
            let run = try Self.deliver([("jane+trips@home.example", flight)], milter: ["--recipient-delimiter="], in: tmp.path)
            #expect(run.copies.count == 1)
            // The account as written, of the account domain, which nothing reads; none of Jane's.
            #expect(try Self.accounts(run.store) == ["jane+trips@home.example"], "\(run.log)")
            #expect(try Self.bookings(run.store, account: "jane@home.example") == [], "\(run.log)")
            // A confirmation to plain jane@ is hers: the control of this run.
            let control = try TemporaryDirectory()
            defer { control.remove() }
            let table = try Data(contentsOf: URL(fileURLWithPath: try PostfixTests.allSamples()[0]))
            let plain = try Self.deliver([("jane@home.example", table)], milter: ["--recipient-delimiter="], in: control.path)
            let expected = try Self.reference([table], in: control.path)
            let filed = try MilterPostfixTests.stored(plain.store, account: "jane@home.example")
            #expect(!expected.isEmpty && filed == expected)
        }
    }
}
