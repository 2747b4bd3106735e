import Foundation
import PostgresTestSupport
import TestRequirements
import Testing

/// `reservoir serve` as a subscriber, a browser and an attacker meet it: the built binaries on
/// 127.0.0.1, Debian's curl, python3-icalendar and headless Chromium.
extension ProcessSuites {
    @Suite("reservoir serve: the feed and the page over HTTP", .serialized)
    struct ServeCLITests {
        static let curl = "/usr/bin/curl"
        static let chromium = "/usr/bin/chromium"
        static var hasCurl: Bool { FileManager.default.isExecutableFile(atPath: curl) }
        static var hasChromium: Bool { hasCurl && FileManager.default.isExecutableFile(atPath: chromium) }
        static var hasICalendar: Bool { hasCurl && ICalendarExportCLITests.pythonICalendar }

        /// A Maildir of the samples without the moved (M2) and cancelled (M3) dinner, scanned
        /// into a new store; the two changes are ingested by the tests.
        static func store(_ tmp: TemporaryDirectory, options: [String] = []) throws -> String {
            let maildir = tmp.path + "/Maildir"
            let manager = FileManager.default
            for folder in ["cur", "new", "tmp"] {
                try manager.createDirectory(atPath: "\(maildir)/\(folder)", withIntermediateDirectories: true)
            }
            for folder in ["cur", "new"] {
                let source = ReservoirBinary.samples.appendingPathComponent(folder).path
                for name in try manager.contentsOfDirectory(atPath: source) where !name.contains(".M2P") && !name.contains(".M3P") {
                    try manager.copyItem(atPath: "\(source)/\(name)", toPath: "\(maildir)/\(folder)/\(name)")
                }
            }
            let store = "sqlite:\(tmp.path)/events.sqlite3"
            let scan = try ReservoirBinary.run(
                [
                    "scan", maildir, "--keys", ReservoirBinary.keys, "--allow-any-domain", "--store", store, "--now", ReservoirBinary.now,
                ] + options)
            #expect(scan.status == 0, "\(scan.stderr)")
            return store
        }

        static func ingest(_ sample: Int, into store: String) throws {
            let result = try ReservoirBinary.run([
                "ingest", try ReservoirBinary.sample(sample), "--keys", ReservoirBinary.keys, "--allow-any-domain",
                "--store", store, "--now", ReservoirBinary.now,
            ])
            #expect(result.status == 0, "\(result.stderr)")
        }

        /// ``store(_:)`` with the dinner moved and then cancelled (samples M2 and M3).
        static func storeWithChanges(_ tmp: TemporaryDirectory, options: [String] = []) throws -> String {
            let store = try store(tmp, options: options)
            try ingest(2, into: store)
            try ingest(3, into: store)
            return store
        }

        /// `reservoir serve` running until ``stop()``.
        final class Server {
            let process = Process()
            let output: String
            let errors: String
            let port: Int
            var base: String { "http://127.0.0.1:\(port)" }

            init(_ arguments: [String], tmp: TemporaryDirectory, environment: [String: String] = [:]) throws {
                port = try LoopbackPort.free()
                output = tmp.path + "/serve-\(port).out"
                errors = tmp.path + "/serve-\(port).err"
                _ = FileManager.default.createFile(atPath: output, contents: nil)
                _ = FileManager.default.createFile(atPath: errors, contents: nil)
                process.executableURL = ReservoirBinary.executable
                process.arguments = ["serve", "--listen", "127.0.0.1:\(port)", "--now", ReservoirBinary.now] + arguments
                if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new } }
                process.standardOutput = FileHandle(forWritingAtPath: output)
                process.standardError = FileHandle(forWritingAtPath: errors)
                try process.run()
                let deadline = Date().addingTimeInterval(30)
                while Date() < deadline, process.isRunning {
                    if (try? String(contentsOfFile: output, encoding: .utf8))?.contains("listening on") == true { return }
                    Thread.sleep(forTimeInterval: 0.05)
                }
                stop()
                Issue.record("reservoir serve did not start: \((try? String(contentsOfFile: errors, encoding: .utf8)) ?? "")")
                throw CocoaError(.executableLoad)
            }

            /// SIGTERM, then the exit status (SIGKILL after 10 s).
            @discardableResult
            func stop() -> Int32 {
                guard process.isRunning else { return process.terminationStatus }
                process.terminate()
                let deadline = Date().addingTimeInterval(10)
                while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
                if process.isRunning { kill(process.processIdentifier, SIGKILL) }
                process.waitUntilExit()
                return process.terminationStatus
            }

            var log: String { (try? String(contentsOfFile: errors, encoding: .utf8)) ?? "" }
            var stdout: String { (try? String(contentsOfFile: output, encoding: .utf8)) ?? "" }
        }

        struct Reply {
            var status: Int
            var headers: [String: String]
            var body: Data
            var text: String { String(decoding: body, as: UTF8.self) }
        }

        /// One request with curl; header names lowercased.
        static func curl(_ url: String, _ options: [String] = [], tmp: TemporaryDirectory) throws -> Reply {
            let headerFile = tmp.path + "/headers"
            let bodyFile = tmp.path + "/body"
            try? FileManager.default.removeItem(atPath: bodyFile)
            let result = try ReservoirBinary.run(
                ["-s", "--max-time", "20", "-D", headerFile, "-o", bodyFile, "-w", "%{http_code}"] + options + [url],
                executable: URL(fileURLWithPath: curl))
            #expect(result.status == 0, "curl \(url): \(result.stderr)")
            var headers: [String: String] = [:]
            for line in try String(contentsOfFile: headerFile, encoding: .utf8).split(separator: "\r\n") {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            let body = (try? Data(contentsOf: URL(fileURLWithPath: bodyFile))) ?? Data()
            return Reply(status: Int(result.text) ?? 0, headers: headers, body: body)
        }

        @Test(
            "the feed: 200 with a strong ETag, 304 for it, HEAD, a new ETag after a change, 404 elsewhere",
            .enabled(if: Requirement.met(hasCurl), "curl is not installed (apt-get install curl)"))
        func feed() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let store = try Self.store(tmp)
            let server = try Server(["--store", store], tmp: tmp)
            defer { server.stop() }
            let url = server.base + "/calendar.ics"

            let first = try Self.curl(url, tmp: tmp)
            #expect(first.status == 200)
            #expect(first.headers["content-type"] == "text/calendar; charset=utf-8")
            let tag = try #require(first.headers["etag"])
            #expect(tag.count == 66 && tag.hasPrefix("\"") && !tag.hasPrefix("W/"))
            #expect(first.headers["last-modified"]?.hasSuffix(" GMT") == true)
            #expect(first.text.hasPrefix("BEGIN:VCALENDAR\r\n") && first.text.contains("SUMMARY:Reservation: EPIC Steak\r\n"))

            // An unchanged store is the same bytes, hence the same tag.
            let second = try Self.curl(url, tmp: tmp)
            #expect(second.body == first.body && second.headers["etag"] == tag)

            let notModified = try Self.curl(url, ["-H", "If-None-Match: \(tag)"], tmp: tmp)
            #expect(notModified.status == 304 && notModified.body.isEmpty && notModified.headers["etag"] == tag)
            let listed = try Self.curl(url, ["-H", "If-None-Match: \"nope\", \(tag)"], tmp: tmp)
            #expect(listed.status == 304)
            let star = try Self.curl(url, ["-H", "If-None-Match: *"], tmp: tmp)
            #expect(star.status == 304)
            let since = try Self.curl(url, ["-H", "If-Modified-Since: \(first.headers["last-modified"] ?? "")"], tmp: tmp)
            #expect(since.status == 304)
            let head = try Self.curl(url, ["-I"], tmp: tmp)
            // curl -I writes the header block where the body would go.
            #expect(head.status == 200 && !head.text.contains("BEGIN:VCALENDAR") && head.headers["etag"] == tag)
            #expect(head.headers["content-length"] == String(first.body.count))

            // The moved dinner: another body, another tag; the old tag no longer matches.
            try Self.ingest(2, into: store)
            let moved = try Self.curl(url, ["-H", "If-None-Match: \(tag)"], tmp: tmp)
            #expect(moved.status == 200)
            let movedTag = try #require(moved.headers["etag"])
            #expect(movedTag != tag)
            #expect(moved.text.contains("SEQUENCE:1\r\n"))

            for path in ["/nothing", "/calendar.ics/x", "/index.html"] {
                #expect(try Self.curl(server.base + path, tmp: tmp).status == 404, "\(path)")
            }
            #expect(try Self.curl(url, ["-X", "POST"], tmp: tmp).status == 405)
            #expect(server.stop() == 0, "SIGTERM ends it cleanly: \(server.log)")
        }

        @Test(
            "python3-icalendar reads the served feed: UIDs, SEQUENCE and STATUS as reservoir events --json lists them",
            .enabled(if: Requirement.met(hasICalendar), "curl or python3-icalendar is not installed (apt-get install curl python3-icalendar)"))
        func feedReadByPeer() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let store = try Self.storeWithChanges(tmp)
            let server = try Server(["--store", store], tmp: tmp)
            defer { server.stop() }
            let feed = try Self.curl(server.base + "/calendar.ics", tmp: tmp)
            #expect(feed.status == 200)
            let script = """
                import sys, icalendar
                cal = icalendar.Calendar.from_ical(sys.stdin.buffer.read())
                for ev in cal.walk('VEVENT'):
                    print('%s|%s|%s' % (ev.get('UID'), ev.get('SEQUENCE'), ev.get('STATUS')))
                """
            let parsed = try ReservoirBinary.run(
                ["-c", script], stdin: feed.body, executable: URL(fileURLWithPath: ICalendarExportCLITests.python))
            #expect(parsed.status == 0, "\(parsed.stderr)")
            let json = try ReservoirBinary.run(["events", "--json", "--all", "--store", store])
            let events = try #require(try JSONSerialization.jsonObject(with: json.stdout) as? [[String: Any]])
            let expected = Set(
                events.map { event -> String in
                    "\(event["uid"] as? String ?? "")|\(event["sequence"] ?? "")|\((event["status"] as? String ?? "").uppercased())"
                })
            let served = Set(parsed.text.split(separator: "\n").map(String.init))
            #expect(events.count == 6)
            #expect(served == expected)
            #expect(served.contains("IWDSCA_1_epicsteak.example@reservoir|2|CANCELLED"))
        }

        @Test(
            "a token: only /TOKEN/ answers, a wrong token is 404, the token never printed; an open token file is refused",
            .enabled(if: Requirement.met(hasCurl), "curl is not installed (apt-get install curl)"))
        func token() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let store = try Self.store(tmp)
            let secret = "k3Jq9-ZpX2vLm8Rt4yWc"
            let tokenFile = tmp.path + "/token"
            try Data((secret + "\n").utf8).write(to: URL(fileURLWithPath: tokenFile))
            chmod(tokenFile, 0o644)
            let open = try ReservoirBinary.run(["serve", "--token-file", tokenFile, "--store", store, "--listen", "127.0.0.1:1"])
            #expect(open.status == 78)
            #expect(open.stderr.contains("mode 644") && !open.stderr.contains(secret))
            chmod(tokenFile, 0o600)

            let server = try Server(["--store", store, "--token-file", tokenFile], tmp: tmp)
            defer { server.stop() }
            #expect(try Self.curl(server.base + "/\(secret)/calendar.ics", tmp: tmp).status == 200)
            let page = try Self.curl(server.base + "/\(secret)/", tmp: tmp)
            #expect(page.status == 200 && page.text.contains("/\(secret)/calendar.ics"))
            for path in ["/calendar.ics", "/", "/k3Jq9-ZpX2vLm8Rt4yWd/calendar.ics", "/\(secret.dropLast())/calendar.ics", "/\(secret)"] {
                #expect(try Self.curl(server.base + path, tmp: tmp).status == 404, "\(path)")
            }
            // The address it prints is the one that answers, with the token left out.
            let said = server.stdout
            let printed = try #require(said.split(separator: " ").first { $0.hasPrefix("http://") }.map(String.init), "\(said)")
            #expect(printed == server.base + "/<token>/" && said.contains(tokenFile), "\(said)")
            #expect(try Self.curl(printed.replacingOccurrences(of: "<token>", with: secret), tmp: tmp).status == 200)
            #expect(server.stop() == 0)
            #expect(!server.stdout.contains(secret) && !server.log.contains(secret))
        }

        @Test(
            "one token per account: every token against every feed and page shows its own account's bookings and no other's",
            .enabled(if: Requirement.met(hasCurl), "curl is not installed (apt-get install curl)"))
        func accountTokens() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let store = "sqlite:\(tmp.path)/site.sqlite3"
            let environment = try AccountsCLITests.siteConfiguration(in: tmp.path)
            // The dinner is Jane's, the flight Joe's, the hotel the third account's.
            let bookings = [("jane@example.org", 1, "IWDSCA"), ("joe@example.org", 4, "K7Q2PX"), ("Jane@Bücher.Example", 5, "HV-20310603-5521")]
            for (account, sample, _) in bookings {
                let r = try ReservoirBinary.run(
                    [
                        "ingest", try ReservoirBinary.sample(sample), "--keys", ReservoirBinary.keys, "--allowed-domains",
                        ReservoirBinary.allowed, "--store", store, "--account", account, "--now", ReservoirBinary.now,
                    ], environment: environment)
                #expect(r.status == 0, "\(r.stderr)")
            }
            let tokens = [
                ("jane-phone-0123456789", "jane@example.org"), ("jane-laptop-012345678", "jane@example.org"),
                ("joe-token-0123456789ab", "joe@example.org"), ("third-token-0123456789", "Jane@Bücher.Example"),
            ]
            let tokenFile = tmp.path + "/tokens"
            try ("# TOKEN ACCOUNT\n" + tokens.map { "\($0.0) \($0.1)" }.joined(separator: "\n") + "\n").write(
                toFile: tokenFile, atomically: true, encoding: .utf8)
            chmod(tokenFile, 0o600)
            let server = try Server(["--store", store, "--token-file", tokenFile], tmp: tmp, environment: environment)
            defer { server.stop() }
            #expect(server.stdout.contains("one token per account, 3 accounts"), "\(server.stdout)")
            for (token, account) in tokens {
                let own = bookings.first { $0.0 == account }?.2 ?? "?"
                for path in ["/calendar.ics", "/"] {
                    let reply = try Self.curl(server.base + "/\(token)" + path, tmp: tmp)
                    #expect(reply.status == 200, "\(token)\(path)")
                    #expect(reply.text.contains(own), "\(token)\(path) lacks its account's \(own)")
                    for (_, _, other) in bookings where other != own {
                        #expect(!reply.text.contains(other), "\(token)\(path) shows another account's \(other)")
                    }
                }
            }
            // Nothing in a request names another account: paths that try are not found.
            for path in [
                "/calendar.ics", "/jane-phone-0123456789/../joe-token-0123456789ab/calendar.ics",
                "/jane-phone-0123456789/joe@example.org/calendar.ics", "/joe@example.org/calendar.ics", "/jane-phone-012345678/",
            ] {
                #expect(try Self.curl(server.base + path, ["--path-as-is"], tmp: tmp).status == 404, "\(path)")
            }
            #expect(server.stop() == 0)
            for (token, _) in tokens { #expect(!server.stdout.contains(token) && !server.log.contains(token)) }
            // One netrc login per account: the login is the account.
            let netrc = tmp.path + "/netrc"
            try """
            machine 127.0.0.1 login jane@example.org password pw-jane
            machine 127.0.0.1 login joe@example.org password pw-joe

            """.write(toFile: netrc, atomically: true, encoding: .utf8)
            chmod(netrc, 0o600)
            let basic = try Server(["--store", store, "--netrc", netrc], tmp: tmp, environment: environment)
            defer { basic.stop() }
            #expect(basic.stdout.contains("one --netrc login per account, 2 logins"), "\(basic.stdout)")
            for (user, password, own, other) in [
                ("jane@example.org", "pw-jane", "IWDSCA", "K7Q2PX"), ("joe@example.org", "pw-joe", "K7Q2PX", "IWDSCA"),
            ] {
                let reply = try Self.curl(basic.base + "/calendar.ics", ["-u", "\(user):\(password)"], tmp: tmp)
                #expect(reply.status == 200 && reply.text.contains(own) && !reply.text.contains(other), "\(user): \(reply.status)")
            }
            #expect(try Self.curl(basic.base + "/calendar.ics", ["-u", "joe@example.org:pw-jane"], tmp: tmp).status == 401)
            #expect(basic.stop() == 0)
            // A file mixing a bare token with TOKEN ACCOUNT lines, or naming no address, is refused with its line.
            try "jane-phone-0123456789 jane@example.org\njoe-token-0123456789ab joe\n".write(toFile: tokenFile, atomically: true, encoding: .utf8)
            chmod(tokenFile, 0o600)
            let bad = try ReservoirBinary.run(["serve", "--token-file", tokenFile, "--store", store, "--listen", "127.0.0.1:1"])
            #expect(bad.status == 78 && bad.stderr.contains("\(tokenFile):2:") && !bad.stderr.contains("joe-token"), "\(bad.stderr)")
        }

        @Test(
            "HTTP Basic against a netrc entry: curl --netrc-file gets in, no or wrong credentials get 401 and the challenge",
            .enabled(if: Requirement.met(hasCurl), "curl is not installed (apt-get install curl)"))
        func basic() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let store = try Self.store(tmp)
            let netrc = tmp.path + "/netrc"
            try Data("machine 127.0.0.1\n  login me\n  password \"correct horse\"\n".utf8).write(to: URL(fileURLWithPath: netrc))
            chmod(netrc, 0o640)
            let open = try ReservoirBinary.run(["serve", "--netrc", netrc, "--store", store, "--listen", "127.0.0.1:1"])
            #expect(open.status == 78 && open.stderr.contains("mode 640") && !open.stderr.contains("correct horse"))
            chmod(netrc, 0o600)
            let server = try Server(["--store", store, "--netrc", netrc], tmp: tmp)
            defer { server.stop() }
            let url = server.base + "/calendar.ics"
            #expect(try Self.curl(url, ["--netrc-file", netrc], tmp: tmp).status == 200)
            #expect(try Self.curl(url, ["-u", "me:correct horse"], tmp: tmp).status == 200)
            for options in [[], ["-u", "me:correct hors"], ["-u", "me:correct horse!"], ["-u", "you:correct horse"]] {
                let reply = try Self.curl(url, options, tmp: tmp)
                #expect(reply.status == 401, "\(options)")
                #expect(reply.headers["www-authenticate"] == "Basic realm=\"reservoir\"")
            }
            #expect(server.stop() == 0)
            #expect(!server.stdout.contains("correct horse") && !server.log.contains("correct horse"))
            // Each request is logged, the refused ones too, with nothing of their credentials.
            #expect(server.log.contains("reservoir serve: GET /calendar.ics status=401 "), "\(server.log)")
        }

        /// Full Foundation brings FoundationInternationalization and FoundationICU, whose 34 MB
        /// data table was half of `reservoir-serve` (docs/INSTALL.md): Hummingbird imports it
        /// under its default `FullFoundation` trait, which Package.swift turns off. A test build
        /// links the Swift libraries shared, so an import shows as a needed library; a static
        /// build carries ICU's data, which names itself `icudt<version>`.
        @Test(
            "no program links full Foundation or ICU's data",
            .enabled(if: Requirement.met(FileManager.default.isExecutableFile(atPath: "/usr/bin/readelf")), "needs readelf (binutils)"))
        func noFullFoundation() throws {
            let folder = ReservoirBinary.executable.deletingLastPathComponent()
            let full = ["libFoundation.so", "libFoundationInternationalization.so", "lib_FoundationICU.so", "libicudata.so", "libicuuc.so"]
            for program in ["reservoir", "reservoir-filter", "reservoir-serve", "reservoir-milter"] {
                let path = folder.appendingPathComponent(program).path
                let dynamic = try ChildProcess.capture(["/usr/bin/readelf", "-dW", path])
                let needed = String(decoding: dynamic.stdout, as: UTF8.self).split(separator: "\n").compactMap { line -> String? in
                    guard line.contains("(NEEDED)"), let open = line.firstIndex(of: "["), let close = line.lastIndex(of: "]") else { return nil }
                    return String(line[line.index(after: open)..<close])
                }
                // The control: the entries were read (every program needs the C library).
                #expect(needed.contains("libc.so.6"), "\(program): \(needed)")
                let linked = needed.filter { name in full.contains { name.hasPrefix($0) } }
                #expect(linked == [], "\(program) links \(linked)")
                let bytes = try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped)
                #expect(bytes.range(of: Data("icudt".utf8)) == nil, "\(program) holds ICU's data")
            }
        }

        @Test("reservoir serve finds reservoir-serve beside its real executable, through a symbolic link too, and says so when it is missing")
        func findsTheServer() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let alone = URL(fileURLWithPath: tmp.path + "/reservoir")
            try FileManager.default.copyItem(at: ReservoirBinary.executable, to: alone)
            let missing = try ReservoirBinary.run(["serve"], executable: alone)
            #expect(missing.status == 66)
            #expect(missing.stderr.contains("\(tmp.path)/reservoir-serve") && missing.stderr.contains("needs the reservoir-serve program"))
            let link = tmp.path + "/linked"
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: ReservoirBinary.executable.path)
            // Found and run: its own refusal, not the missing-program error.
            let linked = try ReservoirBinary.run(["serve", "--listen", "0.0.0.0:1"], executable: URL(fileURLWithPath: link))
            #expect(linked.status == 64 && linked.stderr.hasPrefix("reservoir serve: error:"))
        }

        @Test(
            "DNS rebinding: a request under a name the server was not given is 421 on every path, under its address, localhost or a --server-name it answers",
            .enabled(if: Requirement.met(hasCurl), "curl is not installed (apt-get install curl)"))
        func hostNames() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let store = try Self.store(tmp)
            let tokenFile = tmp.path + "/token"
            let token = "rebinding-token-0123456789"
            try (token + "\n").write(toFile: tokenFile, atomically: true, encoding: .utf8)
            chmod(tokenFile, 0o600)
            let server = try Server(["--store", store, "--token-file", tokenFile, "--server-name", "calendar.example.org"], tmp: tmp)
            defer { server.stop() }
            let port = server.port
            // Each name resolved to the server on loopback, as a rebinding DNS answer or a proxy would.
            func get(_ name: String, _ path: String, _ extra: [String] = []) throws -> Reply {
                try Self.curl("http://\(name):\(port)" + path, ["--resolve", "\(name):\(port):127.0.0.1"] + extra, tmp: tmp)
            }
            let paths = ["/\(token)/", "/\(token)/calendar.ics", "/", "/calendar.ics", "/\(token)/add"]
            for path in paths {
                let rebound = try get("attacker.example", path)
                #expect(rebound.status == 421, "\(path): \(rebound.text)")
                #expect(!rebound.text.contains("EPIC Steak") && !rebound.text.contains("BEGIN:VCALENDAR"), "\(path)")
                let spoofed = try Self.curl(server.base + path, ["-H", "Host: attacker.example:\(port)"], tmp: tmp)
                #expect(spoofed.status == 421, "\(path)")
                let posted = try get("attacker.example", path, ["-X", "POST", "-H", "Origin: http://attacker.example:\(port)", "--data", "x=1"])
                #expect(posted.status == 421, "\(path)")
            }
            #expect(server.log.contains("Host attacker.example:\(port)"), "\(server.log)")
            // The controls: the same requests under the server's address, localhost and the
            // configured name (a reverse proxy passes that Host on).
            for name in ["127.0.0.1", "localhost", "calendar.example.org", "CALENDAR.Example.ORG"] {
                let page = try get(name, "/\(token)/")
                #expect(page.status == 200, "\(name): \(page.text)")
                #expect(page.text.contains("EPIC Steak"), "\(name)")
                #expect(try get(name, "/\(token)/calendar.ics").text.contains("BEGIN:VCALENDAR"), "\(name)")
                #expect(try get(name, "/").status == 404, "\(name): a path without the token")
            }
        }

        @Test("without a token or credentials a non-loopback address is refused; help describes the options")
        func refusalsAndHelp() throws {
            let refused = try ReservoirBinary.run(["serve", "--listen", "0.0.0.0:8645"])
            #expect(refused.status == 64 && refused.stderr.contains("not a loopback address"))
            let help = try ReservoirBinary.run(["help", "serve"])
            let direct = try ReservoirBinary.run(["serve", "--help"])
            for text in [help.text, direct.text] {
                for option in ["--listen", "--store", "--token-file", "--netrc", "--netrc-machine", "--no-auth", "--server-name", "--now"] {
                    #expect(text.contains(option), "\(option)")
                }
            }
        }

        @Test(
            "the store named by the configuration file is served without --store; a broken file stops the server with 78",
            .enabled(if: Requirement.met(hasCurl), "curl is not installed (apt-get install curl)"))
        func storeFromConfiguration() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let store = try Self.store(tmp)
            let config = tmp.path + "/config.toml"
            try "store = \"\(store)\"\n".write(toFile: config, atomically: true, encoding: .utf8)
            let server = try Server([], tmp: tmp, environment: ["RESERVOIR_CONFIG": config])
            defer { server.stop() }
            let reply = try Self.curl(server.base + "/calendar.ics", tmp: tmp)
            #expect(reply.status == 200)
            #expect(reply.text.contains("UID:IWDSCA_1_epicsteak.example@reservoir"))

            try "store = [\n".write(toFile: config, atomically: true, encoding: .utf8)
            let broken = try ReservoirBinary.run(["serve", "--listen", "127.0.0.1:1"], environment: ["RESERVOIR_CONFIG": config])
            #expect(broken.status == 78)
            #expect(broken.stderr.contains(config))
        }

        @Test(
            "a store that cannot be read is a 503 and a log line; the server keeps serving",
            .enabled(if: Requirement.met(hasCurl), "curl is not installed (apt-get install curl)"))
        func unreadableStore() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let server = try Server(["--store", "sqlite:\(tmp.path)/missing.sqlite3"], tmp: tmp)
            defer { server.stop() }
            let reply = try Self.curl(server.base + "/calendar.ics", tmp: tmp)
            #expect(reply.status == 503)
            let store = try Self.store(tmp)
            try FileManager.default.moveItem(atPath: String(store.dropFirst("sqlite:".count)), toPath: tmp.path + "/missing.sqlite3")
            for suffix in ["-wal", "-shm"] {
                try? FileManager.default.moveItem(
                    atPath: String(store.dropFirst("sqlite:".count)) + suffix, toPath: tmp.path + "/missing.sqlite3" + suffix)
            }
            #expect(try Self.curl(server.base + "/calendar.ics", tmp: tmp).status == 200)
            #expect(server.stop() == 0)
            #expect(server.log.contains("reservoir serve: store:"))
        }

        /// A restaurant booking whose links are all `javascript:` or `data:` and whose phone is
        /// a script, unsigned: stored only under `--allow-unverified`.
        static let hostileLinks = """
            From: Bistro Nowhere <bookings@bistro-nowhere.example>
            To: jane@home.example
            Subject: Your table
            Date: Sat, 21 Nov 2026 10:00:00 +0000
            Message-ID: <hostile-links@bistro-nowhere.example>
            MIME-Version: 1.0
            Content-Type: text/html; charset=utf-8

            <html><head><script type="application/ld+json">
            {"@context": "https://schema.org", "@type": "FoodEstablishmentReservation",
             "reservationNumber": "BN-31337", "reservationStatus": "https://schema.org/ReservationConfirmed",
             "underName": {"@type": "Person", "name": "Jane Appleseed"},
             "startTime": "2031-08-01T20:00:00-07:00", "partySize": "2",
             "url": "javascript:alert(document.cookie)",
             "modifyReservationUrl": "JaVaScRiPt:alert(2)",
             "potentialAction": {"@type": "CancelAction", "target": "data:text/html;base64,PHNjcmlwdD5hbGVydCgzKTwvc2NyaXB0Pg=="},
             "reservationFor": {"@type": "FoodEstablishment", "name": "Bistro Nowhere", "telephone": "javascript:alert(4)",
               "address": {"@type": "PostalAddress", "streetAddress": "1 Main St & 2nd?x=1", "addressLocality": "Springfield"}}}
            </script></head><body><p>Your table is booked.</p></body></html>

            """

        /// Screenshots of this page over the samples (the store of ``storeWithChanges(_:options:)``
        /// with the Wallet pass trusted, and the booking of ``hostileLinks``), looked at in
        /// Chromium 156 at 412×2600 and 1280×2400 (RESERVOIR_SCREENSHOT keeps the 412 px one):
        /// - 412 px: one column, no horizontal scrolling; each card's title wraps with its
        ///   status beside or under it; "Check in" is a full blue button under the C7 412 and
        ///   C7 88 legs; the boarding pass's card leads with Boarding time 16:25, Gate N7 and
        ///   Seat 22F in bold; the hotel's phone is an underlined link; long values (the bar
        ///   code text, pass.example.cascadia-air.boarding, an organizer's address) wrap
        ///   inside their card instead of widening it; the cancelled EPIC Steak dinner comes
        ///   last under a grey "CANCELLED" heading, its title struck through, grey, with a red
        ///   "Cancelled" badge; the unsigned Bistro Nowhere booking says "not verified" in red
        ///   bold, and its scripted phone is plain text, not a link.
        /// - 1280 px: the cards in two columns of a 60rem page, read left to right by start;
        ///   the cancelled section below them; nothing is stretched across the whole screen.
        /// Seen and fixed on the way: the booking reference was shown twice (as "Booking
        /// reference" and as "Booking"), and a hotel room's description was set in the bold of
        /// gate details.
        @Test(
            "the page in headless Chromium: upcoming first, the cancelled dinner after and struck through; tel:, map and check-in links; no javascript: link; signed mail, signed pass, not verified; no overflow at 412 px",
            .enabled(if: Requirement.met(hasChromium), "chromium or curl is not installed (apt-get install chromium curl)"))
        func page() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let store = try Self.storeWithChanges(
                tmp, options: ["--pass-ca", ReservoirBinary.passCA, "--allow-pass-type", "pass.example.cascadia-air.*"])
            let hostile = tmp.path + "/hostile.eml"
            try Data(Self.hostileLinks.utf8).write(to: URL(fileURLWithPath: hostile))
            let ingested = try ReservoirBinary.run([
                "ingest", hostile, "--allow-unverified", "--allow-any-domain", "--store", store, "--now", ReservoirBinary.now,
            ])
            #expect(ingested.status == 0, "\(ingested.stderr)")
            let server = try Server(["--store", store], tmp: tmp)
            defer { server.stop() }
            let served = try Self.curl(server.base + "/", tmp: tmp)
            #expect(
                served.headers["content-security-policy"]
                    == "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
            #expect(served.headers["x-content-type-options"] == "nosniff")

            let profile = tmp.path + "/chromium"
            let common = ["--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(profile)", "--no-first-run"]
            let dom = try ReservoirBinary.run(common + ["--dump-dom", server.base + "/"], executable: URL(fileURLWithPath: Self.chromium))
            #expect(dom.status == 0, "\(dom.stderr)")
            let html = dom.text
            for (title, vouching) in [
                ("Flight: C7 412 from SFO to SEA", "cascadia-air.example <span class=\"muted\">(signed mail)</span>"),
                ("Hotel: Harborview Hotel Boston", "harborview-hotels.example <span class=\"muted\">(signed mail)</span>"),
                ("Flight: C7 413 from SEA to SFO", "pass.example.cascadia-air.boarding <span class=\"muted\">(signed pass)</span>"),
                ("Train: EC 15 from Zürich HB to Milano Centrale", "railalpina.example <span class=\"muted\">(signed mail)</span>"),
                ("Reservation: Bistro Nowhere", "not verified"),
                ("Reservation: EPIC Steak", "epicsteak.example <span class=\"muted\">(signed mail)</span>"),
            ] {
                let start = try #require(html.range(of: ">\(title)<"), "\(title)")
                let card = String(html[start.lowerBound...]).components(separatedBy: "</article>").first ?? ""
                #expect(card.contains(vouching), "\(title): \(card)")
            }
            #expect(!html.contains("DKIM"))
            #expect(!html.contains("pass:pass."))
            // Upcoming by start (the Bistro on 1 Aug 2031 last), then the cancelled dinner (12 May 2031, the soonest of all) after them.
            let order = try ["C7 412", "C7 413", "EC 15", "Bistro Nowhere", ">Cancelled</h2>", "<del>Reservation: EPIC Steak</del>"].map {
                try #require(html.range(of: $0), "\($0)").lowerBound
            }
            #expect(order == order.sorted())
            #expect(html.components(separatedBy: ">Cancelled<").count == 3)  // the heading and the dinner's badge
            // The hotel's phone dials; the sample's check-in page and the hotel's manage page are buttons.
            #expect(html.contains("<a href=\"tel:+16175550142\">+1-617-555-0142</a>"))
            #expect(html.contains("href=\"https://www.cascadia-air.example/checkin?pnr=K7Q2PX\" rel=\"noreferrer\">Check in</a>"))
            #expect(html.contains("href=\"https://www.harborview-hotels.example/manage/HV-20310603-5521\""))
            #expect(html.contains("<dt>Gate</dt><dd class=\"key\">N7</dd>"))
            // The place as one percent-encoded query value: its `&` and `?` start no parameter.
            #expect(
                html.contains(
                    "href=\"https://www.openstreetmap.org/search?query=Bistro%20Nowhere%2C%201%20Main%20St%20%26%202nd%3Fx%3D1%2C%20Springfield\""))
            // No script address became a link, and the scripted phone is text, not tel:.
            #expect(!html.lowercased().contains("href=\"javascript:"))
            #expect(!html.contains("href=\"data:"))
            #expect(html.contains("<dt>Phone</dt><dd>javascript:alert(4)</dd>"))
            #expect(html.contains("webcal://127.0.0.1:\(server.port)/calendar.ics"))

            for (width, height) in [(412, 2600), (1280, 2400)] {
                let shot = tmp.path + "/page-\(width).png"
                let screenshot = try ReservoirBinary.run(
                    common + ["--hide-scrollbars", "--screenshot=\(shot)", "--window-size=\(width),\(height)", server.base + "/"],
                    executable: URL(fileURLWithPath: Self.chromium))
                #expect(screenshot.status == 0, "\(screenshot.stderr)")
                let png = try Data(contentsOf: URL(fileURLWithPath: shot))
                #expect(png.starts(with: [0x89, 0x50, 0x4e, 0x47]))
                // A blank page compresses to a few kilobytes; text and boxes do not.
                #expect(png.count > 50_000, "\(png.count) bytes")
                if width == 412, let keep = ProcessInfo.processInfo.environment["RESERVOIR_SCREENSHOT"], !keep.isEmpty {
                    try? FileManager.default.removeItem(atPath: keep)
                    try FileManager.default.copyItem(atPath: shot, toPath: keep)
                }
            }

            // No horizontal scrolling at 412 px. The page runs no script (its policy forbids
            // it), so the served bytes are saved as a file and shown in a 412 px frame of a
            // local page whose script reads the frame's scrollWidth and clientWidth once it has
            // laid it out. Headless Chromium's own window is never narrower than 500 px, hence
            // the frame. The control: the same page with a 600 px element overflows.
            #expect(try Self.frameWidths(served.text, width: 412, tmp: tmp, common: common).overflows == false)
            let wide = served.text.replacingOccurrences(of: "</body>", with: "<div style=\"width:600px\">wide</div></body>")
            #expect(try Self.frameWidths(wide, width: 412, tmp: tmp, common: common).overflows == true)
            #expect(server.stop() == 0)
        }

        /// `page` laid out in a frame `width` px wide: its scroll width and client width, as
        /// Chromium measures them.
        static func frameWidths(
            _ page: String, width: Int, tmp: TemporaryDirectory, common: [String]
        ) throws -> (scroll: Int, client: Int, overflows: Bool) {
            let name = "framed-\(UUID().uuidString).html"
            try Data(page.utf8).write(to: URL(fileURLWithPath: tmp.path + "/" + name))
            let outer = tmp.path + "/frame-\(UUID().uuidString).html"
            let frame = """
                <!DOCTYPE html><html><body style="margin:0"><iframe src="\(name)" style="width:\(width)px;height:900px;border:0" \
                onload="var d=this.contentDocument.documentElement;document.body.setAttribute('data-widths',d.scrollWidth+' '+d.clientWidth)">\
                </iframe></body></html>
                """
            try Data(frame.utf8).write(to: URL(fileURLWithPath: outer))
            let dom = try ReservoirBinary.run(
                common + ["--allow-file-access-from-files", "--window-size=1280,900", "--dump-dom", "file://" + outer],
                executable: URL(fileURLWithPath: chromium))
            #expect(dom.status == 0, "\(dom.stderr)")
            let marker = "data-widths=\""
            let after = try #require(dom.text.range(of: marker), "no measure in \(dom.text)").upperBound
            let numbers = dom.text[after...].prefix { $0 != "\"" }.split(separator: " ").compactMap { Int($0) }
            try #require(numbers.count == 2, "\(numbers)")
            return (numbers[0], numbers[1], numbers[0] > numbers[1])
        }
    }
}
