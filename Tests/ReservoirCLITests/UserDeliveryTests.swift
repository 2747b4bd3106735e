import Foundation
import Glibc
import PostgresTestSupport
import Testing

extension ProcessSuites {
    /// The hooks of docs/HOOKS.md on the path mail really takes to a person's mailbox: a user
    /// made for the test, its mail delivered by Dovecot's LDA (`dovecot-lda` run as that user,
    /// as Postfix's `mailbox_command` runs it) and by Dovecot's LMTP server (started by the test
    /// with a private `base_dir` and an `lmtp` socket, driven by Python's `smtplib.LMTP`), and
    /// by procmail run as the user reading `~/.procmailrc`. Each test reads the copy stored in
    /// the user's Maildir and the user's own store. `sieve-test` (MailSystemIntegrationTests)
    /// runs a script as the administrator's, so it cannot see what a personal script may not do.
    ///
    /// The user's settings are in `~/.config/reservoir/config.toml`, the store is the default
    /// one: Dovecot starts the program with only USER, HOME, SENDER, RECIPIENT, ORIG_RECIPIENT
    /// and HOST in its environment, so this checks that HOME is enough.
    @Suite("mail delivered to a user: dovecot-lda, LMTP and procmail run the filter as the user")
    struct UserDeliveryTests {
        static let lda = "/usr/lib/dovecot/dovecot-lda"
        static let lmtp = "/usr/lib/dovecot/lmtp"
        static let dovecot = "/usr/sbin/dovecot"
        static let sievec = "/usr/bin/sievec"
        static let extprograms = "/usr/lib/dovecot/modules/sieve/lib90_sieve_extprograms_plugin.so"
        static let procmail = "/usr/bin/procmail"
        static let python = "/usr/bin/python3"

        static func executable(_ path: String) -> Bool { FileManager.default.isExecutableFile(atPath: path) }
        /// A user can be made (useradd) and programs run as it (runuser).
        static var canMakeUsers: Bool { getuid() == 0 && executable("/usr/sbin/useradd") && executable("/usr/sbin/runuser") }
        static var hasLDA: Bool {
            canMakeUsers && executable(lda) && executable(sievec) && FileManager.default.fileExists(atPath: extprograms)
        }
        static var hasLMTP: Bool {
            hasLDA && executable(lmtp) && executable(dovecot) && executable(python) && getpwnam("dovecot") != nil
                && getpwnam("dovenull") != nil
        }
        static var hasProcmail: Bool { canMakeUsers && executable(procmail) }

        static let skipLDA = "needs root (useradd, runuser), dovecot-core and dovecot-sieve"
        static let skipLMTP = "needs root (useradd, runuser), dovecot-core, dovecot-sieve, dovecot-lmtpd and python3"
        static let skipProcmail = "needs root (useradd, runuser) and procmail"

        /// A user of its own for one test, with a home under a directory only root writes
        /// (the filter, its keys and the Dovecot settings live there), removed afterwards.
        final class MailUser {
            let name: String
            let base: String
            let home: String
            let uid: uid_t
            let gid: gid_t

            init() throws {
                name = "rsv" + String(UUID().uuidString.lowercased().filter(\.isHexDigit).prefix(8))
                base = "/tmp/reservoir-delivery-\(UUID().uuidString)"
                home = base + "/home"
                try FileManager.default.createDirectory(atPath: base + "/bin", withIntermediateDirectories: true)
                chmod(base, 0o755)
                let made = try ChildProcess.capture([
                    "/usr/sbin/useradd", "--home-dir", home, "--create-home", "--shell", "/bin/sh", "--user-group", name,
                ])
                guard made.status == 0, let entry = getpwnam(name)?.pointee else {
                    try? FileManager.default.removeItem(atPath: base)
                    throw SetupFailure(description: "useradd \(name): \(String(decoding: made.stderr, as: UTF8.self))")
                }
                uid = entry.pw_uid
                gid = entry.pw_gid
                // The filter, as the user runs it, and the samples' keys: the checkout may be
                // out of the user's reach.
                let copies = try ReservoirBinary.copiesForOtherUsers(in: base)
                // The user's own settings, as a person keeps them (docs/CONFIGURATION.md).
                try write(
                    "keys = \"\(copies.keys)\"\nallowed-domains = \"\(copies.allowed)\"\n",
                    to: ".config/reservoir/config.toml")
            }

            /// Makes the directories of `path` under the home, owned by the user.
            func makeDirectories(_ path: String) {
                var directory = home
                for component in path.split(separator: "/") {
                    directory += "/" + component
                    if mkdir(directory, 0o755) == 0 { chown(directory, uid, gid) }
                }
            }

            /// Writes `text` at `path` under the home, owned by the user.
            func write(_ text: String, to path: String, mode: mode_t = 0o644) throws {
                makeDirectories(path.split(separator: "/").dropLast().joined(separator: "/"))
                try text.write(toFile: home + "/" + path, atomically: false, encoding: .utf8)
                chown(home + "/" + path, uid, gid)
                chmod(home + "/" + path, mode)
            }

            /// Runs `command` as the user with the environment a mail system gives a delivery
            /// program (Postfix's local(8): HOME, USER, LOGNAME, SHELL and PATH).
            func run(_ command: [String], stdin: String? = nil) throws -> (status: Int32, output: String) {
                let r = try ChildProcess.capture(
                    [
                        "/usr/sbin/runuser", "-u", name, "--", "/usr/bin/env", "-i", "HOME=\(home)", "USER=\(name)", "LOGNAME=\(name)",
                        "SHELL=/bin/sh", "PATH=/usr/bin:/bin",
                    ] + command, stdin: stdin)
                return (r.status, String(decoding: r.stdout + r.stderr, as: UTF8.self))
            }

            /// The messages in the user's `~/Maildir/new` (or `folder`).
            func delivered(folder: String = "") -> [Data] {
                let dir = home + "/Maildir" + (folder.isEmpty ? "" : "/." + folder) + "/new"
                let names = ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted()
                return names.compactMap { try? Data(contentsOf: URL(fileURLWithPath: dir + "/" + $0)) }
            }

            /// The user's default store (`$HOME/.local/share/reservoir/events.sqlite3`).
            var store: String { home + "/.local/share/reservoir/events.sqlite3" }

            func text(_ path: String) -> String { (try? String(contentsOfFile: home + "/" + path, encoding: .utf8)) ?? "" }

            deinit {
                _ = try? ChildProcess.capture(["/usr/sbin/userdel", name])
                try? FileManager.default.removeItem(atPath: base)
            }
        }

        struct SetupFailure: Error, CustomStringConvertible {
            var description: String
        }

        // MARK: the message and what must arrive

        /// Sample 1 (EPIC Steak, #IWDSCA) with a forged claim of our authserv-id on top; the
        /// filter must remove it on the way in.
        static let forged = "Authentication-Results: mx.test; dkim=pass header.d=forged.example\n"

        static func message(_ user: MailUser) throws -> (path: String, original: Data) {
            let original = try ReservoirBinary.sampleMessage(1)
            let path = user.base + "/message.eml"
            try (Data(forged.utf8) + original).write(to: URL(fileURLWithPath: path))
            chmod(path, 0o644)
            return (path, original)
        }

        /// The copy in the Maildir carries our fields on top, the forged claim is gone, the
        /// original follows (Dovecot stores LF line ends; LMTP puts its trace fields between),
        /// and the booking is in the user's own store, written by the user.
        static func checkAnalysed(_ user: MailUser, original: Data, _ what: String, folder: String = "") throws {
            let copies = user.delivered(folder: folder)
            try #require(copies.count == 1, "\(what): \(copies.count) messages delivered")
            let stored = copies[0]
            let text = String(decoding: stored, as: UTF8.self)
            #expect(text.hasPrefix("Authentication-Results: mx.test;"), "\(what): \(text.prefix(400))")
            #expect(text.contains("dkim=pass header.d=epicsteak.example"), "\(what): \(text.prefix(400))")
            let reservations = text.split(separator: "\n").filter { $0.hasPrefix("X-Reservation: ") }
            #expect(reservations.count == 1 && reservations[0].contains("#IWDSCA"), "\(what): \(reservations)")
            #expect(!text.contains("forged.example"), "\(what): the forged claim reached the mailbox")
            let kept = MailSystemIntegrationTests.lf(original)
            #expect(stored.count > kept.count && stored.suffix(kept.count) == kept, "\(what): the original bytes are not intact")
            var info = stat()
            #expect(stat(user.store, &info) == 0 && info.st_uid == user.uid, "\(what): no store of the user's at \(user.store)")
            let events = try FaultTests.events("sqlite:" + user.store)
            #expect(events.count == 1 && events[0].hasPrefix("IWDSCA"), "\(what): the user's store holds \(events)")
        }

        // MARK: Dovecot

        /// The filter program of docs/HOOKS.md: a wrapper that ignores the arguments a script
        /// passes (here with the test's clock and authserv-id; the rest is the user's file).
        static func installWrapper(_ user: MailUser) throws -> String {
            let directory = user.base + "/sieve-filter"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let wrapper = """
                #!/bin/sh
                exec \(user.base)/bin/reservoir-filter --now \(ReservoirBinary.now) --authserv-id mx.test

                """
            try wrapper.write(toFile: directory + "/reservoir", atomically: false, encoding: .utf8)
            chmod(directory, 0o755)
            chmod(directory + "/reservoir", 0o755)
            return directory
        }

        static let script = "require [\"vnd.dovecot.filter\"];\nfilter \"reservoir\";\n"

        /// Where the filter runs from: a `sieve_before` script for everyone, the user's own
        /// `~/.dovecot.sieve`, or (the control) the user's own with the extension left global.
        enum Recipe: String, CaseIterable, CustomStringConvertible {
            case before = "sieve_before"
            case personal = "personal script, sieve_extensions"
            case personalGlobalOnly = "personal script, sieve_global_extensions only"

            var description: String { rawValue }
        }

        /// The `plugin` settings of docs/HOOKS.md for `recipe`, with the test's paths; compiles
        /// the `sieve_before` script as its administrator would (sievec, as root).
        static func sieveSettings(_ user: MailUser, _ recipe: Recipe) throws -> String {
            let bin = try installWrapper(user)
            var lines = ["  sieve = file:~/sieve;active=~/.dovecot.sieve", "  sieve_plugins = sieve_extprograms"]
            switch recipe {
            case .before:
                try FileManager.default.createDirectory(atPath: user.base + "/sieve", withIntermediateDirectories: true)
                try script.write(toFile: user.base + "/sieve/reservoir.sieve", atomically: false, encoding: .utf8)
                chmod(user.base + "/sieve", 0o755)
                chmod(user.base + "/sieve/reservoir.sieve", 0o644)
                lines += ["  sieve_global_extensions = +vnd.dovecot.filter", "  sieve_before = \(user.base)/sieve/reservoir.sieve"]
                // The user's own script still runs after it, and sees our fields.
                try user.write(
                    "require [\"fileinto\", \"mailbox\"];\nif header :contains \"X-Reservation\" \"#IWDSCA\" { fileinto :create \"Reservations\"; }\n",
                    to: ".dovecot.sieve")
            case .personal:
                lines.append("  sieve_extensions = +vnd.dovecot.filter")
                try user.write(script, to: ".dovecot.sieve")
            case .personalGlobalOnly:
                lines.append("  sieve_global_extensions = +vnd.dovecot.filter")
                try user.write(script, to: ".dovecot.sieve")
            }
            lines += ["  sieve_filter_bin_dir = \(bin)", "  # Default 10s; a loaded machine can exceed it.", "  sieve_filter_exec_timeout = 30s"]
            return "plugin {\n" + lines.joined(separator: "\n") + "\n}\n"
        }

        static func compileBefore(_ user: MailUser, config: String, _ recipe: Recipe) throws {
            guard recipe == .before else { return }
            let r = try ChildProcess.capture([sievec, "-c", config, user.base + "/sieve/reservoir.sieve"])
            #expect(r.status == 0, "sievec: \(String(decoding: r.stdout + r.stderr, as: UTF8.self))")
        }

        /// The folder the delivered copy lands in: the user's rule after the `sieve_before`
        /// script files it by our field.
        static func folder(_ recipe: Recipe) -> String { recipe == .before ? "Reservations" : "" }

        /// The lines of docs/HOOKS.md's recipe this test runs must be the documented ones.
        static func documented(_ recipe: Recipe) throws -> [String] {
            let doc = try String(contentsOf: ReservoirBinary.packageRoot.appendingPathComponent("docs/HOOKS.md"), encoding: .utf8)
            let needed: [String] =
                switch recipe {
                case .before:
                    [
                        "sieve_plugins = sieve_extprograms", "sieve_global_extensions = +vnd.dovecot.filter",
                        "sieve_before = /etc/dovecot/sieve/reservoir.sieve", "sievec /etc/dovecot/sieve/reservoir.sieve",
                    ]
                case .personal: ["sieve_extensions = +vnd.dovecot.filter", "~/.dovecot.sieve"]
                case .personalGlobalOnly: []
                }
            return needed.filter { !doc.contains($0) }
        }

        @Test(
            "dovecot-lda run as the user: the copy in the Maildir carries our fields and the booking is in the user's store",
            .enabled(if: hasLDA, Comment(rawValue: skipLDA)), arguments: [Recipe.before, .personal])
        func throughLDA(recipe: Recipe) throws {
            let undocumented = try Self.documented(recipe)
            #expect(undocumented.isEmpty, "docs/HOOKS.md lacks \(undocumented)")
            let user = try MailUser()
            let config = user.base + "/dovecot.conf"
            let settings = """
                mail_location = maildir:~/Maildir
                log_path = \(user.home)/dovecot.log
                protocol lda {
                  mail_plugins = $mail_plugins sieve
                }

                """
            try (settings + Self.sieveSettings(user, recipe)).write(toFile: config, atomically: false, encoding: .utf8)
            chmod(config, 0o644)
            try Self.compileBefore(user, config: config, recipe)
            let (message, original) = try Self.message(user)
            let r = try user.run([Self.lda, "-c", config, "-f", "no-reply@epicsteak.example"], stdin: message)
            let log = user.text("dovecot.log")
            #expect(r.status == 0, "dovecot-lda exit \(r.status): \(r.output)\n\(log)")
            #expect(!log.contains("Error:"), "Dovecot logged an error:\n\(log)\n\(user.text(".dovecot.sieve.log"))")
            try Self.checkAnalysed(user, original: original, "dovecot-lda, \(recipe)", folder: Self.folder(recipe))
        }

        @Test(
            "the trap the recipe avoids: a personal script with the extension left global is not compiled, and the mail arrives unanalysed with exit 0",
            .enabled(if: hasLDA, Comment(rawValue: skipLDA)))
        func personalScriptWithGlobalExtension() throws {
            let user = try MailUser()
            let config = user.base + "/dovecot.conf"
            let settings = """
                mail_location = maildir:~/Maildir
                log_path = \(user.home)/dovecot.log
                protocol lda {
                  mail_plugins = $mail_plugins sieve
                }

                """
            try (settings + Self.sieveSettings(user, .personalGlobalOnly)).write(toFile: config, atomically: false, encoding: .utf8)
            chmod(config, 0o644)
            let (message, original) = try Self.message(user)
            let r = try user.run([Self.lda, "-c", config], stdin: message)
            #expect(r.status == 0, "\(r.output)")
            let copies = user.delivered()
            try #require(copies.count == 1)
            #expect(copies[0] == Data(Self.forged.utf8) + MailSystemIntegrationTests.lf(original), "delivered as it came, forged claim and all")
            #expect(user.text(".dovecot.sieve.log").contains("restricted to global scripts"), "\(user.text(".dovecot.sieve.log"))")
            #expect(access(user.store, F_OK) != 0, "nothing was recorded")
        }

        @Test(
            "LMTP (a Dovecot with an lmtp socket) delivers to the user: the copy carries our fields and the booking is in the user's store",
            .enabled(if: hasLMTP, Comment(rawValue: skipLMTP)), arguments: [Recipe.before, .personal])
        func throughLMTP(recipe: Recipe) throws {
            let user = try MailUser()
            let config = user.base + "/dovecot.conf"
            // A Dovecot of the test's own: private base_dir and state_dir, LMTP only, users
            // from /etc/passwd; the lmtp process becomes the user for the delivery.
            let settings = """
                base_dir = \(user.base)/run
                state_dir = \(user.base)/state
                log_path = \(user.base)/dovecot.log
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
                  driver = passwd
                }
                service lmtp {
                  unix_listener lmtp {
                    mode = 0600
                  }
                }
                protocol lmtp {
                  mail_plugins = $mail_plugins sieve
                  postmaster_address = postmaster@mx.test
                }

                """
            try (settings + Self.sieveSettings(user, recipe)).write(toFile: config, atomically: false, encoding: .utf8)
            try FileManager.default.createDirectory(atPath: user.base + "/state", withIntermediateDirectories: true)
            try Self.compileBefore(user, config: config, recipe)
            let started = try ChildProcess.capture([Self.dovecot, "-c", config])
            try #require(started.status == 0, "dovecot: \(String(decoding: started.stdout + started.stderr, as: UTF8.self))")
            defer { Self.stop(config, pidFile: user.base + "/run/master.pid") }
            let (message, original) = try Self.message(user)
            let client = """
                import smtplib, sys
                # On the wire every line ends in CRLF (RFC 5321 §2.3.8); smtplib sends bytes as they are.
                data = open(sys.argv[3], "rb").read().replace(b"\\r\\n", b"\\n").replace(b"\\n", b"\\r\\n")
                with smtplib.LMTP(sys.argv[1]) as lmtp:
                    refused = lmtp.sendmail("no-reply@epicsteak.example", [sys.argv[2]], data)
                sys.exit(1 if refused else 0)
                """
            let r = try ChildProcess.capture([Self.python, "-c", client, user.base + "/run/lmtp", user.name, message])
            let log = (try? String(contentsOfFile: user.base + "/dovecot.log", encoding: .utf8)) ?? ""
            #expect(r.status == 0, "LMTP: \(String(decoding: r.stdout + r.stderr, as: UTF8.self))\n\(log)")
            #expect(!log.contains("Error:") && !log.contains("Panic:"), "Dovecot logged an error:\n\(log)")
            try Self.checkAnalysed(user, original: original, "LMTP, \(recipe)", folder: Self.folder(recipe))
        }

        /// `dovecot stop`, then waits (up to 10 s) for the master to be gone.
        static func stop(_ config: String, pidFile: String) {
            _ = try? ChildProcess.capture([dovecot, "-c", config, "stop"])
            for _ in 0..<100 where access(pidFile, F_OK) == 0 { usleep(100_000) }
        }

        // MARK: procmail

        @Test(
            "procmail run as the user with ~/.procmailrc: the copy carries our fields and the booking is in the user's store",
            .enabled(if: hasProcmail, Comment(rawValue: skipProcmail)))
        func procmailAsUser() throws {
            let user = try MailUser()
            // docs/HOOKS.md's recipe, the options in the user's configuration file.
            let rc = """
                MAILDIR=$HOME/Maildir/
                DEFAULT=$MAILDIR
                :0 fw
                | \(user.base)/bin/reservoir-filter --now \(ReservoirBinary.now) --authserv-id mx.test

                """
            try user.write(rc, to: ".procmailrc")
            // procmail delivers into a Maildir that exists (a mail server's made it at the first delivery).
            for sub in ["cur", "new", "tmp"] { user.makeDirectories("Maildir/\(sub)") }
            let (message, original) = try Self.message(user)
            let r = try user.run([Self.procmail], stdin: message)
            #expect(r.status == 0, "procmail: \(r.output)")
            try Self.checkAnalysed(user, original: MailSystemIntegrationTests.procmailPrepared(original), "procmail as the user")
        }
    }
}
