import Foundation
import PostgresTestSupport
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
        static func store(_ tmp: TemporaryDirectory) throws -> String {
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
            let scan = try ReservoirBinary.run([
                "scan", maildir, "--keys", ReservoirBinary.keys, "--allow-any-domain", "--store", store, "--now", ReservoirBinary.now,
            ])
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
        static func storeWithChanges(_ tmp: TemporaryDirectory) throws -> String {
            let store = try store(tmp)
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
            .enabled(if: hasCurl, "curl is not installed (apt-get install curl)"))
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
            .enabled(if: hasICalendar, "curl or python3-icalendar is not installed (apt-get install curl python3-icalendar)"))
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
            #expect(served.contains("IWDSCA-1-epicsteak.example@reservoir|2|CANCELLED"))
        }

        @Test(
            "a token: only /TOKEN/ answers, a wrong token is 404, the token never printed; an open token file is refused",
            .enabled(if: hasCurl, "curl is not installed (apt-get install curl)"))
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
            "HTTP Basic against a netrc entry: curl --netrc-file gets in, no or wrong credentials get 401 and the challenge",
            .enabled(if: hasCurl, "curl is not installed (apt-get install curl)"))
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
        }

        /// Full Foundation brings FoundationInternationalization and FoundationICU, whose 34 MB
        /// data table was half of `reservoir-serve` (docs/INSTALL.md): Hummingbird imports it
        /// under its default `FullFoundation` trait, which Package.swift turns off. A test build
        /// links the Swift libraries shared, so an import shows as a needed library; a static
        /// build carries ICU's data, which names itself `icudt<version>`.
        @Test(
            "no program links full Foundation or ICU's data",
            .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/readelf"), "needs readelf (binutils)"))
        func noFullFoundation() throws {
            let folder = ReservoirBinary.executable.deletingLastPathComponent()
            let full = ["libFoundation.so", "libFoundationInternationalization.so", "lib_FoundationICU.so", "libicudata.so", "libicuuc.so"]
            for program in ["reservoir", "reservoir-filter", "reservoir-serve"] {
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

        @Test("without a token or credentials a non-loopback address is refused; help describes the options")
        func refusalsAndHelp() throws {
            let refused = try ReservoirBinary.run(["serve", "--listen", "0.0.0.0:8645"])
            #expect(refused.status == 64 && refused.stderr.contains("not a loopback address"))
            let help = try ReservoirBinary.run(["help", "serve"])
            let direct = try ReservoirBinary.run(["serve", "--help"])
            for text in [help.text, direct.text] {
                for option in ["--listen", "--store", "--token-file", "--netrc", "--netrc-machine", "--no-auth", "--now"] {
                    #expect(text.contains(option), "\(option)")
                }
            }
        }

        @Test(
            "the store named by the configuration file is served without --store; a broken file stops the server with 78",
            .enabled(if: hasCurl, "curl is not installed (apt-get install curl)"))
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
            #expect(reply.text.contains("UID:IWDSCA-1-epicsteak.example@reservoir"))

            try "store = [\n".write(toFile: config, atomically: true, encoding: .utf8)
            let broken = try ReservoirBinary.run(["serve", "--listen", "127.0.0.1:1"], environment: ["RESERVOIR_CONFIG": config])
            #expect(broken.status == 78)
            #expect(broken.stderr.contains(config))
        }

        @Test(
            "a store that cannot be read is a 503 and a log line; the server keeps serving",
            .enabled(if: hasCurl, "curl is not installed (apt-get install curl)"))
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

        @Test(
            "the page in headless Chromium: each upcoming booking's title and vouching domain, the cancelled one flagged; a phone-sized screenshot",
            .enabled(if: hasChromium, "chromium or curl is not installed (apt-get install chromium curl)"))
        func page() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let store = try Self.storeWithChanges(tmp)
            let server = try Server(["--store", store], tmp: tmp)
            defer { server.stop() }
            let headers = try Self.curl(server.base + "/", tmp: tmp)
            #expect(headers.headers["content-security-policy"] == "default-src 'none'; style-src 'unsafe-inline'")
            #expect(headers.headers["x-content-type-options"] == "nosniff")

            let profile = tmp.path + "/chromium"
            let common = ["--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(profile)", "--no-first-run"]
            let dom = try ReservoirBinary.run(common + ["--dump-dom", server.base + "/"], executable: URL(fileURLWithPath: Self.chromium))
            #expect(dom.status == 0, "\(dom.stderr)")
            let html = dom.text
            for (title, domain) in [
                ("Flight: C7 412 from SFO to SEA", "cascadia-air.example"), ("Flight: C7 88 from SEA to ANC", "cascadia-air.example"),
                ("Hotel: Harborview Hotel Boston", "harborview-hotels.example"),
                ("Train: EC 15 from Zürich HB to Milano Centrale", "railalpina.example"),
                ("Reservation: EPIC Steak", "epicsteak.example"),
            ] {
                #expect(html.contains(">\(title)<"), "\(title)")
                #expect(html.contains(">\(domain) <"), "\(domain)")
            }
            // The dinner is flagged cancelled, and only it.
            let dinner = try #require(html.range(of: "Reservation: EPIC Steak"))
            let article = html[..<dinner.lowerBound].components(separatedBy: "<article").last ?? ""
            #expect(article.contains("class=\"cancelled\""))
            #expect(html.components(separatedBy: ">Cancelled<").count == 2)
            #expect(html.contains("webcal://127.0.0.1:\(server.port)/calendar.ics"))

            let shot = tmp.path + "/page.png"
            let screenshot = try ReservoirBinary.run(
                common + ["--hide-scrollbars", "--screenshot=\(shot)", "--window-size=390,844", server.base + "/"],
                executable: URL(fileURLWithPath: Self.chromium))
            #expect(screenshot.status == 0, "\(screenshot.stderr)")
            let png = try Data(contentsOf: URL(fileURLWithPath: shot))
            #expect(png.starts(with: [0x89, 0x50, 0x4e, 0x47]))
            // A blank 390×844 page compresses to a few kilobytes; text and boxes do not.
            #expect(png.count > 20_000, "\(png.count) bytes")
            if let keep = ProcessInfo.processInfo.environment["RESERVOIR_SCREENSHOT"], !keep.isEmpty {
                try? FileManager.default.removeItem(atPath: keep)
                try FileManager.default.copyItem(atPath: shot, toPath: keep)
            }
            #expect(server.stop() == 0)
        }
    }
}
