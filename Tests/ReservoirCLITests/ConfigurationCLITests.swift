import Foundation
import Testing

extension ProcessSuites {
    /// The configuration file through the built programs (`RESERVOIR_CONFIG` names a file each
    /// test writes): settings from the file alone, the command line over it, `reservoir config`
    /// naming sources, `--check`, and the filter failing open, loudly, on a broken file.
    @Suite("the configuration file, as the programs read it", .serialized)
    struct ConfigurationCLITests {
        static func directory() throws -> URL {
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("reservoir-config-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            return dir
        }

        static func write(_ text: String, in dir: URL) throws -> String {
            let url = dir.appendingPathComponent("config.toml")
            try Data(text.utf8).write(to: url)
            return url.path
        }

        static func events(_ text: String) -> Int { text.components(separatedBy: "BEGIN:VEVENT").count - 1 }

        @Test("a run with nothing on the command line records the samples as the same options given on it do")
        func configOnly() throws {
            let dir = try Self.directory()
            defer { try? FileManager.default.removeItem(at: dir) }
            let config = try Self.write(
                """
                store = "sqlite:\(dir.path)/from-file.sqlite3"
                keys = "\(ReservoirBinary.keys)"
                allowed-domains = "\(ReservoirBinary.allowed)"
                include-past = true
                """, in: dir)
            let env = ["RESERVOIR_CONFIG": config]
            let scan = try ReservoirBinary.run(["scan", ReservoirBinary.samples.path], environment: env)
            #expect(scan.status == 0, "\(scan.stderr)")
            let fromFile = try ReservoirBinary.run(["events", "--ics"], environment: env)
            let store = "sqlite:\(dir.path)/from-options.sqlite3"
            let direct = try ReservoirBinary.run([
                "scan", ReservoirBinary.samples.path, "--store", store, "--keys", ReservoirBinary.keys, "--allowed-domains",
                ReservoirBinary.allowed, "--include-past",
            ])
            #expect(direct.status == 0, "\(direct.stderr)")
            let fromOptions = try ReservoirBinary.run(["events", "--ics", "--store", store])
            #expect(Self.events(fromFile.text) > 0)
            #expect(Self.events(fromFile.text) == Self.events(fromOptions.text), "\(fromFile.stderr)")
        }

        @Test("reservoir config names each setting's source; the command line replaces a key, an array whole")
        func sources() throws {
            let dir = try Self.directory()
            defer { try? FileManager.default.removeItem(at: dir) }
            let config = try Self.write(
                """
                # a comment
                allow-domain = ["a.example", "b.example"]
                timeout = 9
                store = "sqlite:\(dir.path)/events.sqlite3"
                """, in: dir)
            let r = try ReservoirBinary.run(["config", "--allow-domain", "c.example", "--timeout", "3"], environment: ["RESERVOIR_CONFIG": config])
            #expect(r.status == 0, "\(r.stderr)")
            let lines = r.text.split(separator: "\n").map(String.init)
            func line(_ key: String) -> String { lines.first { $0.hasPrefix(key + " ") } ?? "" }
            #expect(line("allow-domain").contains("[\"c.example\"]") && line("allow-domain").hasSuffix("# command line"), "\(r.text)")
            #expect(line("timeout").contains("= 3") && line("timeout").hasSuffix("# command line"), "\(r.text)")
            #expect(line("store").hasSuffix("# \(config):4"), "\(r.text)")
            #expect(line("dns-timeout").contains("= 5") && line("dns-timeout").hasSuffix("# default"), "\(r.text)")
            // A default is shown as the value in force, not as none.
            #expect(line("pending-days").contains("= 30") && line("pending-days").hasSuffix("# default"), "\(r.text)")
            // What applies without a value is said, not "(none)", where something does apply.
            #expect(line("dns-server").contains("= (the system's resolvers, /etc/resolv.conf)"), "\(r.text)")
            #expect(line("account").contains("= (the store's implicit account)"), "\(r.text)")
            #expect(line("calendar-ca").contains("= (the system's CA certificates)"), "\(r.text)")
            #expect(line("recipient-delimiter").contains("= \"+\""), "\(r.text)")
            #expect(lines.first == "# configuration file: \(config)")
        }

        @Test("every key reservoir config lists can be given to it on the command line, and is then shown from there")
        func everyKeyOnTheCommandLine() throws {
            let dir = try Self.directory()
            defer { try? FileManager.default.removeItem(at: dir) }
            let file = dir.appendingPathComponent("named.txt").path
            try Data("example.com\n".utf8).write(to: URL(fileURLWithPath: file))
            let environment = ["RESERVOIR_CONFIG": try Self.write("", in: dir)]
            let listed = try ReservoirBinary.run(["config"], environment: environment)
            #expect(listed.status == 0, "\(listed.stderr)")
            // Each row: `key = value  # source`; the file's own keys (reminders, calendar-color)
            // are no option.
            let rows = listed.text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { row -> (String, String)? in
                guard let equals = row.range(of: " = ") else { return nil }
                return (String(row[..<equals.lowerBound]).trimmingCharacters(in: .whitespaces), String(row[equals.upperBound...]))
            }.filter { !["reminders", "calendar-color"].contains($0.0) }
            #expect(rows.count > 20, "\(listed.text)")
            // A value of each key's kind, as its default shows it; a file where a string is asked.
            let special = [
                "store": "sqlite:\(dir.path)/events.sqlite3", "account": "jane@example.org", "recipient-delimiter": "-",
                "dns-server": "127.0.0.1:5353", "authserv-id": "mx.example.org", "trust-authserv-id": "mx.example.org",
                "calendar": "vdir:\(dir.path)/calendar", "retry-spool": dir.path + "/spool", "allow-domain": "example.com",
                "me": "@example.org", "allow-pass-type": "pass.com.example.event", "trust-arc-sealer": "example.net",
            ]
            var arguments = ["config"]
            for (key, shown) in rows {
                if shown.hasPrefix("false") {
                    arguments.append("--" + key)
                } else if let first = shown.first, first.isNumber {
                    arguments += ["--" + key, "7"]
                } else {
                    arguments += ["--" + key, special[key] ?? file]
                }
            }
            let given = try ReservoirBinary.run(arguments, environment: environment)
            #expect(given.status == 0, "\(arguments) \(given.stderr)")
            let lines = given.text.split(separator: "\n").map(String.init)
            for (key, _) in rows {
                let line = lines.first { $0.hasPrefix(key + " ") } ?? ""
                #expect(line.hasSuffix("# command line"), "\(key): \(line)")
            }
        }

        @Test("config --check: 0 for a valid file, 78 with the line and column of the first problem")
        func check() throws {
            let dir = try Self.directory()
            defer { try? FileManager.default.removeItem(at: dir) }
            let good = try Self.write("timeout = 5\n", in: dir)
            let ok = try ReservoirBinary.run(["config", "--check", good])
            #expect(ok.status == 0 && ok.text.contains("valid"), "\(ok.stderr)")
            for (text, position) in [
                ("timeout = 5\nallow-domain = \"a.example\"\n", ":2:1: allow-domain must be an array of strings"),
                ("timeout = 5\n\nstorage = \"x\"\n", ":3:1: unknown key storage"),
                ("timeout = 5\nme = [\"a@example.org\",\n", ":3:1: expected a value"),
                ("allow-unverified = true\n", ":1:1: allow-unverified cannot be set in the configuration file"),
            ] {
                let bad = try Self.write(text, in: dir)
                let r = try ReservoirBinary.run(["config", "--check", bad])
                #expect(r.status == 78, "\(text)")
                #expect(r.stderr.contains(bad + position), "\(r.stderr)")
            }
            let missing = try ReservoirBinary.run(["events"], environment: ["RESERVOIR_CONFIG": dir.path + "/none.toml"])
            #expect(missing.status == 78 && missing.stderr.contains("none.toml"), "\(missing.stderr)")
        }

        @Test("the commented example in contrib/ is valid")
        func example() throws {
            let path = ReservoirBinary.packageRoot.appendingPathComponent("contrib/config.toml").path
            let r = try ReservoirBinary.run(["config", "--check", path])
            #expect(r.status == 0, "\(r.stderr)")
        }

        @Test("a broken file stops other commands with 78, naming the file and line")
        func otherCommands() throws {
            let dir = try Self.directory()
            defer { try? FileManager.default.removeItem(at: dir) }
            let bad = try Self.write("timeout = \"five\"\n", in: dir)
            let r = try ReservoirBinary.run(["verify", try ReservoirBinary.sample(1)], environment: ["RESERVOIR_CONFIG": bad])
            #expect(r.status == 78)
            #expect(r.stderr.contains(bad + ":1:1: timeout must be an integer"), "\(r.stderr)")
        }

        @Test("a broken file: both filters pass the mail with X-Reservoir-Error, say why on stderr, exit 0")
        func filterFailsOpen() throws {
            let dir = try Self.directory()
            defer { try? FileManager.default.removeItem(at: dir) }
            let bad = try Self.write("keys = \"\(ReservoirBinary.keys)\"\nallowed-domains = \"epicsteak.example\"\n", in: dir)
            let message = try ReservoirBinary.sampleMessage(1)
            let forged = Data("X-Reservoir-Error: FORGED by the sender\n".utf8) + message
            for executable in [nil, ReservoirBinary.filterExecutable] {
                let r = try ReservoirBinary.run(
                    (executable == nil ? ["filter"] : []) + ["--authserv-id", "mx.test"], stdin: forged, environment: ["RESERVOIR_CONFIG": bad],
                    executable: executable ?? ReservoirBinary.executable)
                #expect(r.status == 0, "\(r.stderr)")
                // The field is folded at white space (RFC 5322 §2.2.3); unfolded, it reads whole.
                let unfolded = r.text.replacingOccurrences(of: "\n ", with: " ")
                #expect(unfolded.hasPrefix("X-Reservoir-Error: configuration: \(bad):2:1: allowed-domains takes a file"), "\(r.text.prefix(300))")
                #expect(!r.text.contains("FORGED") && !r.text.contains("Authentication-Results: mx.test"), "\(r.text.prefix(300))")
                #expect(r.stdout.suffix(message.count) == message, "the message goes out unchanged")
                #expect(r.stderr.contains("configuration: \(bad):2:1"), "\(r.stderr)")
            }
        }

        @Test("a broken file and a message the filter cannot spool: still passed with X-Reservoir-Error, after the envelope line")
        func filterFailsOpenUnspooled() throws {
            let dir = try Self.directory()
            defer { try? FileManager.default.removeItem(at: dir) }
            let bad = try Self.write("timeout = \"five\"\n", in: dir)
            // Past what the filter holds in memory, with no writable TMPDIR: streamed through.
            let envelope = Data("From bookings@epicsteak.example Thu Nov 12 09:14:03 2026\n".utf8)
            let message = try ReservoirBinary.sampleMessage(1) + Data(repeating: UInt8(ascii: "x"), count: 3 << 20) + Data("\n".utf8)
            for executable in [nil, ReservoirBinary.filterExecutable] {
                let r = try ReservoirBinary.run(
                    (executable == nil ? ["filter"] : []) + ["--authserv-id", "mx.test"], stdin: envelope + message,
                    environment: ["RESERVOIR_CONFIG": bad, "TMPDIR": "/nonexistent/reservoir-no-spool"],
                    executable: executable ?? ReservoirBinary.executable)
                #expect(r.status == 0, "\(r.stderr)")
                #expect(r.stdout.prefix(envelope.count) == envelope)
                let rest = r.stdout.dropFirst(envelope.count)
                #expect(String(decoding: rest.prefix(40), as: UTF8.self).hasPrefix("X-Reservoir-Error: configuration:"))
                #expect(rest.suffix(message.count) == message, "the message goes out unchanged")
                #expect(r.stderr.contains("without analysis"), "\(r.stderr)")
            }
        }

        @Test("a sender's X-Reservoir-Error never leaves the filter, whatever its spelling")
        func forgedErrorField() throws {
            let message = try ReservoirBinary.sampleMessage(1)
            let forged = Data("x-reservoir-error : FORGED\nX-Reservoir-Error: FORGED\n\tcontinued\nX-Reservoir-Error\n".utf8) + message
            for executable in [ReservoirBinary.executable, ReservoirBinary.filterExecutable] {
                let r = try ReservoirBinary.run(
                    (executable == ReservoirBinary.executable ? ["filter"] : []) + ProcessSuites.ForgedFieldTests.options, stdin: forged,
                    executable: executable)
                #expect(r.status == 0, "\(r.stderr)")
                #expect(!r.text.contains("FORGED") && !r.text.lowercased().contains("x-reservoir-error"), "\(r.text.prefix(400))")
                #expect(r.stdout.suffix(message.count - 200) == message.suffix(message.count - 200))
            }
        }

        @Test("a domain given as a file, or a path as a domain: exit 64 naming the option meant")
        func misplacedOptions() throws {
            let r = try ReservoirBinary.run(["scan", ReservoirBinary.samples.path, "--no-store", "--allowed-domains", "epicsteak.example"])
            #expect(r.status == 64 && r.stderr.contains("--allow-domain epicsteak.example"), "\(r.stderr)")
            let f = try ReservoirBinary.run(
                ["--allow-domain", ReservoirBinary.allowed], stdin: try ReservoirBinary.sampleMessage(1), executable: ReservoirBinary.filterExecutable
            )
            #expect(f.status == 64 && f.stderr.contains("--allowed-domains \(ReservoirBinary.allowed)"), "\(f.stderr)")
        }
    }
}
