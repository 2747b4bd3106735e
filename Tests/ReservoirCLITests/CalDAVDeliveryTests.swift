import Foundation
import PostgresTestSupport
import TestRequirements
import Testing

extension ProcessSuites {
    /// Trusted reservations delivered by the hook into a real CalDAV server (Debian's Radicale
    /// on loopback, with a password), read back with python3-caldav: the bookings, the moved one
    /// at its new time, the cancelled one cancelled, replays changing nothing; and the faults a
    /// server can have, each leaving the mail unchanged and the event waiting for `sync`.
    @Suite("calendar delivery into Radicale")
    struct CalDAVDeliveryTests {
        static let radicale = "/usr/bin/radicale"
        static let procmail = "/usr/bin/procmail"
        static let python = "/usr/bin/python3"
        static var hasRadicale: Bool { FileManager.default.isExecutableFile(atPath: radicale) }
        static var hasPythonCalDAV: Bool {
            guard let r = try? ChildProcess.capture([python, "-c", "import caldav"]) else { return false }
            return r.status == 0
        }

        /// Every event of the collection as `UID|SEQUENCE|STATUS|DTSTART|METHOD?`, read by python3-caldav
        /// (a REPORT calendar-query), sorted.
        static func events(at url: String, user: String? = "jane") throws -> [String] {
            let script = """
                import caldav, sys
                client = caldav.DAVClient(url=sys.argv[1], username=(sys.argv[2] or None), password='s3cret')
                cal = client.calendar(url=sys.argv[1])
                rows = []
                for ev in cal.events():
                    ical = ev.icalendar_instance
                    for v in ical.walk('VEVENT'):
                        rows.append('%s|%s|%s|%s|%s' % (v.get('UID'), v.get('SEQUENCE'), v.get('STATUS'),
                            v.decoded('DTSTART').strftime('%Y%m%dT%H%M%S%z'), 'METHOD' in ical))
                print('\\n'.join(sorted(rows)))
                """
            let r = try ChildProcess.capture([python, "-c", script, url, user ?? ""])
            #expect(r.status == 0, "\(String(decoding: r.stderr, as: UTF8.self))")
            return String(decoding: r.stdout, as: UTF8.self).split(separator: "\n").map(String.init)
        }

        static func filter(_ number: Int, store: String, calendar: String, netrc: String, extra: [String] = []) throws -> ReservoirBinary.Result {
            try ReservoirBinary.run(
                [
                    "--keys", ReservoirBinary.keys, "--allowed-domains", ReservoirBinary.allowed, "--now", ReservoirBinary.now,
                    "--store", store, "--authserv-id", "mx.test", "--calendar", calendar, "--netrc", netrc,
                ] + extra,
                stdin: try ReservoirBinary.sampleMessage(number), executable: ReservoirBinary.filterExecutable)
        }

        /// What the filter writes for sample `number` with no calendar and no store: the mail as it must be delivered.
        static func plain(_ number: Int) throws -> Data {
            try ReservoirBinary.run(
                [
                    "--keys", ReservoirBinary.keys, "--allowed-domains", ReservoirBinary.allowed, "--now", ReservoirBinary.now,
                    "--no-store", "--authserv-id", "mx.test",
                ], stdin: try ReservoirBinary.sampleMessage(number), executable: ReservoirBinary.filterExecutable
            ).stdout
        }

        static let expected = [
            "HV-20310603-5521_1_harborview-hotels.example@reservoir|0|CONFIRMED|20310603T000000|False",
            "IWDSCA_1_epicsteak.example@reservoir|2|CANCELLED|20310513T013000+0000|False",
            "K7Q2PX_C7412-SFO-2031-06-03_cascadia-air.example@reservoir|0|CONFIRMED|20310603T081500-0700|False",
            "K7Q2PX_C788-SEA-2031-06-03_cascadia-air.example@reservoir|0|CONFIRMED|20310603T114000-0700|False",
            "RA-9F3Z7K_EC15-Z%C3%BCrichHB-2031-07-14_railalpina.example@reservoir|0|CONFIRMED|20310714T073300+0000|False",
        ]

        /// What a scan of the whole sample Maildir puts there: the samples above, and the
        /// invitation of sample 9 at its zone's time.
        static let scanned =
            expected + ["SPA-55120%40harborview-hotels.example_1_harborview-hotels.example@reservoir|0|CONFIRMED|20310705T160000-0400|False"]

        @Test(
            "the sample Maildir through procmail into Radicale: the bookings, the move, the cancellation; replays change nothing",
            .enabled(
                if: Requirement.met(hasRadicale && hasPythonCalDAV && FileManager.default.isExecutableFile(atPath: procmail)),
                "radicale, python3-caldav and procmail are needed (apt-get install radicale python3-caldav procmail)"))
        func procmailIntoRadicaleServer() throws {
            let server = try RadicaleServer()
            defer { server.stop() }
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let maildir = tmp.path + "/Maildir"
            for sub in ["new", "cur", "tmp"] {
                try FileManager.default.createDirectory(atPath: maildir + "/" + sub, withIntermediateDirectories: true)
            }
            let command = [
                ReservoirBinary.filterExecutable.path, "--keys", ReservoirBinary.keys, "--allowed-domains", ReservoirBinary.allowed,
                "--now", ReservoirBinary.now, "--store", "sqlite:\(tmp.path)/events.sqlite3", "--authserv-id", "mx.test",
                "--calendar", server.url, "--netrc", server.netrc,
            ].joined(separator: " ")
            try """
            MAILDIR=\(maildir)/
            DEFAULT=$MAILDIR
            :0 fw
            | \(command)
            :0
            $MAILDIR

            """.write(toFile: tmp.path + "/rcfile", atomically: true, encoding: .utf8)
            func deliverAll() throws {
                for number in 1...8 {
                    try ReservoirBinary.sampleMessage(number).write(to: URL(fileURLWithPath: tmp.path + "/msg"))
                    let r = try ChildProcess.capture([Self.procmail, "-m", tmp.path + "/rcfile"], stdin: tmp.path + "/msg")
                    #expect(r.status == 0, "procmail: \(String(decoding: r.stderr, as: UTF8.self))")
                }
            }
            try deliverAll()
            #expect(try FileManager.default.contentsOfDirectory(atPath: maildir + "/new").count == 8)
            #expect(try server.events() == Self.expected)
            let etags = try server.etags()
            // The collection's tag and the five events'.
            #expect(etags.count == 6)

            try deliverAll()
            #expect(try server.etags() == etags, "a replay changed objects on the server")
            #expect(try server.events() == Self.expected)
        }

        @Test(
            "a server that is down: the mail goes out unchanged, the events wait, sync delivers them once it is up",
            .enabled(if: Requirement.met(hasRadicale && hasPythonCalDAV), "radicale and python3-caldav are needed"))
        func downThenSync() throws {
            let server = try RadicaleServer()
            server.stop()
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let store = "sqlite:\(tmp.path)/events.sqlite3"
            for number in [1, 4] {
                let r = try Self.filter(number, store: store, calendar: server.url, netrc: server.netrc)
                #expect(r.status == 0)
                #expect(r.stdout == (try Self.plain(number)))
                #expect(r.stderr.contains("unreachable"), "\(r.stderr)")
            }
            let waiting = try ReservoirBinary.run(["sync", "--store", store, "--calendar", server.url, "--netrc", server.netrc, "--json"])
            #expect(waiting.status == 75)
            #expect(waiting.text.contains("\"failure\":\"unreachable\""), "\(waiting.text)")

            let restarted = try RadicaleServer.restart(server)
            defer { restarted.stop() }
            let synced = try ReservoirBinary.run(["sync", "--store", store, "--calendar", restarted.url, "--netrc", restarted.netrc])
            #expect(synced.status == 0, "\(synced.stderr)")
            #expect(synced.text.hasSuffix("3 pushed, 0 waiting\n"), "\(synced.text)")
            #expect(try restarted.events().count == 3)
        }

        @Test(
            "wrong password: the mail goes out unchanged, the event waits with unauthorized",
            .enabled(if: Requirement.met(hasRadicale), "radicale is not installed"))
        func unauthorized() throws {
            let server = try RadicaleServer(password: "wrong")
            defer { server.stop() }
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let store = "sqlite:\(tmp.path)/events.sqlite3"
            let r = try Self.filter(1, store: store, calendar: server.url, netrc: server.netrc)
            #expect(r.status == 0)
            #expect(r.stdout == (try Self.plain(1)))
            #expect(r.stderr.contains("unauthorized"), "\(r.stderr)")
            let sync = try ReservoirBinary.run(["sync", "--store", store, "--calendar", server.url, "--netrc", server.netrc, "--json"])
            #expect(sync.status == 75)
            #expect(sync.text.contains("\"failure\":\"unauthorized\""))
        }

        @Test(
            "a calendar collection that does not exist: each event is refused with 409, and sync says to create the calendar first",
            .enabled(if: Requirement.met(hasRadicale), "radicale is not installed"))
        func missingCollection() throws {
            let server = try RadicaleServer()
            defer { server.stop() }
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let store = "sqlite:\(tmp.path)/events.sqlite3"
            let scan = try ReservoirBinary.run(
                ["scan", try ReservoirBinary.sample(1), "--keys", ReservoirBinary.keys, "--allowed-domains", ReservoirBinary.allowed]
                    + ["--now", ReservoirBinary.now, "--store", store])
            #expect(scan.status == 0, "\(scan.stderr)")
            let missing = server.url.replacingOccurrences(of: "/reservations/", with: "/reservatoins/")
            let sync = try ReservoirBinary.run(["sync", "--store", store, "--calendar", missing, "--netrc", server.netrc])
            #expect(sync.status == 75, "\(sync.text) \(sync.stderr)")
            #expect(sync.text.contains("HTTP 409") && sync.text.contains("create the calendar first (MKCALENDAR"), "\(sync.text)")
            // The calendar is not made for it: a mistyped URL must not become a calendar.
            #expect(!FileManager.default.fileExists(atPath: server.tmp.path + "/collections/collection-root/jane/reservatoins"))
        }

        @Test(
            "an edit made in the calendar with a higher SEQUENCE is kept; the store's later change does not overwrite it",
            .enabled(if: Requirement.met(hasRadicale), "radicale is not installed"))
        func concurrentEdit() throws {
            let server = try RadicaleServer()
            defer { server.stop() }
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let store = "sqlite:\(tmp.path)/events.sqlite3"
            #expect(try Self.filter(1, store: store, calendar: server.url, netrc: server.netrc).status == 0)
            let name = "IWDSCA_1_epicsteak.example@reservoir.ics"
            let edited = try server.get(name).replacingOccurrences(of: "SEQUENCE:0", with: "SEQUENCE:7")
                .replacingOccurrences(of: "SUMMARY:Reservation: EPIC Steak", with: "SUMMARY:Dinner with Ann")
            try server.put(name, edited)
            let moved = try Self.filter(2, store: store, calendar: server.url, netrc: server.netrc)
            #expect(moved.status == 0 && moved.stderr.isEmpty, "\(moved.stderr)")
            let now = try server.get(name)
            #expect(now.contains("SUMMARY:Dinner with Ann"))
            #expect(now.contains("SEQUENCE:7"))
            // The store holds its own revision; nothing waits.
            let sync = try ReservoirBinary.run(["sync", "--store", store, "--calendar", server.url, "--netrc", server.netrc])
            #expect(sync.text == "0 pushed, 0 waiting\n")
        }

        @Test("libcurl is loaded only by a run that pushes: mail without a reservation never loads it")
        func curlOnDemand() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let netrc = try Self.netrc(in: tmp)
            let calendar = "http://127.0.0.1:9/dav/reservations/"
            func loaded(_ number: Int) throws -> Bool {
                let r = try ReservoirBinary.run(
                    [
                        "--keys", ReservoirBinary.keys, "--allowed-domains", ReservoirBinary.allowed, "--now", ReservoirBinary.now,
                        "--store", "sqlite:\(tmp.path)/events.sqlite3", "--calendar", calendar, "--netrc", netrc,
                    ], stdin: try ReservoirBinary.sampleMessage(number), environment: ["LD_DEBUG": "libs"],
                    executable: ReservoirBinary.filterExecutable)
                #expect(r.status == 0)
                return r.stderr.contains("libcurl.so")
            }
            // The newsletter (no markup) and the altered message (not trusted): nothing to push.
            #expect(try !loaded(7))
            #expect(try !loaded(8))
            // A trusted booking is pushed (to a port where nothing listens): libcurl is loaded.
            #expect(try loaded(1))
        }

        static let xandikos = "/usr/bin/xandikos"

        /// A netrc file (mode 0600) with jane's password for 127.0.0.1.
        static func netrc(in tmp: TemporaryDirectory) throws -> String {
            let netrc = tmp.path + "/netrc"
            try "machine 127.0.0.1 login jane password s3cret\n".write(toFile: netrc, atomically: true, encoding: .utf8)
            chmod(netrc, 0o600)
            return netrc
        }

        @Test(
            "scan into Xandikos: the sample bookings at their revisions; a second scan and a sync change nothing",
            .enabled(
                if: Requirement.met(FileManager.default.isExecutableFile(atPath: xandikos) && hasPythonCalDAV),
                "xandikos and python3-caldav are needed (apt-get install xandikos python3-caldav)"))
        func scanIntoXandikos() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let port = try LoopbackPort.free()
            let server = Process()
            server.executableURL = URL(fileURLWithPath: Self.xandikos)
            server.arguments = ["--defaults", "-d", tmp.path + "/data", "-l", "127.0.0.1", "-p", String(port)]
            server.standardOutput = FileHandle.nullDevice
            server.standardError = FileHandle.nullDevice
            try server.run()
            defer {
                kill(server.processIdentifier, SIGKILL)
                server.waitUntilExit()
            }
            try LoopbackPort.waitUntilListening(port)
            let url = "http://127.0.0.1:\(port)/user/calendars/calendar/"
            let store = "sqlite:\(tmp.path)/events.sqlite3"
            let scan = [
                "scan", ReservoirBinary.samples.path, "--keys", ReservoirBinary.keys, "--allowed-domains", ReservoirBinary.allowed,
                "--now", ReservoirBinary.now, "--store", store, "--calendar", url,
            ]
            let first = try ReservoirBinary.run(scan)
            #expect(first.status == 0, "\(first.stderr)")
            #expect(first.stderr == "reservoir: created a new store at \(tmp.path)/events.sqlite3\n", "\(first.stderr)")
            #expect(try Self.events(at: url, user: nil) == Self.scanned)
            let again = try ReservoirBinary.run(scan + ["--rescan"])
            #expect(again.status == 0 && again.stderr.isEmpty, "\(again.stderr)")
            let sync = try ReservoirBinary.run(["sync", "--store", store, "--calendar", url])
            #expect(sync.text == "0 pushed, 0 waiting\n")
            #expect(try Self.events(at: url, user: nil) == Self.scanned)
        }

        @Test("a server that never answers: the filter ends within its time budget with the mail unchanged")
        func silentServer() throws {
            // A listening socket that accepts and says nothing.
            let silent = try LoopbackPort.silent()
            defer { close(silent.fd) }
            let url = "http://127.0.0.1:\(silent.port)/dav/reservations/"
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let netrc = try Self.netrc(in: tmp)
            let started = Date()
            let r = try Self.filter(1, store: "sqlite:\(tmp.path)/events.sqlite3", calendar: url, netrc: netrc, extra: ["--timeout", "2"])
            let seconds = Date().timeIntervalSince(started)
            #expect(r.status == 0)
            #expect(r.stdout == (try Self.plain(1)))
            #expect(seconds < 3.5, "took \(seconds) s")
            #expect(r.stderr.contains("timeout") || r.stderr.contains("out-of-time"), "\(r.stderr)")
        }
    }
}

extension RadicaleServer {
    /// A new server on the same port and collections (the one that was down comes back).
    static func restart(_ old: RadicaleServer) throws -> RestartedRadicale {
        try RestartedRadicale(directory: old.tmp.path, port: old.port, netrc: old.netrc)
    }
}

/// Radicale started again on a stopped server's files and port.
final class RestartedRadicale {
    let process = Process()
    let port: Int
    let netrc: String
    let directory: String
    var url: String { "http://127.0.0.1:\(port)/jane/reservations/" }

    init(directory: String, port: Int, netrc: String) throws {
        self.port = port
        self.netrc = netrc
        self.directory = directory
        process.executableURL = URL(fileURLWithPath: ProcessSuites.CalDAVDeliveryTests.radicale)
        process.arguments = ["--config", directory + "/config"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        try LoopbackPort.waitUntilListening(port)
    }

    func stop() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    func events() throws -> [String] { try ProcessSuites.CalDAVDeliveryTests.events(at: url) }
}

/// Radicale on a free loopback port, with user jane (password in a 0600 netrc file) and
/// the calendar /jane/reservations/.
final class RadicaleServer {
    let tmp: TemporaryDirectory
    let port: Int
    let process = Process()
    let netrc: String
    var url: String { "http://127.0.0.1:\(port)/jane/reservations/" }

    init(password: String = "s3cret") throws {
        tmp = try TemporaryDirectory()
        port = try LoopbackPort.free()
        netrc = tmp.path + "/netrc"
        let root = tmp.path + "/collections/collection-root/jane/reservations"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try #"{"tag": "VCALENDAR"}"#.write(toFile: root + "/.Radicale.props", atomically: true, encoding: .utf8)
        try "jane:s3cret\n".write(toFile: tmp.path + "/users", atomically: true, encoding: .utf8)
        try """
        [server]
        hosts = 127.0.0.1:\(port)
        [auth]
        type = htpasswd
        htpasswd_filename = \(tmp.path)/users
        htpasswd_encryption = plain
        delay = 0
        [storage]
        filesystem_folder = \(tmp.path)/collections
        [rights]
        type = owner_only
        """.write(toFile: tmp.path + "/config", atomically: true, encoding: .utf8)
        try "machine 127.0.0.1 login jane password \(password)\n".write(toFile: netrc, atomically: true, encoding: .utf8)
        chmod(netrc, 0o600)
        process.executableURL = URL(fileURLWithPath: ProcessSuites.CalDAVDeliveryTests.radicale)
        process.arguments = ["--config", tmp.path + "/config"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        try LoopbackPort.waitUntilListening(port)
    }

    func stop() {
        // SIGKILL: on SIGTERM Radicale waits for the client's keep-alive connections to close.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    deinit { tmp.remove() }

    func events() throws -> [String] { try ProcessSuites.CalDAVDeliveryTests.events(at: url) }

    /// The ETags of the collection's objects (PROPFIND, Depth 1), by href.
    func etags() throws -> [String] {
        let r = try ChildProcess.capture([
            "/usr/bin/curl", "-s", "-u", "jane:s3cret", "-X", "PROPFIND", "-H", "Depth: 1", "--data",
            #"<?xml version="1.0"?><propfind xmlns="DAV:"><prop><getetag/></prop></propfind>"#, url,
        ])
        let text = String(decoding: r.stdout, as: UTF8.self)
        return text.components(separatedBy: "getetag>").filter { $0.hasPrefix("\"") }.sorted()
    }

    /// Stores `body` as `name` over whatever is there (a person editing in a calendar app).
    func put(_ name: String, _ body: String) throws {
        let file = tmp.path + "/put.ics"
        try body.write(toFile: file, atomically: true, encoding: .utf8)
        let r = try ChildProcess.capture([
            "/usr/bin/curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "-u", "jane:s3cret", "-T", file,
            "-H", "Content-Type: text/calendar", url + name,
        ])
        #expect(["201", "204"].contains(String(decoding: r.stdout, as: UTF8.self)))
    }

    func get(_ name: String) throws -> String {
        String(decoding: try ChildProcess.capture(["/usr/bin/curl", "-s", "-u", "jane:s3cret", url + name]).stdout, as: UTF8.self)
    }
}
