import Foundation
import Glibc
import PostgresTestSupport
import Testing

extension ProcessSuites {
    /// docs/SITE.md, "Dovecot with virtual users": one system user delivers every virtual user's
    /// mail over LMTP, a global `sieve_before` script hands the filter the envelope recipient,
    /// and one store keeps each account's bookings apart.
    @Suite("a site's Dovecot with virtual users: the account from the envelope, through Sieve")
    struct SiteSieveDeliveryTests {
        typealias Delivery = UserDeliveryTests

        /// The lines the test runs must be docs/SITE.md's.
        static let documented = [
            #"require ["vnd.dovecot.filter", "envelope", "subaddress", "variables"];"#,
            #"if envelope :user :matches "to" "*" { set "local" "${1}"; }"#,
            #"if envelope :domain :matches "to" "*" { set "domain" "${1}"; }"#,
            #"filter "reservoir-site" ["${local}@${domain}"];"#,
            #"RESERVOIR_CONFIG=/etc/reservoir/site.toml exec /usr/bin/reservoir-filter --account "$1""#,
        ]

        @Test(
            "sample 1 to Jane (as JANE@) and Joe (as joe+trips@), sample 4 to Joe: each account holds its own, every copy carries our fields",
            .enabled(if: Delivery.hasLMTP, Comment(rawValue: Delivery.skipLMTP)))
        func virtualUsers() throws {
            let doc = try String(contentsOf: ReservoirBinary.packageRoot.appendingPathComponent("docs/SITE.md"), encoding: .utf8)
            for line in Self.documented { #expect(doc.contains(line), "docs/SITE.md lacks \(line)") }

            let vmail = try Delivery.MailUser()
            let base = vmail.base
            let store = base + "/site/events.sqlite3"
            for directory in ["/site", "/vhome", "/state", "/sieve", "/sieve-filter"] {
                try FileManager.default.createDirectory(atPath: base + directory, withIntermediateDirectories: true)
            }
            for directory in ["/site", "/vhome"] { chown(base + directory, vmail.uid, vmail.gid) }
            // The site's configuration: two accounts, bound to the address the samples name.
            let configuration = base + "/site.toml"
            try """
            store = "sqlite:\(store)"
            keys = "\(base)/keys.zone"
            allowed-domains = "\(base)/allowed-domains"
            authserv-id = "mx.test"
            [accounts."jane@site.test"]
            aliases = ["@home.example"]
            [accounts."joe@site.test"]
            aliases = ["@home.example"]

            """.write(toFile: configuration, atomically: false, encoding: .utf8)
            chmod(configuration, 0o644)
            // docs/SITE.md's script and filter program, with this test's paths and clock.
            let script = Self.documented[0...3].joined(separator: "\n") + "\n"
            try script.write(toFile: base + "/sieve/reservoir-site.sieve", atomically: false, encoding: .utf8)
            let wrapper =
                "#!/bin/sh\n"
                + Self.documented[4]
                .replacingOccurrences(of: "/etc/reservoir/site.toml", with: configuration)
                .replacingOccurrences(of: "/usr/bin/reservoir-filter", with: base + "/bin/reservoir-filter")
                + " --now \(ReservoirBinary.now)\n"
            try wrapper.write(toFile: base + "/sieve-filter/reservoir-site", atomically: false, encoding: .utf8)
            for path in ["/sieve", "/sieve-filter"] { chmod(base + path, 0o755) }
            chmod(base + "/sieve/reservoir-site.sieve", 0o644)
            chmod(base + "/sieve-filter/reservoir-site", 0o755)

            let config = base + "/dovecot.conf"
            try """
            base_dir = \(base)/run
            state_dir = \(base)/state
            log_path = \(base)/dovecot.log
            protocols = lmtp
            ssl = no
            default_internal_user = dovecot
            default_login_user = dovenull
            mail_location = maildir:~/Maildir
            lmtp_save_to_detail_mailbox = no
            recipient_delimiter = +
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
                mode = 0600
              }
            }
            protocol lmtp {
              mail_plugins = $mail_plugins sieve
              postmaster_address = postmaster@mx.test
            }
            plugin {
              sieve_plugins = sieve_extprograms
              sieve_global_extensions = +vnd.dovecot.filter
              sieve_before = \(base)/sieve/reservoir-site.sieve
              sieve_filter_bin_dir = \(base)/sieve-filter
              sieve_filter_exec_timeout = 30s
            }

            """.write(toFile: config, atomically: false, encoding: .utf8)
            chmod(config, 0o644)
            let compiled = try ChildProcess.capture([Delivery.sievec, "-c", config, base + "/sieve/reservoir-site.sieve"])
            try #require(compiled.status == 0, "sievec: \(String(decoding: compiled.stdout + compiled.stderr, as: UTF8.self))")
            let started = try ChildProcess.capture([Delivery.dovecot, "-c", config])
            try #require(started.status == 0, "dovecot: \(String(decoding: started.stdout + started.stderr, as: UTF8.self))")
            defer { Delivery.stop(config, pidFile: base + "/run/master.pid") }

            // LMTP answers DATA once per recipient (RFC 2033 §4.2), which smtplib does not read:
            // the dialogue by hand, every reply checked.
            let client = """
                import socket, sys
                data = open(sys.argv[2], "rb").read().replace(b"\\r\\n", b"\\n").replace(b"\\n", b"\\r\\n")
                data = b"\\r\\n".join(b"." + l if l.startswith(b".") else l for l in data.split(b"\\r\\n"))
                s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); f = s.makefile("rb")
                def reply():
                    while True:
                        line = f.readline()
                        if not line: sys.exit("connection closed")
                        if line[3:4] != b"-": break
                    if not line.startswith(b"2") and not line.startswith(b"3"): sys.exit(line.decode())
                reply()
                for command in [b"LHLO mx.test", b"MAIL FROM:<no-reply@example.net>"] + [b"RCPT TO:<" + r.encode() + b">" for r in sys.argv[3:]] + [b"DATA"]:
                    s.sendall(command + b"\\r\\n"); reply()
                s.sendall(data + (b"" if data.endswith(b"\\r\\n") else b"\\r\\n") + b".\\r\\n")
                for _ in sys.argv[3:]: reply()
                s.sendall(b"QUIT\\r\\n"); reply()
                """
            for (sample, recipients) in [(1, ["JANE@site.test", "joe+trips@site.test"]), (4, ["joe@site.test"])] {
                let r = try ChildProcess.capture(
                    [Delivery.python, "-c", client, base + "/run/lmtp", try ReservoirBinary.sample(sample)] + recipients)
                let log = (try? String(contentsOfFile: base + "/dovecot.log", encoding: .utf8)) ?? ""
                #expect(r.status == 0, "LMTP: \(String(decoding: r.stdout + r.stderr, as: UTF8.self))\n\(log)")
                #expect(!log.contains("Error:") && !log.contains("Panic:"), "Dovecot logged an error:\n\(log)")
            }

            for (user, count) in [("jane", 1), ("joe", 2)] {
                let directory = base + "/vhome/site.test/\(user)/Maildir/new"
                let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
                #expect(names.count == count, "\(user): \(names.count) messages delivered")
                for name in names {
                    let text = (try? String(contentsOfFile: directory + "/" + name, encoding: .utf8)) ?? ""
                    #expect(text.hasPrefix("Authentication-Results: mx.test;"), "\(user): \(text.prefix(300))")
                }
            }
            let accounts = try ReservoirBinary.run(["accounts", "--json", "--store", "sqlite:" + store])
            let listed = try JSONSerialization.jsonObject(with: accounts.stdout) as? [[String: Any]] ?? []
            #expect(listed.compactMap { $0["account"] as? String }.sorted() == ["jane@site.test", "joe@site.test"], "\(accounts.text)")
            let jane = try ReservoirBinary.run(["events", "--all", "--json", "--store", "sqlite:" + store, "--account", "jane@site.test"])
            let joe = try ReservoirBinary.run(["events", "--all", "--json", "--store", "sqlite:" + store, "--account", "joe@site.test"])
            func keys(_ r: ReservoirBinary.Result) -> [String] {
                ((try? JSONSerialization.jsonObject(with: r.stdout)) as? [[String: Any]] ?? []).compactMap {
                    ($0["key"] as? String)?.split(separator: "/").first.map(String.init)
                }.sorted()
            }
            // Jane's dinner; Joe's copy of it and his two flights of booking K7Q2PX.
            #expect(keys(jane) == ["IWDSCA"], "\(jane.text)")
            #expect(keys(joe) == ["IWDSCA", "K7Q2PX", "K7Q2PX"], "\(joe.text)")
        }
    }
}
