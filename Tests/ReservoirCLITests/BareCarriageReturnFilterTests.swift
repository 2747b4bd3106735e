import Foundation
import PostgresTestSupport
import TestRequirements
import Testing

extension ProcessSuites {
    /// The attack corpus's bare CR cases (those with `filterReaders`) through the built filter on
    /// every path that writes mail out — the analysed message, the time budget running out, a
    /// message over 2 MB analysed from its spool, and one streamed through when no spool can be
    /// written — read by Python's `email` with both of its policies, which end lines at a bare CR
    /// where the filter's LF readers (Dovecot, procmail) do not. Neither policy may find an
    /// `X-Reservation`, an `X-Reservoir-Error` or an `Authentication-Results` claiming the
    /// filter's id other than the filter's own, and the body goes out byte for byte.
    @Suite("forged fields behind a bare CR never leave the filter", .serialized)
    struct BareCarriageReturnFilterTests {
        static let python = "/usr/bin/python3"
        static let folder = ReservoirBinary.packageRoot.appendingPathComponent("Tests/PipelineTests/Attacks")

        struct Expectation: Decodable {
            let filterReaders: Bool?
        }

        static func cases() -> [String] {
            let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            return files.filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }.sorted().filter { name in
                let data = try? Data(contentsOf: folder.appendingPathComponent(name + ".json"))
                return (data.flatMap { try? JSONDecoder().decode(Expectation.self, from: $0) })?.filterReaders == true
            }
        }

        static var hasPython: Bool { FileManager.default.isExecutableFile(atPath: python) }

        /// The ways out of the filter, and how many fields of its own each adds.
        enum Path: String, CaseIterable, CustomTestStringConvertible {
            case normal, timeBudget, spooled, passThrough
            var testDescription: String { rawValue }
            /// Our Authentication-Results: on every path that analyses (or runs out of time).
            var ownResults: Int { self == .passThrough ? 0 : 1 }
            /// Our X-Reservation fields: one per reservation, where the analysis finished.
            var ownSummaries: Int { self == .normal || self == .spooled ? 1 : 0 }
            var large: Bool { self == .spooled || self == .passThrough }
        }

        /// The header fields of each message (NUL-separated on stdin) as Python's `email` reads
        /// them with `compat32` and with `default`, as JSON.
        static let readers = """
            import sys, json, email
            from email import policy
            rows = []
            for data in sys.stdin.buffer.read().split(b'\\0'):
                row = {}
                for name, pol in (('compat32', policy.compat32), ('default', policy.default)):
                    row[name] = [[k, str(v)] for k, v in email.message_from_bytes(data, policy=pol).raw_items()]
                rows.append(row)
            print(json.dumps(rows))
            """

        static func fields(_ outputs: [Data]) throws -> [[String: [[String]]]] {
            var input = Data()
            for (index, output) in outputs.enumerated() { input += (index > 0 ? Data([0]) : Data()) + output }
            let r = try ReservoirBinary.run(["-c", readers], stdin: input, executable: URL(fileURLWithPath: python))
            #expect(r.status == 0, "\(r.stderr)")
            return try JSONDecoder().decode([[String: [[String]]]].self, from: r.stdout)
        }

        /// Whether a lenient reader takes the value for a result of `mx.test`: with comments, white
        /// space, quotes and backslashes left out, it starts with the id.
        static func claimsOurID(_ value: String) -> Bool {
            var depth = 0
            var squashed = ""
            for character in value {
                if character == "(" {
                    depth += 1
                } else if character == ")", depth > 0 {
                    depth -= 1
                } else if depth == 0, !character.isWhitespace, character != "\"", character != "\\" {
                    squashed.append(character)
                }
            }
            return squashed.lowercased().hasPrefix("mx.test")
        }

        /// What follows the first empty line (CRLF CRLF: the corpus is CRLF).
        static func body(_ message: Data) -> Data? {
            message.range(of: Data("\r\n\r\n".utf8)).map { message.suffix(from: $0.upperBound) }
        }

        static let options = [
            "--keys", ReservoirBinary.keys, "--allow-domain", "epicsteak.example", "--no-store", "--authserv-id", "mx.test",
            "--now", ReservoirBinary.now,
        ]

        @Test(
            "neither policy of Python's email finds a field of ours but the filter's, on every path",
            .enabled(if: Requirement.met(hasPython), "/usr/bin/python3 is needed"), arguments: cases(), Path.allCases)
        func filtered(_ name: String, path: Path) throws {
            let message = try Data(contentsOf: Self.folder.appendingPathComponent(name + ".eml"))
            let long = path.large ? Data(("X-Long: " + String(repeating: "a", count: 3 << 20) + "\r\n").utf8) : Data()
            let input = long + message
            var outputs: [Data] = []
            switch path {
            case .normal, .spooled:
                for r in try ForgedFieldTests.both(Self.options, input) {
                    #expect(r.status == 0, "\(r.stderr)")
                    outputs.append(r.stdout)
                }
            case .passThrough:
                for r in try ForgedFieldTests.both(Self.options, input, environment: ["TMPDIR": "/nonexistent/reservoir-no-spool"]) {
                    #expect(r.status == 0 && r.stderr.contains("without analysis"), "\(r.stderr)")
                    outputs.append(r.stdout)
                }
            case .timeBudget:
                for (executable, prefix) in [(ReservoirBinary.executable.path, ["filter"]), (ReservoirBinary.filterExecutable.path, [])] {
                    let r = try ForgedFieldTests.overBudget(input, executable: executable, prefix: prefix)
                    #expect(r.status == 0)
                    outputs.append(r.stdout)
                }
            }
            let readings = try Self.fields(outputs)
            #expect(readings.count == outputs.count)
            for (output, reading) in zip(outputs, readings) {
                #expect(Self.body(output) == Self.body(input), "\(name), \(path): the body changed")
                for (policy, fields) in reading {
                    let what = "\(name), \(path), \(policy)"
                    let named = { (field: String) in fields.filter { $0.count == 2 && $0[0].lowercased() == field } }
                    let ours = named("authentication-results").filter { Self.claimsOurID($0[1]) }
                    #expect(ours.count == path.ownResults, "\(what): \(ours)")
                    if path.ownResults > 0 {
                        #expect(
                            fields.first?.first?.lowercased() == "authentication-results" && Self.claimsOurID(fields.first?.last ?? ""), "\(what)")
                    }
                    let summaries = named("x-reservation")
                    #expect(summaries.count == path.ownSummaries, "\(what): \(summaries)")
                    #expect(!summaries.contains { $0[1].contains("FORGED") } && !ours.contains { $0[1].contains("FORGED") }, "\(what)")
                    #expect(named("x-reservoir-error").isEmpty, "\(what)")
                    if name == "bare-cr-control" {
                        // The control's fields survive: another server's result, and the field folded at a bare CR.
                        #expect(named("authentication-results").filter { $0[1].contains("(CONTROL)") }.count == 1, "\(what)")
                        #expect(named("x-note").count == 1, "\(what)")
                    }
                }
            }
        }
    }
}
