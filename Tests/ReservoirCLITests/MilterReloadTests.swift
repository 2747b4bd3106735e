import Foundation
import Glibc
import PostgresTestSupport
import Testing

extension ProcessSuites {
    /// SIGHUP behind a real Postfix: the milter rereads the site's configuration and files mail
    /// under an account added to it, without a restart; a configuration that does not read is
    /// refused with its reason and the settings in use go on recording; reloads in quick
    /// succession never stop it (SIGHUP is also libmilter's stop signal).
    @Suite("reservoir milter reloads on SIGHUP")
    struct MilterReloadTests {
        @Test(
            "an account added to the configuration takes mail after SIGHUP; a broken configuration keeps the old one; SIGTERM still stops it",
            .enabled(
                if: MilterPostfixTests.available,
                "needs root, postfix (with its virtual agent), python3, the users postfix and nobody, and reservoir-milter"))
        func reloadThroughPostfix() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            chmod(tmp.path, 0o755)
            let config = tmp.path + "/postfix"
            let mail = tmp.path + "/mail"
            for dir in [config, tmp.path + "/queue", tmp.path + "/data", mail] {
                try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            }
            let nobody = try #require(getpwnam("nobody")?.pointee)
            let postfixUser = try #require(getpwnam("postfix")?.pointee)
            chown(tmp.path + "/data", postfixUser.pw_uid, postfixUser.pw_gid)
            chown(mail, nobody.pw_uid, nobody.pw_gid)
            let store = "sqlite:\(tmp.path)/events.sqlite3"
            let smtpPort = try LoopbackPort.free()
            let milterPort = try LoopbackPort.free()

            // Jane is the site's one account at start.
            let siteConfig = tmp.path + "/config.toml"
            let janeOnly = "[accounts.\"jane@home.example\"]\n"
            let withJoe = janeOnly + "[accounts.\"joe@home.example\"]\naliases = [\"@home.example\"]\n"
            try janeOnly.write(toFile: siteConfig, atomically: true, encoding: .utf8)
            let milter = Process()
            let milterLog = tmp.path + "/milter.log"
            _ = FileManager.default.createFile(atPath: milterLog, contents: nil)
            milter.executableURL = ReservoirBinary.executable
            milter.arguments = [
                "milter", "--socket", "inet:\(milterPort)@127.0.0.1", "--store", store, "--keys", ReservoirBinary.keys,
                "--allowed-domains", ReservoirBinary.allowed, "--now", ReservoirBinary.now, "--authserv-id", "mx.test",
                "--retry-spool", tmp.path + "/retry",
            ]
            milter.environment = ProcessInfo.processInfo.environment.merging(["RESERVOIR_CONFIG": siteConfig]) { $1 }
            milter.standardOutput = FileHandle(forWritingAtPath: milterLog)
            milter.standardError = FileHandle(forWritingAtPath: milterLog)
            try milter.run()
            defer { if milter.isRunning { kill(milter.processIdentifier, SIGKILL) } }
            var log: String { (try? String(contentsOfFile: milterLog, encoding: .utf8)) ?? "" }
            func logged(_ count: Int, of text: String) -> Bool {
                let until = Date().addingTimeInterval(30)
                while Date() < until, milter.isRunning, log.components(separatedBy: text).count - 1 < count { usleep(50_000) }
                return log.components(separatedBy: text).count - 1 >= count
            }
            try #require(logged(1, of: "listening on"), "the milter did not start: \(log)")

            let main = MilterPostfixTests.mainConfig(
                tmp.path, milterPort: milterPort,
                delivery: """
                    virtual_mailbox_domains = home.example
                    virtual_mailbox_base = \(mail)
                    virtual_mailbox_maps = inline:{ {jane@home.example = jane/}, {joe@home.example = joe/} }
                    virtual_uid_maps = static:\(nobody.pw_uid)
                    virtual_gid_maps = static:\(nobody.pw_gid)
                    virtual_minimum_uid = 1
                    """)
            try main.write(toFile: config + "/main.cf", atomically: true, encoding: .utf8)
            try MilterPostfixTests.master(smtpPort: smtpPort).write(toFile: config + "/master.cf", atomically: true, encoding: .utf8)
            let start = try PostfixTests.run([MilterPostfixTests.postfix, "-c", config, "start"])
            try #require(start.status == 0, "postfix start: \(start.output)")
            defer { _ = try? PostfixTests.run([MilterPostfixTests.postfix, "-c", config, "stop"]) }

            let samples = try PostfixTests.allSamples()
            let submit = tmp.path + "/submit.py"
            try """
            import smtplib, sys
            with smtplib.SMTP("127.0.0.1", int(sys.argv[1]), timeout=60) as smtp:
                for path in sys.argv[3:]:
                    smtp.sendmail("sender@example.com", [sys.argv[2]], open(path, "rb").read())

            """.write(toFile: submit, atomically: true, encoding: .utf8)
            var sentTo: [String: Int] = [:]
            func send(to box: String) throws {
                let sent = try ChildProcess.capture([MilterPostfixTests.python, submit, String(smtpPort), "\(box)@home.example"] + samples)
                try #require(sent.status == 0, "smtplib: \(String(decoding: sent.stderr, as: UTF8.self))")
                sentTo[box, default: 0] += samples.count
                let until = Date().addingTimeInterval(90)
                var count = 0
                while Date() < until {
                    count = ((try? FileManager.default.contentsOfDirectory(atPath: "\(mail)/\(box)/new")) ?? []).count
                    if count >= sentTo[box] ?? 0 { break }
                    usleep(200_000)
                }
                try #require(count == sentTo[box], "\(box): \(count) of \(sentTo[box] ?? 0) delivered\n\(log)")
            }
            let reference = "sqlite:\(tmp.path)/reference.sqlite3"
            try withJoe.write(toFile: siteConfig + ".joe", atomically: true, encoding: .utf8)
            _ = try ReservoirBinary.run(
                [
                    "scan", ReservoirBinary.samples.path, "--keys", ReservoirBinary.keys, "--allowed-domains", ReservoirBinary.allowed,
                    "--now", ReservoirBinary.now, "--store", reference, "--account", "joe@home.example",
                ], environment: ["RESERVOIR_CONFIG": siteConfig + ".joe"])
            let joesBookings = try PostfixTests.stored(reference, account: "joe@home.example")
            try #require(joesBookings.count >= 5, "\(joesBookings)")

            // Joe is no account yet: his mail is delivered and recorded nowhere.
            try send(to: "joe")
            #expect(try MilterPostfixTests.stored(store, account: "joe@home.example") == [])

            // Added to the configuration and reloaded: his next mail is his.
            try withJoe.write(toFile: siteConfig, atomically: true, encoding: .utf8)
            kill(milter.processIdentifier, SIGHUP)
            try #require(logged(1, of: "reloaded: 2 accounts"), "\(log)")
            try send(to: "joe")
            #expect(try MilterPostfixTests.stored(store, account: "joe@home.example") == joesBookings, "\(log)")

            // A configuration that does not read: refused with its reason, the old one goes on.
            try (withJoe + "store = \n").write(toFile: siteConfig, atomically: true, encoding: .utf8)
            kill(milter.processIdentifier, SIGHUP)
            try #require(logged(1, of: "reload refused"), "\(log)")
            #expect(log.contains("config.toml"), "the refusal names the file: \(log)")
            #expect(milter.isRunning)
            try send(to: "joe")
            #expect(try MilterPostfixTests.stored(store, account: "joe@home.example") == joesBookings, "\(log)")

            // Reloads in quick succession, some arriving while the one before is at work (as
            // `systemctl reload` in a loop): none stops it.
            try janeOnly.write(toFile: siteConfig, atomically: true, encoding: .utf8)
            for _ in 0..<5 {
                kill(milter.processIdentifier, SIGHUP)
                usleep(10_000)
            }
            #expect(logged(2, of: "reloaded: 1 account,"), "\(log)")
            usleep(300_000)
            #expect(milter.isRunning, "\(log)")

            // SIGTERM: it stops accepting, finishes, and exits 0.
            milter.terminate()
            let stopping = Date().addingTimeInterval(40)
            while milter.isRunning, Date() < stopping { usleep(50_000) }
            #expect(!milter.isRunning && milter.terminationStatus == 0, "\(log)")
        }
    }
}
