import Foundation
import PostgresTestSupport
import TestRequirements
import Testing

extension ProcessSuites {
    /// `Authentication-Results` fields that claim the filter's authserv-id only once a reader
    /// decodes them — RFC 2047 encoded words anywhere in the value (Python's `email` with
    /// `policy.default` decodes them, inside quotes and tokens too), in a comment's shadow, in
    /// another case, in UTF-16 — and `X-Reservation` fields in the same forms, through both
    /// filter programs on the analysed path and on the streamed one. Read as a downstream script
    /// reads them (Python's `email`, `policy.default`, decoded values), no field but the
    /// filter's own names our authserv-id; the controls beside them, another server's id in the
    /// same encoded form, come out byte for byte.
    @Suite("forged fields in encoded words never leave the filter", .serialized)
    struct EncodedFieldTests {
        static let python = "/usr/bin/python3"
        static var hasPython: Bool { FileManager.default.isExecutableFile(atPath: python) }

        /// Fields that claim `mx.test` once decoded; each says FORGED (in its encoded text for some).
        static let forged = [
            "Authentication-Results: =?us-ascii?Q?mx.test?=; dkim=pass header.d=epicsteak.example (FORGED 1)\n",
            "Authentication-Results: mx.=?utf-8?B?dGVzdA==?=; dkim=pass header.d=epicsteak.example (FORGED 2)\n",
            "Authentication-Results: \"=?us-ascii?Q?MX.TEST?=\" 1; dkim=pass (FORGED 3)\n",
            "Authentication-Results: (=?us-ascii?Q?c?=) =?x-unknown?B?bXgudGVzdA==?=;\n\tdkim=pass (FORGED 4)\n",
            "Authentication-Results: =?utf-16?B?//5tAHgALgB0AGUAcwB0AA==?=; dkim=pass (FORGED 5)\n",
            "Authentication-Results: =?us-ascii?Q?mx.test;_dkim=3Dpass_header.d=3Depicsteak.example_(FORGED_6)?=\n",
            "Authentication-Results: =?utf-8?Q?mx.te=C5=BFt?=; dkim=pass (FORGED 7)\n",
            "x-reservation : =?utf-8?Q?Restaurant_FORGED_8_2031-05-12?=\n",
            "X-RESERVATION:=?us-ascii?B?RkxJR0hUIEZPUkdFRCA5?=\n",
        ]
        /// Another server's results, and our id in a field that is not a result: kept byte for byte.
        static let controls = [
            "Authentication-Results: =?us-ascii?Q?mx.other.example?=; dkim=pass header.d=control.example (CONTROL 1)\n",
            "Authentication-Results: =?us-ascii?Q?mx.test.other.example?=; dkim=pass (CONTROL 2)\n",
            "Authentication-Results: other.example (=?us-ascii?Q?mx.test?=); dkim=fail (CONTROL 3)\n",
            "X-Note: =?us-ascii?Q?mx.test?=; dkim=pass (CONTROL 4)\n",
        ]

        /// `message` with the forged fields and the controls interleaved at the end of its header.
        static func withFields(_ message: Data, longLine: Int = 0) -> Data {
            let long = longLine > 0 ? "X-Long: " + String(repeating: "a", count: longLine) + "\n" : ""
            var block = long
            for (index, field) in forged.enumerated() {
                block += field
                if index < controls.count { block += controls[index] }
            }
            let end = message.range(of: Data("\n\n".utf8)).map { $0.lowerBound + 1 } ?? message.count
            return message.prefix(upTo: end) + Data(block.utf8) + message.suffix(from: end)
        }

        /// Each message's header fields (NUL-separated on stdin) as Python's `email` with
        /// `policy.default` reads them for a script: names, and values decoded (RFC 2047).
        static let reader = """
            import sys, json, email
            from email import policy
            rows = []
            for data in sys.stdin.buffer.read().split(b'\\0'):
                rows.append([[k, str(v)] for k, v in email.message_from_bytes(data, policy=policy.default).items()])
            print(json.dumps(rows))
            """

        static func decodedFields(_ messages: [Data]) throws -> [[[String]]] {
            var input = Data()
            for (index, message) in messages.enumerated() { input += (index > 0 ? Data([0]) : Data()) + message }
            let r = try ReservoirBinary.run(["-c", reader], stdin: input, executable: URL(fileURLWithPath: python))
            #expect(r.status == 0, "\(r.stderr)")
            return try JSONDecoder().decode([[[String]]].self, from: r.stdout)
        }

        /// The authserv-id a script takes from a decoded value: comments left out, the text
        /// before the first `;`, its first quoted-string or word, in lowercase.
        static func authservID(_ value: String) -> String {
            var depth = 0
            var text = ""
            for character in value {
                if character == "(" {
                    depth += 1
                } else if character == ")", depth > 0 {
                    depth -= 1
                } else if depth == 0 {
                    text.append(character)
                }
            }
            let head = (text.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? "").trimmingCharacters(
                in: .whitespacesAndNewlines)
            if head.hasPrefix("\"") {
                return String(head.dropFirst().prefix { $0 != "\"" }).trimmingCharacters(in: .whitespaces).lowercased()
            }
            return String(head.prefix { !$0.isWhitespace }).lowercased()
        }

        /// What a downstream reader finds in `fields`: the `Authentication-Results` values naming
        /// `mx.test`, and the `X-Reservation` values.
        static func ours(_ fields: [[String]]) -> (results: [String], summaries: [String]) {
            let named = { (name: String) in fields.filter { $0.count == 2 && $0[0].lowercased() == name }.map { $0[1] } }
            return (named("authentication-results").filter { authservID($0) == "mx.test" }, named("x-reservation"))
        }

        static let options = [
            "--keys", ReservoirBinary.keys, "--allowed-domains", ReservoirBinary.allowed, "--no-store", "--authserv-id", "mx.test",
            "--now", ReservoirBinary.now,
        ]

        @Test(
            "after either filter, on the analysed and the streamed path, Python's email decodes no field to our authserv-id but the filter's own; the controls stay byte for byte",
            .enabled(if: Requirement.met(hasPython), "/usr/bin/python3 is needed"), arguments: [false, true])
        func filtered(streamed: Bool) throws {
            let input = Self.withFields(try ReservoirBinary.sampleMessage(1), longLine: streamed ? 3 << 20 : 0)
            let environment = streamed ? ["TMPDIR": "/nonexistent/reservoir-no-spool"] : [:]
            var outputs: [Data] = []
            for r in try ForgedFieldTests.both(Self.options, input, environment: environment) {
                #expect(r.status == 0, "\(r.stderr)")
                #expect(!streamed || r.stderr.contains("without analysis"), "\(r.stderr)")
                outputs.append(r.stdout)
            }
            let readings = try Self.decodedFields(outputs)
            #expect(readings.count == 2)
            for (output, fields) in zip(outputs, readings) {
                let text = String(decoding: output, as: UTF8.self)
                #expect(!text.contains("FORGED"), "a forged field survived: \(text.prefix(1200))")
                for control in Self.controls {
                    #expect(text.components(separatedBy: control).count == 2, "the control did not survive once: \(control)")
                }
                let (results, summaries) = Self.ours(fields)
                // Ours alone: on the analysed path the filter's result and its summary of the
                // sample's reservation; on the streamed path nothing of ours at all.
                #expect(results.count == (streamed ? 0 : 1), "\(results)")
                #expect(summaries.count == (streamed ? 0 : 1) && !summaries.contains { $0.contains("FORGED") }, "\(summaries)")
                if !streamed { #expect(text.hasPrefix("Authentication-Results: mx.test;"), "\(text.prefix(300))") }
                // The reader does decode: the controls come out as another server's id.
                let decoded = fields.filter { $0.first?.lowercased() == "authentication-results" }.map { Self.authservID($0[1]) }
                #expect(decoded.contains("mx.other.example") && decoded.contains("mx.test.other.example"), "\(decoded)")
            }
        }
    }
}
