import DNSTestSupport
import Foundation
import Glibc
import PostgresTestSupport
import Testing

extension ProcessSuites {
    /// Forged `Authentication-Results` (claiming the filter's authserv-id) and `X-Reservation`
    /// fields through the built filter, on every path that writes mail out: none survives, the
    /// controls (another authserv-id's result, unrelated fields) come out byte for byte.
    @Suite("forged fields never leave the filter", .serialized)
    struct ForgedFieldTests {
        /// Fields a sender forges: removed on every path.
        static let forged = [
            "Authentication-Results: mx.test; dkim=pass header.d=epicsteak.example (FORGED)\n",
            "X-Reservation: Restaurant FORGED 2031-05-12 19:30 -07:00 confirmed #IWDSCA\n",
            "authentication-results : \"MX.TEST\" 1;\n\tdkim=pass (FORGED)\n",
            "Authentication-Results mx.test; dkim=pass (FORGED)\n",
            "Authentication-Results: MX.test; dkim=pass header.d=epicsteak.example (FORGED after a line without a colon)\n",
        ]
        /// Controls: kept byte for byte.
        static let control = "Authentication-Results: other.example; dkim=fail header.d=control.example (CONTROL)\n"
        static let garbage = "X-Garbage line without a colon (CONTROL)\n"

        /// `message` with the forged fields and the controls at the end of its header, one forged
        /// field after a line without a colon (which ends the header for Reservoir's own reader,
        /// not for Dovecot's); and what must come out of it once the forged fields are gone.
        static func withForgedFields(_ message: Data, longLine: Int = 0) -> (input: Data, stripped: Data) {
            let long = longLine > 0 ? "X-Long: " + String(repeating: "a", count: longLine) + "\n" : ""
            let head = "Received: from relay.example by mx.test; Tue, 17 Nov 2026 07:21:50 +0000\n" + long
            let block = head + forged[0] + control + forged[1] + forged[2] + garbage + forged[3] + forged[4]
            let kept = head + control + garbage
            let end = message.range(of: Data("\n\n".utf8)).map { $0.lowerBound + 1 } ?? message.count
            let (header, rest) = (message.prefix(upTo: end), message.suffix(from: end))
            return (header + Data(block.utf8) + rest, header + Data(kept.utf8) + rest)
        }

        /// No forged field and both controls in `output`, which ends with `stripped`.
        static func check(_ output: Data, stripped: Data, _ what: String) {
            let text = String(decoding: output, as: UTF8.self)
            #expect(!text.contains("FORGED"), "\(what): a forged field survived: \(text.prefix(600))")
            #expect(
                text.components(separatedBy: control).count == 2 && text.components(separatedBy: garbage).count == 2,
                "\(what): a control did not survive once")
            #expect(
                output.count >= stripped.count && output.suffix(stripped.count) == stripped,
                "\(what): the message less the forged fields is not intact (\(output.count) bytes out)")
        }

        /// The field the filter writes when its time budget runs out.
        static let timeoutField = "Authentication-Results: mx.test;\n\tdkim=temperror reason=\"time budget exceeded\"\n"

        static var options: [String] {
            [
                "--keys", ReservoirBinary.keys, "--allowed-domains", ReservoirBinary.allowed, "--no-store", "--authserv-id", "mx.test",
                "--now", ReservoirBinary.now,
            ]
        }

        /// `reservoir filter` and `reservoir-filter` with `arguments` on `input`.
        static func both(_ arguments: [String], _ input: Data, environment: [String: String] = [:]) throws -> [ReservoirBinary.Result] {
            [
                try ReservoirBinary.run(["filter"] + arguments, stdin: input, environment: environment),
                try ReservoirBinary.run(arguments, stdin: input, environment: environment, executable: ReservoirBinary.filterExecutable),
            ]
        }

        @Test("normal path: our fields on top, the forged ones gone, the rest byte for byte", arguments: [1, 4, 7])
        func normal(number: Int) throws {
            let (input, stripped) = Self.withForgedFields(try ReservoirBinary.sampleMessage(number))
            for r in try Self.both(Self.options, input) {
                #expect(r.status == 0, "\(r.stderr)")
                Self.check(r.stdout, stripped: stripped, "sample \(number)")
                #expect(r.text.hasPrefix("Authentication-Results: mx.test;"), "\(r.text.prefix(300))")
            }
        }

        @Test(
            "a folded obsolete From field first is a field, not an envelope line: our fields go before it",
            arguments: ["From : Jane <jane@example.com>\n Tue Nov 17 07:21:50 2026\n", "From :\n jane@example.com\n"])
        func obsoleteFromFirst(first: String) throws {
            let input = Data((first + "Subject: s\nX-Reservation: FORGED\n\nbody\n").utf8)
            for r in try Self.both(Self.options, input) {
                #expect(r.status == 0)
                #expect(r.text.hasPrefix("Authentication-Results: mx.test;\n\tdkim=none\n" + first + "Subject: s\n\nbody\n"), "\(r.text)")
            }
        }

        @Test("an error before the analysis passes the message through less the forged fields, nothing added")
        func errorPath() throws {
            let (input, stripped) = Self.withForgedFields(try ReservoirBinary.sampleMessage(1))
            for r in try Self.both(Self.options + ["--now", "yesterday"], input) {
                #expect(r.status == 0)
                #expect(r.stdout == stripped, "\(r.text.prefix(600))")
                #expect(r.stderr.contains("without results"))
            }
        }

        @Test("a header longer than the part held in memory: forged fields after a 3 MB line go from the spooled message")
        func spooledHeader() throws {
            let (input, stripped) = Self.withForgedFields(try ReservoirBinary.sampleMessage(1), longLine: 3 << 20)
            for r in try Self.both(Self.options, input) {
                #expect(r.status == 0, "\(r.stderr)")
                Self.check(r.stdout, stripped: stripped, "spooled")
                #expect(r.text.hasPrefix("Authentication-Results: mx.test;"))
            }
        }

        @Test("no spool file can be written: the message streams through less the forged fields")
        func spoolFailure() throws {
            let (input, stripped) = Self.withForgedFields(try ReservoirBinary.sampleMessage(1), longLine: 3 << 20)
            for r in try Self.both(Self.options, input, environment: ["TMPDIR": "/nonexistent/reservoir-no-spool"]) {
                #expect(r.status == 0)
                #expect(r.stderr.contains("without analysis"), "\(r.stderr)")
                #expect(r.stdout == stripped, "\(r.stdout.count) bytes out, \(stripped.count) expected")
            }
        }

        /// Runs `executable` (with `prefix`) over `input` against a nameserver that never answers,
        /// with a 1 s budget and SIGALRM blocked at the start, as some supervisors start children.
        static func overBudget(_ input: Data, executable: String, prefix: [String]) throws -> (status: Int32, stdout: Data, elapsed: Double) {
            let server = FaultTests.LoopbackNameserver { _ in nil }
            defer { server.stop() }
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            try input.write(to: URL(fileURLWithPath: tmp.path + "/msg"))
            let started = Date()
            let r = try ChildProcess.capture(
                [executable] + prefix + [
                    "--dns-server", "127.0.0.1:\(server.port)", "--dns-timeout", "30",
                    "--timeout", "1", "--no-store", "--authserv-id", "mx.test",
                    "--allowed-domains", ReservoirBinary.allowed, "--now", ReservoirBinary.now,
                ],
                stdin: tmp.path + "/msg", blocking: [SIGALRM])
            return (r.status, r.stdout, Date().timeIntervalSince(started))
        }

        @Test(
            "time budget: the message goes out less the forged fields, with our temperror result on top",
            arguments: [0, 3 << 20])
        func timeBudget(longLine: Int) throws {
            let (input, stripped) = Self.withForgedFields(try ReservoirBinary.sampleMessage(1), longLine: longLine)
            for (executable, prefix) in [(ReservoirBinary.executable.path, ["filter"]), (ReservoirBinary.filterExecutable.path, [])] {
                let r = try Self.overBudget(input, executable: executable, prefix: prefix)
                #expect(r.status == 0)
                #expect(r.elapsed < 10, "the filter took \(r.elapsed) s with a 1 s budget")
                #expect(
                    r.stdout == Data(Self.timeoutField.utf8) + stripped,
                    "\(executable): \(String(decoding: r.stdout.prefix(400), as: UTF8.self))")
            }
        }

        @Test("time budget with an mbox envelope line: it stays first, our field after it")
        func timeBudgetEnvelope() throws {
            let envelope = Data("From no-reply@epicsteak.example Tue Nov 17 07:21:50 2026\n".utf8)
            let (input, stripped) = Self.withForgedFields(try ReservoirBinary.sampleMessage(1))
            let r = try Self.overBudget(envelope + input, executable: ReservoirBinary.filterExecutable.path, prefix: [])
            #expect(r.status == 0)
            #expect(r.stdout == envelope + Data(Self.timeoutField.utf8) + stripped)
        }
    }
}
