import DNSTestSupport
import Foundation
import PostgresTestSupport
import TestRequirements
import Testing

extension ProcessSuites {
    /// Runs the filter hook inside the real Debian mail programs: procmail (`:0 fw`, with `reservoir-filter`) and Dovecot
    /// Pigeonhole's `sieve-test` with the extprograms plugin (`vnd.dovecot.filter`, with `reservoir filter`). Each test reads the
    /// message the program delivered into a Maildir and checks it is our two kinds of fields followed by
    /// the original bytes. What the programs themselves do to the bytes was found by running them with
    /// `cat` as the filter (Debian 12: procmail 3.22, Dovecot 2.3.19):
    ///
    /// - procmail appends one `\n` before handing the message to the filter unless it already ends with a
    ///   blank line (`\n\n`); an empty message becomes `\n`. A leading `From ` envelope line is passed to
    ///   the filter and dropped at Maildir delivery. It adds no `From ` line when the input has none.
    /// - Dovecot stores the filter's output as it is, except that every CRLF becomes LF (in the original
    ///   part too, so a CRLF message is stored with LF line ends).
    @Suite("mail systems run reservoir filter", .serialized)
    struct MailSystemIntegrationTests {
        static let procmail = "/usr/bin/procmail"
        static let sieveTest = "/usr/bin/sieve-test"
        static let extprograms = "/usr/lib/dovecot/modules/sieve/lib90_sieve_extprograms_plugin.so"

        static var hasProcmail: Bool { FileManager.default.isExecutableFile(atPath: procmail) }
        static var hasSieve: Bool {
            FileManager.default.isExecutableFile(atPath: sieveTest) && FileManager.default.fileExists(atPath: extprograms)
        }
        static var isRoot: Bool { getuid() == 0 }

        // MARK: inputs

        /// Every sample, with the number of X-Reservation fields it must get (M8 is shown untrusted).
        static let samples: [(number: Int, reservations: Int)] = [(1, 1), (2, 1), (3, 1), (4, 2), (5, 1), (6, 1), (7, 0), (8, 1)]

        static var malformed: [(name: String, data: Data)] {
            var big = Data("From: a@big.example\nTo: b@big.example\nSubject: big\n\n".utf8)
            let line = Data((String(repeating: "x", count: 76) + "\n").utf8)
            while big.count < 2 * 1024 * 1024 { big.append(line) }
            return [
                ("empty-ish headers", Data(":\n: \n\n\n".utf8)),
                ("binary garbage", Data([0x00, 0xFF, 0xFE, 0x0D, 0x00, 0x80, 0x0A, 0x1B, 0x7F, 0xC3, 0x28, 0x0A, 0x00])),
                ("no body separator", Data("From: a@b.example\nSubject: headers only\nX-Thing: 1\n".utf8)),
                ("no final newline", Data("From: a@b.example\nSubject: s\n\nbody without newline".utf8)),
                ("2 MB message", big),
                ("CRLF line ends", Data("From: a@b.example\r\nSubject: crlf\r\n\r\nbody\r\n".utf8)),
                ("no newline at all", Data("no header at all".utf8)),
            ]
        }

        // MARK: helpers

        struct Run {
            var status: Int32
            var stdout: String
            var stderr: String
        }

        /// Runs a program with a file on standard input, as `nobody` when `asNobody` and we are root.
        /// Started through `ChildProcess`, with the signal mask and dispositions a mail system has.
        static func run(_ program: String, _ arguments: [String], stdinFile: String? = nil, asNobody: Bool = false) throws -> Run {
            let command =
                asNobody && isRoot
                ? ["/usr/sbin/runuser", "-u", "nobody", "--", program] + arguments
                : [program] + arguments
            let r = try ChildProcess.capture(command, stdin: stdinFile)
            return Run(
                status: r.status, stdout: String(decoding: r.stdout, as: UTF8.self),
                stderr: String(decoding: r.stderr, as: UTF8.self))
        }

        static var filterOptions: [String] {
            [
                "filter", "--keys", ReservoirBinary.keys, "--allowed-domains", ReservoirBinary.allowed, "--no-store",
                "--authserv-id", "mx.test", "--now", ReservoirBinary.now,
            ]
        }

        /// The files delivered into `maildir/new`, oldest name first.
        static func delivered(_ maildir: String) throws -> [String] {
            let dir = maildir + "/new"
            return try FileManager.default.contentsOfDirectory(atPath: dir).sorted().map { dir + "/" + $0 }
        }

        /// Splits `message` into the fields Reservoir added and the rest, given that the rest must be
        /// `original`; checks that the added part holds only Authentication-Results and X-Reservation
        /// fields (with their folded continuation lines). Returns the number of X-Reservation fields.
        static func checkAdded(_ message: Data, original: Data, _ what: String) -> Int {
            #expect(
                message.count >= original.count && message.suffix(original.count) == original,
                "\(what): the original bytes are not intact at the end (\(message.count) bytes delivered, \(original.count) original)")
            guard message.count >= original.count else { return -1 }
            let added = String(decoding: message.prefix(message.count - original.count), as: UTF8.self)
            if added.isEmpty { return 0 }
            // reservoir ends its fields the way the message ends its lines.
            let lineEnd = added.utf8.contains(0x0D) ? "\r\n" : "\n"
            #expect(added.hasSuffix(lineEnd), "\(what): added fields do not end with a line end: \(added.debugDescription)")
            var reservations = 0
            for line in added.components(separatedBy: lineEnd).dropLast() {
                if line.hasPrefix("X-Reservation: ") {
                    reservations += 1
                    continue
                }
                if line.hasPrefix("Authentication-Results: ") || line.hasPrefix(" ") || line.hasPrefix("\t") { continue }
                Issue.record("\(what): unexpected line among the added fields: \(line.debugDescription)")
            }
            #expect(added.hasPrefix("Authentication-Results: mx.test;"), "\(what): added part: \(added.debugDescription)")
            return reservations
        }

        /// What procmail hands the filter: one `\n` appended unless the message ends with a blank line.
        static func procmailPrepared(_ data: Data) -> Data {
            data.count >= 2 && data.suffix(2) == Data("\n\n".utf8) ? data : data + Data("\n".utf8)
        }

        // MARK: procmail

        static func procmailDeliver(_ message: Data, _ what: String) throws -> Data? {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            // procmail refuses an rcfile in a world-writable directory ("Suspicious rcfile"); as root with
            // -m it runs the rcfile as root, so the private temp directory is fine.
            let maildir = tmp.path + "/Maildir"
            for sub in ["new", "cur", "tmp"] {
                try FileManager.default.createDirectory(atPath: maildir + "/" + sub, withIntermediateDirectories: true)
            }
            // reservoir-filter, as docs/HOOKS.md suggests; the tests compare with `reservoir filter`.
            let command = ([ReservoirBinary.filterExecutable.path] + filterOptions.dropFirst()).joined(separator: " ")
            let rc = """
                MAILDIR=\(maildir)/
                DEFAULT=$MAILDIR
                :0 fw
                | \(command)
                :0
                $MAILDIR

                """
            try rc.write(toFile: tmp.path + "/rcfile", atomically: true, encoding: .utf8)
            try message.write(to: URL(fileURLWithPath: tmp.path + "/msg"))
            let r = try run(procmail, ["-m", tmp.path + "/rcfile"], stdinFile: tmp.path + "/msg")
            #expect(r.status == 0, "\(what): procmail exit \(r.status): \(r.stderr)")
            let files = try delivered(maildir)
            #expect(files.count == 1, "\(what): \(files.count) messages delivered; procmail said: \(r.stderr)")
            guard let file = files.first else { return nil }
            return try Data(contentsOf: URL(fileURLWithPath: file))
        }

        @Test(
            "procmail :0 fw delivers each sample with our fields on top and the original bytes intact",
            .enabled(if: Requirement.met(hasProcmail), "procmail is not installed (apt-get install procmail)"),
            arguments: samples.map { $0.number })
        func procmailSample(number: Int) throws {
            let path = try ReservoirBinary.sample(number)
            let original = try Data(contentsOf: URL(fileURLWithPath: path))
            let what = "procmail sample M\(number)"
            guard let stored = try Self.procmailDeliver(original, what) else { return }
            let count = Self.checkAdded(stored, original: Self.procmailPrepared(original), what)
            #expect(count == Self.samples.first { $0.number == number }!.reservations, "\(what): X-Reservation count")
            // And exactly what reservoir writes when run by hand on what procmail handed it.
            let direct = try ReservoirBinary.run(Self.filterOptions, stdin: Self.procmailPrepared(original))
            #expect(stored == direct.stdout, "\(what): differs from reservoir filter run directly")
        }

        @Test(
            "procmail :0 fw passes malformed input through fail-open",
            .enabled(if: Requirement.met(hasProcmail), "procmail is not installed (apt-get install procmail)"),
            arguments: malformed.map { $0.name })
        func procmailMalformed(name: String) throws {
            let original = Self.malformed.first { $0.name == name }!.data
            let what = "procmail \(name)"
            guard let stored = try Self.procmailDeliver(original, what) else { return }
            let prepared = Self.procmailPrepared(original)
            #expect(
                stored.count >= prepared.count && stored.suffix(prepared.count) == prepared,
                "\(what): original bytes not intact")
            let direct = try ReservoirBinary.run(Self.filterOptions, stdin: prepared)
            #expect(direct.status == 0, "\(what): reservoir exit \(direct.status)")
            #expect(stored == direct.stdout, "\(what): differs from reservoir filter run directly")
            if stored != prepared { _ = Self.checkAdded(stored, original: prepared, what) }
        }

        @Test(
            "procmail drops a leading From_ envelope line at Maildir delivery; reservoir keeps it first",
            .enabled(if: Requirement.met(hasProcmail), "procmail is not installed (apt-get install procmail)"))
        func procmailEnvelope() throws {
            let original = try ReservoirBinary.sampleMessage(4)
            let envelope = Data("From no-reply@cascadia-air.example Tue Nov 17 07:21:50 2026\n".utf8)
            guard let stored = try Self.procmailDeliver(envelope + original, "procmail From_") else { return }
            #expect(Self.checkAdded(stored, original: Self.procmailPrepared(original), "procmail From_") == 2)
        }

        // MARK: Dovecot sieve-test

        static let filterScript = "require [\"vnd.dovecot.filter\"];\nfilter \"reservoir\";\n"

        /// Runs `sieve-test -e` with `script` (by default `filter "reservoir"` and implicit keep) into a
        /// Maildir, the filter run as `reservoir` with `options` (and `environment`, `NAME=value` words);
        /// returns the message stored, which must be in `mailbox`.
        static func sieveDeliver(
            _ message: Data, _ what: String, options: [String] = filterOptions, script: String = filterScript,
            mailbox: String = "INBOX", environment: [String] = []
        ) throws -> Data? {
            // Dovecot will not run as root: the directory must be usable by nobody.
            let tmp = "/tmp/reservoir-sieve-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: tmp + "/bin", withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: tmp) }
            // Dovecot runs the filter as nobody, who may not reach into the checkout (a clone in
            // a mktemp -d directory is 0700): the binary, keys and allowed domains are copied
            // into the directory made for nobody.
            let copies = [
                (ReservoirBinary.executable.path, tmp + "/bin/reservoir.bin"),
                (ReservoirBinary.keys, tmp + "/keys.zone"), (ReservoirBinary.allowed, tmp + "/allowed-domains"),
            ]
            for (from, to) in copies { try FileManager.default.copyItem(atPath: from, toPath: to) }
            let command = ([ReservoirBinary.executable.path] + options).map { argument in
                copies.first { $0.0 == argument }?.1 ?? argument
            }
            let wrapper = """
                #!/bin/sh
                exec \((environment.isEmpty ? command : ["env"] + environment + command).joined(separator: " "))

                """
            try wrapper.write(toFile: tmp + "/bin/reservoir", atomically: true, encoding: .utf8)
            let conf = """
                mail_location = maildir:\(tmp)/mail
                log_path = \(tmp)/dovecot.log
                plugin {
                  sieve_plugins = sieve_extprograms
                  sieve_global_extensions = +vnd.dovecot.filter
                  sieve_filter_bin_dir = \(tmp)/bin
                  # Default 10s; a loaded CI machine once exceeded it (Dovecot then keeps the original).
                  sieve_filter_exec_timeout = 30s
                }

                """
            try conf.write(toFile: tmp + "/dovecot.conf", atomically: true, encoding: .utf8)
            try script.write(toFile: tmp + "/test.sieve", atomically: true, encoding: .utf8)
            try message.write(to: URL(fileURLWithPath: tmp + "/msg"))
            _ = try run("/bin/chmod", ["-R", "a+rX", tmp])
            _ = try run("/bin/chmod", ["755", tmp + "/bin/reservoir"])
            if isRoot { _ = try run("/bin/chown", ["-R", "nobody", tmp]) }
            let r = try run(
                sieveTest, ["-c", tmp + "/dovecot.conf", "-e", "-l", "maildir:\(tmp)/mail", tmp + "/test.sieve", tmp + "/msg"],
                asNobody: true)
            let log = (try? String(contentsOfFile: tmp + "/dovecot.log", encoding: .utf8)) ?? ""
            #expect(r.status == 0, "\(what): sieve-test exit \(r.status): \(r.stderr)\nDovecot log:\n\(log)")
            #expect(r.stderr.contains("stored mail into mailbox '\(mailbox)'"), "\(what): \(r.stderr)")
            let files = (try? delivered(tmp + "/mail" + (mailbox == "INBOX" ? "" : "/." + mailbox))) ?? []
            #expect(files.count == 1, "\(what): \(files.count) messages stored; sieve-test said: \(r.stderr)")
            guard let file = files.first else { return nil }
            return try Data(contentsOf: URL(fileURLWithPath: file))
        }

        /// reservoir's own output with CRLF turned into LF, as Dovecot stores it.
        static func lf(_ data: Data) -> Data {
            var out = Data(capacity: data.count)
            var i = data.startIndex
            while i < data.endIndex {
                if data[i] == 0x0D, data.index(after: i) < data.endIndex, data[data.index(after: i)] == 0x0A {
                    i = data.index(after: i)
                    continue
                }
                out.append(data[i])
                i = data.index(after: i)
            }
            return out
        }

        @Test(
            "sieve-test filter \"reservoir\" stores each sample with our fields on top and the original bytes intact",
            .enabled(if: Requirement.met(hasSieve), "dovecot-sieve (sieve-test, sieve_extprograms) is not installed (apt-get install dovecot-sieve)"),
            arguments: samples.map { $0.number })
        func sieveSample(number: Int) throws {
            let original = try ReservoirBinary.sampleMessage(number)
            let what = "sieve sample M\(number)"
            guard let stored = try Self.sieveDeliver(original, what) else { return }
            let count = Self.checkAdded(stored, original: original, what)
            #expect(count == Self.samples.first { $0.number == number }!.reservations, "\(what): X-Reservation count")
            let direct = try ReservoirBinary.run(Self.filterOptions, stdin: original)
            #expect(stored == direct.stdout, "\(what): differs from reservoir filter run directly")
        }

        @Test(
            "sieve-test filter \"reservoir\" passes malformed input through fail-open",
            .enabled(if: Requirement.met(hasSieve), "dovecot-sieve (sieve-test, sieve_extprograms) is not installed (apt-get install dovecot-sieve)"),
            arguments: malformed.map { $0.name })
        func sieveMalformed(name: String) throws {
            let original = Self.malformed.first { $0.name == name }!.data
            let what = "sieve \(name)"
            guard let stored = try Self.sieveDeliver(original, what) else { return }
            let direct = try ReservoirBinary.run(Self.filterOptions, stdin: original)
            #expect(direct.status == 0, "\(what): reservoir exit \(direct.status)")
            #expect(
                stored == direct.stdout || stored == Self.lf(direct.stdout),
                "\(what): stored \(stored.count) bytes, reservoir wrote \(direct.stdout.count)")
            // Dovecot turns every CRLF into LF, in the original part too; otherwise the original is intact.
            let kept = Self.lf(original)
            #expect(stored.count >= kept.count && stored.suffix(kept.count) == kept, "\(what): original bytes not intact")
        }

        // MARK: forged fields under Sieve

        /// Rules that would act on a forged claim, with a control rule that must match: a message
        /// stored in "Control" got through the filter with no forged field a rule could see.
        static let forgedFieldScript = """
            require ["vnd.dovecot.filter", "fileinto", "mailbox"];
            filter "reservoir";
            if header :contains ["Authentication-Results", "X-Reservation"] "FORGED" { fileinto :create "Forged"; stop; }
            if header :matches "Authentication-Results" "mx.test;*dkim=pass*" { fileinto :create "Trusted"; stop; }
            if header :contains "Authentication-Results" "CONTROL" { fileinto :create "Control"; stop; }

            """

        /// Sample 1 with forged fields (one without a marker, so only the "Trusted" rule could
        /// catch it) in its header, after a line without a colon too.
        static func forgedSample(longLine: Int = 0) throws -> (input: Data, stripped: Data) {
            let (input, stripped) = ForgedFieldTests.withForgedFields(try ReservoirBinary.sampleMessage(1), longLine: longLine)
            let unmarked = Data("Authentication-Results: mx.test; dkim=pass header.d=epicsteak.example\n".utf8)
            return (unmarked + input, stripped)
        }

        static func checkForgedDelivery(_ stored: Data?, stripped: Data, _ what: String) {
            guard let stored else { return }
            ForgedFieldTests.check(stored, stripped: lf(stripped), what)
            #expect(!String(decoding: stored, as: UTF8.self).contains("mx.test; dkim=pass"), "\(what): a forged pass survived")
        }

        @Test(
            "sieve-test: no forged claim reaches the Sieve rules on the normal path; the controls do",
            .enabled(if: Requirement.met(hasSieve), "dovecot-sieve (sieve-test, sieve_extprograms) is not installed (apt-get install dovecot-sieve)"))
        func sieveForgedNormal() throws {
            let (input, stripped) = try Self.forgedSample()
            let stored = try Self.sieveDeliver(input, "sieve forged, normal", script: Self.forgedFieldScript, mailbox: "Control")
            Self.checkForgedDelivery(stored, stripped: stripped, "sieve forged, normal")
            #expect(stored.map { String(decoding: $0, as: UTF8.self).hasPrefix("Authentication-Results: mx.test;") } == true)
        }

        @Test(
            "sieve-test: no forged claim reaches the Sieve rules when the time budget runs out",
            .enabled(if: Requirement.met(hasSieve), "dovecot-sieve (sieve-test, sieve_extprograms) is not installed (apt-get install dovecot-sieve)"))
        func sieveForgedTimeBudget() throws {
            let server = FaultTests.LoopbackNameserver { _ in nil }
            defer { server.stop() }
            let (input, stripped) = try Self.forgedSample()
            let options = [
                "filter", "--dns-server", "127.0.0.1:\(server.port)", "--dns-timeout", "30", "--timeout", "1", "--no-store",
                "--authserv-id", "mx.test", "--allowed-domains", ReservoirBinary.allowed, "--now", ReservoirBinary.now,
            ]
            let stored = try Self.sieveDeliver(
                input, "sieve forged, time budget", options: options, script: Self.forgedFieldScript, mailbox: "Control")
            Self.checkForgedDelivery(stored, stripped: stripped, "sieve forged, time budget")
            #expect(stored.map { $0.prefix(ForgedFieldTests.timeoutField.utf8.count) == Data(ForgedFieldTests.timeoutField.utf8) } == true)
        }

        @Test(
            "sieve-test: no forged claim reaches the Sieve rules when the message is passed through",
            .enabled(if: Requirement.met(hasSieve), "dovecot-sieve (sieve-test, sieve_extprograms) is not installed (apt-get install dovecot-sieve)"),
            arguments: ["error", "no spool"])
        func sieveForgedPassThrough(path: String) throws {
            let (input, stripped) = try Self.forgedSample(longLine: path == "no spool" ? 3 << 20 : 0)
            let stored = try Self.sieveDeliver(
                input, "sieve forged, \(path)", options: Self.filterOptions + (path == "error" ? ["--now", "yesterday"] : []),
                script: Self.forgedFieldScript, mailbox: "Control",
                environment: path == "no spool" ? ["TMPDIR=/nonexistent/reservoir-no-spool"] : [])
            Self.checkForgedDelivery(stored, stripped: stripped, "sieve forged, \(path)")
            #expect(stored == Self.lf(stripped), "sieve forged, \(path): not passed through")
        }
    }
}
