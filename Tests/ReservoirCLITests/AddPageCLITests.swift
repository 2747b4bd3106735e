import Foundation
import TestRequirements
import Testing

/// `reservoir add URL` against a real HTTPS server on loopback (Python's http.server in TLS,
/// a test CA made with openssl), reached under its real name through `--resolve`, each test
/// name allowed on loopback with `--allow-private-host` unless a test says otherwise.
extension ProcessSuites {
    @Suite(
        "reservoir add: confirmation pages over https",
        .enabled(if: Requirement.met(FileManager.default.isExecutableFile(atPath: PageServer.python)), "python3 is not installed"),
        .enabled(if: Requirement.met(FileManager.default.isExecutableFile(atPath: TestCertificates.openssl)), "openssl is not installed"))
    struct AddPageCLITests {
        static let host = "confirm.epicsteak.example"
        /// The names of the test certificate, each resolved to the loopback server.
        static let names = [host, "www.epicsteak.example", "pages.other-site.example"]

        /// The markup of sample 2 (EPIC Steak), as the restaurant's confirmation page would carry it.
        static let page = """
            <!DOCTYPE html><html><head><title>Reservation</title>
            <script type="application/ld+json">
            {"@context": "http://schema.org", "@type": "FoodEstablishmentReservation", "reservationId": "IWDSCA",
             "reservationStatus": "ReservationConfirmed", "partySize": "2",
             "underName": {"@type": "Person", "name": "Jane Appleseed"},
             "reservationFor": {"@type": "FoodEstablishment", "name": "EPIC Steak",
              "startTime": "2031-05-12T18:30:00-07:00",
              "address": {"@type": "PostalAddress", "streetAddress": "369 The Embarcadero",
               "addressLocality": "San Francisco", "addressRegion": "CA", "postalCode": "94105", "addressCountry": "US"}}}
            </script></head><body>Your table is booked.</body></html>
            """

        /// A directory with the certificates, the server's pages and a store path.
        struct Setup {
            let directory: TemporaryDirectory
            let certificates: TestCertificates
            var root: String { directory.path + "/root" }
            var store: String { "sqlite:" + directory.path + "/events.db" }

            init() throws {
                directory = try TemporaryDirectory()
                certificates = try TestCertificates(in: directory.path)
                try FileManager.default.createDirectory(atPath: directory.path + "/root", withIntermediateDirectories: true)
                try write("booking.html", AddPageCLITests.page)
            }

            func write(_ name: String, _ text: String) throws {
                try text.write(toFile: root + "/" + name, atomically: true, encoding: .utf8)
            }

            /// `name` answers with a 302 to `location`.
            func redirect(_ name: String, to location: String) throws {
                try write(name + ".redirect", location)
            }

            /// `name` is served with the Content-Type `type` (nil: with none).
            func serve(_ name: String, _ text: String, as type: String?) throws {
                try write(name, text)
                try write(name + ".type", type ?? "-")
            }

            /// `reservoir add` with the test CA and every test name resolved to loopback `port`,
            /// the names in `privateHosts` allowed there.
            func add(_ url: String, port: Int, _ extra: [String], caFile: String? = nil, privateHosts: [String]? = nil) throws
                -> ReservoirBinary.Result
            {
                let names = AddPageCLITests.names
                var arguments = ["add", "--json", "--now", ReservoirBinary.now, "--no-calendar", "--store", store]
                arguments += ["--ca-file", caFile ?? certificates.ca]
                for name in names { arguments += ["--resolve", "\(name):\(port):127.0.0.1"] }
                for name in privateHosts ?? names { arguments += ["--allow-private-host", name] }
                return try ReservoirBinary.run(arguments + extra + [url])
            }

            func events() throws -> [[String: Any]] {
                guard FileManager.default.fileExists(atPath: directory.path + "/events.db") else { return [] }
                let listed = try ReservoirBinary.run(["events", "--json", "--store", store])
                return try JSONSerialization.jsonObject(with: listed.stdout) as? [[String: Any]] ?? []
            }
        }

        static func json(_ result: ReservoirBinary.Result) throws -> [String: Any] {
            try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any] ?? [:]
        }

        static func failureCode(_ result: ReservoirBinary.Result) throws -> String? {
            (try json(result)["failure"] as? [String: Any])?["code"] as? String
        }

        static func trust(_ result: ReservoirBinary.Result) throws -> [String: Any] {
            try json(result)["trust"] as? [String: Any] ?? [:]
        }

        /// The failure as `add --json` gives it: code and reason.
        static func failure(_ result: ReservoirBinary.Result) throws -> [String: String] {
            try json(result)["failure"] as? [String: String] ?? [:]
        }

        @Test(
            "only a page served as HTML is read: the same markup as text/plain, a download or without a type is refused, nothing stored")
        func mediaTypes() throws {
            let setup = try Setup()
            defer { setup.directory.remove() }
            // A guest's upload on the restaurant's own host, holding the markup of its page.
            try setup.serve("upload.txt", Self.page, as: "text/plain; charset=utf-8")
            try setup.serve("upload.bin", Self.page, as: "application/octet-stream")
            try setup.serve("untyped", Self.page, as: nil)
            try setup.serve("page.xhtml", Self.page, as: "application/xhtml+xml")
            try setup.serve("upper.html", Self.page, as: "TEXT/HTML ; Charset=UTF-8")
            let server = try PageServer(root: setup.root, certificate: setup.certificates.server, key: setup.certificates.serverKey)
            defer { server.stop() }
            let base = "https://\(Self.host):\(server.port)/"
            let allow = ["--allow-domain", "epicsteak.example"]
            for (name, type) in [("upload.txt", "text/plain"), ("upload.bin", "application/octet-stream"), ("untyped", nil)] {
                let refused = try setup.add(base + name, port: server.port, allow)
                #expect(refused.status == 65, "\(name): \(refused.text)")
                #expect(try Self.failureCode(refused) == "page-not-html", "\(name)")
                #expect(try Self.failure(refused)["reason"]?.contains(type ?? "without a media type") == true, "\(name): \(refused.text)")
            }
            #expect(try setup.events().isEmpty, "no upload became a booking")
            // The controls: the same markup served as HTML, in either type and any case.
            for name in ["page.xhtml", "upper.html", "booking.html"] {
                let trusted = try setup.add(base + name, port: server.port, allow)
                #expect(trusted.status == 0, "\(name): \(trusted.text)")
                #expect(try Self.trust(trusted)["trusted"] as? Bool == true, "\(name)")
            }
            #expect(try setup.events().count == 1)
        }

        @Test(
            "loopback is never fetched under any spelling unless --allow-private-host names the host: the answer is a closed port's, and no request arrives"
        )
        func privateAddresses() throws {
            let setup = try Setup()
            defer { setup.directory.remove() }
            let server = try PageServer(root: setup.root, certificate: setup.certificates.server, key: setup.certificates.serverKey)
            defer { server.stop() }
            let closed = try LoopbackPort.free()
            let allow = ["--allow-domain", "epicsteak.example"]
            let spellings = [
                Self.host, "127.0.0.1", "localhost", "[::ffff:127.0.0.1]", "[::ffff:7f00:1]", "2130706433", "0177.0.0.1", "0x7f.0.0.1", "127.1",
                "[::1]",
            ]
            for spelling in spellings {
                let open = try setup.add("https://\(spelling):\(server.port)/booking.html", port: server.port, allow, privateHosts: [])
                let shut = try setup.add("https://\(spelling):\(closed)/booking.html", port: closed, allow, privateHosts: [])
                #expect(open.status == 69, "\(spelling): \(open.text)")
                #expect(try Self.failureCode(open) == "page-could-not-connect", "\(spelling): \(open.text)")
                #expect(try Self.failure(open) == Self.failure(shut), "\(spelling): a listening server and a closed port answer alike")
                #expect(open.status == shut.status)
            }
            #expect(server.requestedHosts().isEmpty, "no request reached the server")
            #expect(try setup.events().isEmpty)

            // A redirect within the domain to a name on loopback that is not allowed ends there.
            try setup.redirect("within", to: "https://www.epicsteak.example:\(server.port)/booking.html")
            let hop = try setup.add("https://\(Self.host):\(server.port)/within", port: server.port, allow, privateHosts: [Self.host])
            #expect(hop.status == 69, "\(hop.text)")
            #expect(try Self.failureCode(hop) == "page-could-not-connect")
            #expect(server.requestedHosts() == ["\(Self.host):\(server.port)"], "only the allowed host was asked")

            // The control: the same page, its host allowed on loopback, is fetched and trusted.
            let allowed = try setup.add("https://\(Self.host):\(server.port)/booking.html", port: server.port, allow, privateHosts: [Self.host])
            #expect(allowed.status == 0, "\(allowed.text)")
            #expect(try Self.trust(allowed)["trusted"] as? Bool == true)
            #expect(try setup.events().count == 1)
        }

        @Test(
            "a page of an allowed domain is trusted and stored, owned by its registered domain; another domain's is shown, refused")
        func allowedAndNot() throws {
            let setup = try Setup()
            defer { setup.directory.remove() }
            let server = try PageServer(root: setup.root, certificate: setup.certificates.server, key: setup.certificates.serverKey)
            defer { server.stop() }
            let url = "https://\(Self.host):\(server.port)/booking.html"

            let refused = try setup.add(url, port: server.port, ["--allow-domain", "harborview-hotels.example"])
            #expect(refused.status == 0, "\(refused.stderr)")
            #expect(try Self.trust(refused)["trusted"] as? Bool == false)
            #expect(try Self.trust(refused)["refusals"] as? [String] == ["domain-not-allowed"])
            #expect((try Self.json(refused)["reservations"] as? [Any])?.count == 1, "the page is shown")
            #expect(try setup.events().isEmpty)

            let trusted = try setup.add(url, port: server.port, ["--allowed-domains", ReservoirBinary.allowed])
            #expect(trusted.status == 0, "\(trusted.stderr)")
            #expect(try Self.trust(trusted)["trusted"] as? Bool == true, "\(trusted.text)")
            #expect(try Self.trust(trusted)["vouchingDomain"] as? String == "epicsteak.example")
            let events = try setup.events()
            #expect(events.count == 1)
            #expect(events.first?["ownerDomain"] as? String == "epicsteak.example")
            #expect(events.first?["start"] as? String == "2031-05-12T18:30:00-07:00")
        }

        @Test(
            "redirects: followed within the registered domain; to another domain, to http, or round and round, refused")
        func redirects() throws {
            let setup = try Setup()
            defer { setup.directory.remove() }
            let server = try PageServer(root: setup.root, certificate: setup.certificates.server, key: setup.certificates.serverKey)
            defer { server.stop() }
            let base = "https://\(Self.host):\(server.port)"
            try setup.redirect("within", to: "https://www.epicsteak.example:\(server.port)/booking.html")
            try setup.redirect("off", to: "https://pages.other-site.example:\(server.port)/booking.html")
            try setup.redirect("plain", to: "http://\(Self.host):\(server.port)/booking.html")
            try setup.redirect("loop", to: "/loop")
            let allow = ["--allow-domain", "epicsteak.example", "--allow-domain", "other-site.example"]

            let within = try setup.add(base + "/within", port: server.port, allow)
            #expect(within.status == 0, "\(within.stderr)")
            #expect(try Self.trust(within)["trusted"] as? Bool == true)
            #expect(try Self.trust(within)["fromDomain"] as? String == "www.epicsteak.example")

            let off = try setup.add(base + "/off", port: server.port, allow)
            #expect(off.status == 65)
            #expect(try Self.failureCode(off) == "page-redirect-off-site")
            #expect(!server.requestedHosts().contains { $0.hasPrefix("pages.other-site.example") }, "the redirect was not followed")

            let plain = try setup.add(base + "/plain", port: server.port, allow)
            #expect(plain.status == 65)
            #expect(try Self.failureCode(plain) == "page-redirect-not-https")

            let loop = try setup.add(base + "/loop", port: server.port, allow)
            #expect(loop.status == 65)
            #expect(try Self.failureCode(loop) == "page-too-many-redirects")
            #expect(try setup.events().count == 1, "only the page reached within the domain was stored")
        }

        @Test(
            "plain http is fetched and shown, never trusted nor stored")
        func plainHTTP() throws {
            let setup = try Setup()
            defer { setup.directory.remove() }
            let server = try PageServer(root: setup.root, certificate: nil, key: nil)
            defer { server.stop() }
            let result = try setup.add("http://\(Self.host):\(server.port)/booking.html", port: server.port, ["--allow-domain", "epicsteak.example"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try Self.trust(result)["trusted"] as? Bool == false)
            #expect(try Self.trust(result)["refusals"] as? [String] == ["page-not-https"])
            #expect(try setup.events().isEmpty)
        }

        @Test(
            "an expired certificate, one from another CA, or the system CAs alone: a TLS error, nothing stored")
        func certificates() throws {
            let setup = try Setup()
            defer { setup.directory.remove() }
            let allow = ["--allow-domain", "epicsteak.example"]
            for (certificate, ca) in [
                (setup.certificates.expired, setup.certificates.ca), (setup.certificates.rogue, setup.certificates.ca),
                (setup.certificates.server, "/etc/ssl/certs/ca-certificates.crt"),
            ] {
                let server = try PageServer(root: setup.root, certificate: certificate, key: setup.certificates.serverKey)
                defer { server.stop() }
                let result = try setup.add("https://\(Self.host):\(server.port)/booking.html", port: server.port, allow, caFile: ca)
                #expect(result.status == 69, "\(certificate): \(result.text)")
                #expect(try Self.failureCode(result) == "page-tls", "\(certificate)")
            }
            #expect(try setup.events().isEmpty)
        }

        @Test(
            "a page over the size limit is refused; a server that never answers times out within --timeout")
        func limits() throws {
            let setup = try Setup()
            defer { setup.directory.remove() }
            // 2 MB of markup-free text and one byte more.
            try setup.write("big.html", String(repeating: "a", count: (2 << 20) + 1))
            let server = try PageServer(root: setup.root, certificate: setup.certificates.server, key: setup.certificates.serverKey)
            defer { server.stop() }
            let big = try setup.add("https://\(Self.host):\(server.port)/big.html", port: server.port, [])
            #expect(big.status == 65)
            #expect(try Self.failureCode(big) == "page-too-large")

            let silent = try LoopbackPort.silent()
            defer { close(silent.fd) }
            let started = Date()
            let timedOut = try setup.add("https://\(Self.host):\(silent.port)/booking.html", port: silent.port, ["--timeout", "2"])
            #expect(timedOut.status == 69)
            #expect(try Self.failureCode(timedOut) == "page-timeout")
            #expect(Date().timeIntervalSince(started) < 10)
        }

        @Test("a .html file has no proof: shown, not stored")
        func htmlFile() throws {
            let setup = try Setup()
            defer { setup.directory.remove() }
            let result = try ReservoirBinary.run([
                "add", "--json", "--now", ReservoirBinary.now, "--no-calendar", "--store", setup.store, "--allow-domain", "epicsteak.example",
                setup.root + "/booking.html",
            ])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try Self.trust(result)["refusals"] as? [String] == ["document-no-proof"])
            #expect((try Self.json(result)["reservations"] as? [Any])?.count == 1)
            #expect(try setup.events().isEmpty)
        }

        @Test("a .eml file is read as mail: the signed sample is trusted and stored")
        func emlFile() throws {
            let setup = try Setup()
            defer { setup.directory.remove() }
            let mail = setup.directory.path + "/confirmation.eml"
            try ReservoirBinary.sampleMessage(2).write(to: URL(fileURLWithPath: mail))
            let result = try ReservoirBinary.run([
                "add", "--json", "--now", ReservoirBinary.now, "--no-calendar", "--store", setup.store, "--keys", ReservoirBinary.keys,
                "--allowed-domains", ReservoirBinary.allowed, mail,
            ])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try Self.trust(result)["trusted"] as? Bool == true)
            #expect(try setup.events().first?["ownerDomain"] as? String == "epicsteak.example")
        }
    }
}

/// A test CA, a server certificate for the test names signed by it, the same expired, and a
/// self-signed one no CA vouches for.
struct TestCertificates {
    static let openssl = "/usr/bin/openssl"
    let ca: String
    let server: String
    let serverKey: String
    let expired: String
    let rogue: String

    init(in directory: String) throws {
        ca = directory + "/ca.pem"
        server = directory + "/server.pem"
        serverKey = directory + "/server.key"
        expired = directory + "/expired.pem"
        rogue = directory + "/rogue.pem"
        let names = "subjectAltName=DNS:confirm.epicsteak.example,DNS:www.epicsteak.example,DNS:pages.other-site.example\n"
        try names.write(toFile: directory + "/ext", atomically: true, encoding: .utf8)
        let subject = "/CN=confirm.epicsteak.example"
        for arguments in [
            ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", directory + "/ca.key", "-out", ca, "-days", "30", "-subj", "/CN=Test CA"],
            ["req", "-newkey", "rsa:2048", "-nodes", "-keyout", serverKey, "-out", directory + "/server.csr", "-subj", subject],
            [
                "x509", "-req", "-in", directory + "/server.csr", "-CA", ca, "-CAkey", directory + "/ca.key", "-set_serial", "1", "-out", server,
                "-days", "30", "-extfile", directory + "/ext",
            ],
            // -days -1: valid until a day before it was made.
            [
                "x509", "-req", "-in", directory + "/server.csr", "-CA", ca, "-CAkey", directory + "/ca.key", "-set_serial", "2", "-out", expired,
                "-days", "-1", "-extfile", directory + "/ext",
            ],
            ["x509", "-req", "-in", directory + "/server.csr", "-signkey", serverKey, "-out", rogue, "-days", "30", "-extfile", directory + "/ext"],
        ] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Self.openssl)
            process.arguments = arguments
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else { throw CocoaError(.fileWriteUnknown) }
        }
    }
}

/// Python's http.server on 127.0.0.1 (in TLS with a certificate), serving `root`: `NAME` from
/// the file (as the Content-Type `NAME.type` holds, `-` for none; text/html without one), a 302
/// to the text of `NAME.redirect` when there is one. Each request's Host is logged.
final class PageServer {
    static let python = "/usr/bin/python3"
    static let script = """
        import http.server, ssl, sys, os
        root, cert, key, portfile, log = sys.argv[1:6]
        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args): pass
            def do_GET(self):
                with open(log, 'a') as f: f.write((self.headers.get('Host') or '') + '\\n')
                path = os.path.join(root, self.path.lstrip('/').split('?')[0])
                if os.path.exists(path + '.redirect'):
                    self.send_response(302)
                    self.send_header('Location', open(path + '.redirect').read().strip())
                    self.send_header('Content-Length', '0')
                    self.end_headers()
                    return
                if not os.path.isfile(path):
                    self.send_response(404)
                    self.send_header('Content-Length', '0')
                    self.end_headers()
                    return
                body = open(path, 'rb').read()
                self.send_response(200)
                kind = open(path + '.type').read() if os.path.exists(path + '.type') else 'text/html; charset=utf-8'
                if kind != '-': self.send_header('Content-Type', kind)
                self.send_header('Content-Length', str(len(body)))
                self.end_headers()
                self.wfile.write(body)
        server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Handler)
        if cert != '-':
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(cert, key)
            server.socket = context.wrap_socket(server.socket, server_side=True)
        open(portfile + '.tmp', 'w').write(str(server.server_address[1]))
        os.rename(portfile + '.tmp', portfile)
        server.serve_forever()
        """

    let process = Process()
    let port: Int
    let log: String

    init(root: String, certificate: String?, key: String?) throws {
        let id = UUID().uuidString
        let portFile = root + "/../port-" + id
        log = root + "/../log-" + id
        try Self.script.write(toFile: root + "/../server.py", atomically: true, encoding: .utf8)
        process.executableURL = URL(fileURLWithPath: Self.python)
        process.arguments = [root + "/../server.py", root, certificate ?? "-", key ?? "-", portFile, log]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        var port: Int?
        for _ in 0..<200 {
            if let text = try? String(contentsOfFile: portFile, encoding: .utf8), let read = Int(text) {
                port = read
                break
            }
            usleep(50_000)
        }
        guard let port else {
            process.terminate()
            throw CocoaError(.fileReadUnknown)
        }
        self.port = port
    }

    /// The Host field of every request so far.
    func requestedHosts() -> [String] {
        ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// SIGKILL, not SIGTERM: a child Foundation's `Process` starts inherits the test runner's
    /// blocked signals, so a SIGTERM would wait for ever.
    func stop() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}
