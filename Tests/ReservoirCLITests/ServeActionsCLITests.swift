import Foundation
import TestRequirements
import Testing

extension ProcessSuites {
    /// `reservoir serve --actions`: the page's Trust and Dismiss buttons and its form to add a
    /// confirmation page, through the real server, curl as the browser, and the real commands.
    @Suite("serve --actions: forms on the page", .enabled(if: Requirement.met(ServeCLITests.hasCurl), "curl is not installed (apt-get install curl)"))
    struct ServeActionsCLITests {
        typealias Server = ServeCLITests.Server

        /// A store where the genuine corpus message waits as pending (its domain not allowed),
        /// and a server with a token in front of it.
        struct Site {
            let tmp: TemporaryDirectory
            let store: String
            let server: Server
            let token = "page-token-0123456789abcdef"
            var page: String { server.base + "/" + token + "/" }

            /// `account`: the token opens that account of a site's store (the message is filed there).
            init(actions: Bool = true, account: String? = nil) throws {
                tmp = try TemporaryDirectory()
                store = tmp.path + "/events.sqlite3"
                try PendingSendersCLITests.ingest(
                    PendingSendersCLITests.genuine,
                    PendingSendersCLITests.options(nil, store: store) + (account.map { ["--account", $0] } ?? []))
                let tokenFile = tmp.path + "/token"
                try (token + (account.map { " " + $0 } ?? "") + "\n").write(toFile: tokenFile, atomically: true, encoding: .utf8)
                chmod(tokenFile, 0o600)
                // The commands the forms run read the test's DKIM keys from the configuration
                // file, as a site's would read its settings.
                let configuration = tmp.path + "/config.toml"
                try "keys = \"\(ReservoirBinary.keys)\"\n".write(toFile: configuration, atomically: true, encoding: .utf8)
                server = try Server(
                    ["--store", "sqlite:" + store, "--token-file", tokenFile] + (actions ? ["--actions"] : []), tmp: tmp,
                    environment: ["RESERVOIR_CONFIG": configuration])
            }

            func close() {
                server.stop()
                tmp.remove()
            }

            /// A form's post as a browser on the page sends it, with `changes` to the fields and headers.
            func post(_ action: String, fields: [String: String], origin: String?, extra: [String] = []) throws -> ServeCLITests.Reply {
                let body = fields.map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }
                    .joined(separator: "&")
                var options = ["-X", "POST", "-H", "Content-Type: application/x-www-form-urlencoded", "--data-binary", body]
                if let origin { options += ["-H", "Origin: \(origin)"] }
                return try ServeCLITests.curl(page + action, options + extra, tmp: tmp)
            }

            /// The page's anti-forgery token, read from its forms.
            func formToken() throws -> String {
                let text = try ServeCLITests.curl(page, tmp: tmp).text
                let marker = "name=\"token\" value=\""
                let start = try #require(text.range(of: marker), "the page has forms")
                return String(text[start.upperBound...].prefix { $0 != "\"" })
            }
        }

        @Test("Trust on the page allows the pending sender and imports its booking; forged posts change nothing")
        func trustButton() throws {
            let site = try Site()
            defer { site.close() }
            let pending = try PendingSendersCLITests.pending(site.store)
            let domain = try #require(pending.keys.first, "the genuine message waits as pending")
            let page = try ServeCLITests.curl(site.page, tmp: site.tmp)
            #expect(page.text.contains("Senders waiting for you") && page.text.contains(domain))
            #expect(page.headers["content-security-policy"]?.contains("form-action 'self'") == true)
            let token = try site.formToken()
            let origin = site.server.base

            // Another site's form: no Origin, another Origin, the browser's cross-site mark, no
            // or a wrong token, a domain with nothing pending. None is run.
            let forged: [(ServeCLITests.Reply, Int)] = [
                (try site.post("allow", fields: ["token": token, "domain": domain], origin: nil), 403),
                (try site.post("allow", fields: ["token": token, "domain": domain], origin: "http://evil.example"), 403),
                (
                    try site.post("allow", fields: ["token": token, "domain": domain], origin: origin, extra: ["-H", "Sec-Fetch-Site: cross-site"]),
                    403
                ),
                (try site.post("allow", fields: ["domain": domain], origin: origin), 403),
                (try site.post("allow", fields: ["token": String(token.reversed()), "domain": domain], origin: origin), 403),
                (try site.post("allow", fields: ["token": token, "domain": "airline.example"], origin: origin), 400),
                (try site.post("add", fields: ["token": token, "url": "http://\(domain)/booking"], origin: origin), 400),
            ]
            for (reply, status) in forged { #expect(reply.status == status, "\(reply.text)") }
            #expect(try PendingSendersCLITests.stored(site.store).isEmpty, "nothing was imported")
            #expect(try PendingSendersCLITests.pending(site.store) == pending)

            let trusted = try site.post(
                "allow", fields: ["token": token, "domain": domain], origin: origin, extra: ["-H", "Sec-Fetch-Site: same-origin"])
            #expect(trusted.status == 200, "\(trusted.text) \(site.server.log)")
            #expect(trusted.text.contains("Done"))
            // Said in words, without the item ids the command prints at the shell.
            #expect(trusted.text.contains("Reservations from \(domain) are now trusted: 1 added ("), "\(trusted.text)")
            #expect(!trusted.text.contains("GENUINE1") && !trusted.text.contains("imported:"), "\(trusted.text)")
            // The implicit account's page: the choice is the page's, not the server user's.
            #expect(try Self.decidedBy(site.store) == ["page"])
            #expect(try PendingSendersCLITests.stored(site.store) == pending[domain], "the pending booking is in the store")
            #expect(try PendingSendersCLITests.pending(site.store).isEmpty)
            #expect(try !ServeCLITests.curl(site.page, tmp: site.tmp).text.contains("Senders waiting for you"))
        }

        /// A browser that opens `url`, clicks the element `selector` names and prints the text
        /// of the page the click led to: headless Chromium driven over the DevTools protocol on
        /// the pipe pair `--remote-debugging-pipe` reads (fd 3) and writes (fd 4).
        static let clicker = #"""
            import json, os, subprocess, sys, time
            chromium, profile, url, selector = sys.argv[1:5]
            to_browser_r, to_browser_w = os.pipe()
            from_browser_r, from_browser_w = os.pipe()
            def setup():
                os.dup2(to_browser_r, 3)
                os.dup2(from_browser_w, 4)
                os.set_inheritable(3, True)
                os.set_inheritable(4, True)
            browser = subprocess.Popen(
                [chromium, '--headless', '--no-sandbox', '--disable-gpu', '--user-data-dir=' + profile, '--no-first-run',
                 '--remote-debugging-pipe', 'about:blank'],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, preexec_fn=setup, close_fds=False)
            os.close(to_browser_r); os.close(from_browser_w)
            buffer = b''
            next_id = 0
            deadline = time.time() + 30
            def send(method, params=None, session=None):
                global next_id
                next_id += 1
                message = {'id': next_id, 'method': method, 'params': params or {}}
                if session: message['sessionId'] = session
                os.write(to_browser_w, json.dumps(message).encode() + b'\0')
                return next_id
            def receive():
                global buffer
                while b'\0' not in buffer:
                    if time.time() > deadline: raise SystemExit('timed out')
                    chunk = os.read(from_browser_r, 65536)
                    if not chunk: raise SystemExit('browser closed')
                    buffer += chunk
                message, buffer = buffer.split(b'\0', 1)
                return json.loads(message)
            def call(method, params=None, session=None):
                wanted = send(method, params, session)
                while True:
                    message = receive()
                    if message.get('id') == wanted:
                        if 'error' in message: raise SystemExit(method + ': ' + json.dumps(message['error']))
                        return message.get('result', {})
            def wait_event(name):
                while True:
                    message = receive()
                    if message.get('method') == name: return message
            target = call('Target.createTarget', {'url': 'about:blank'})['targetId']
            session = call('Target.attachToTarget', {'targetId': target, 'flatten': True})['sessionId']
            call('Page.enable', session=session)
            call('Page.navigate', {'url': url}, session)
            wait_event('Page.loadEventFired')
            clicked = call('Runtime.evaluate', {'expression': 'document.querySelector(%s) ? (document.querySelector(%s).click(), true) : false' % (json.dumps(selector), json.dumps(selector)), 'returnByValue': True}, session)
            if not clicked['result'].get('value'): raise SystemExit('no element ' + selector)
            wait_event('Page.loadEventFired')
            text = call('Runtime.evaluate', {'expression': 'document.body.innerText', 'returnByValue': True}, session)
            print(text['result'].get('value', ''))
            try: call('Browser.close')
            except SystemExit: pass
            browser.wait(timeout=10)
            """#

        @Test(
            "Trust clicked in headless Chromium: the sender's booking is in the calendar feed",
            .enabled(if: Requirement.met(ServeCLITests.hasChromium), "chromium is not installed (apt-get install chromium)"))
        func trustInBrowser() throws {
            let site = try Site()
            defer { site.close() }
            let script = site.tmp.path + "/click.py"
            try Self.clicker.write(toFile: script, atomically: true, encoding: .utf8)
            let clicked = try ReservoirBinary.run(
                [script, ServeCLITests.chromium, site.tmp.path + "/profile", site.page, "form[action=allow] button"],
                executable: URL(fileURLWithPath: "/usr/bin/python3"))
            #expect(clicked.status == 0, "\(clicked.stderr.suffix(2000))")
            #expect(clicked.text.hasPrefix("Done"), "\(clicked.text) \(site.server.log)")
            #expect(try PendingSendersCLITests.pending(site.store).isEmpty)
            let feed = try ServeCLITests.curl(site.page + "calendar.ics", tmp: site.tmp)
            #expect(feed.status == 200)
            #expect(feed.text.contains("SUMMARY:Reservation: EPIC Steak"), "\(feed.text)")
        }

        @Test(
            "the add form reaches no service on the server's own network: a listening https server and a closed port get the same answer, and the server is asked nothing",
            .enabled(if: Requirement.met(FileManager.default.isExecutableFile(atPath: TestCertificates.openssl)), "openssl is not installed"))
        func addFormInternal() throws {
            let site = try Site()
            defer { site.close() }
            let certificates = try TestCertificates(in: site.tmp.path)
            let root = site.tmp.path + "/root"
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
            try ProcessSuites.AddPageCLITests.page.write(toFile: root + "/booking.html", atomically: true, encoding: .utf8)
            let intranet = try PageServer(root: root, certificate: certificates.server, key: certificates.serverKey)
            defer { intranet.stop() }
            let closed = try LoopbackPort.free()
            let token = try site.formToken()
            for host in ["127.0.0.1", "localhost", "[::ffff:127.0.0.1]", "2130706433"] {
                let listening = try site.post(
                    "add", fields: ["token": token, "url": "https://\(host):\(intranet.port)/booking.html"], origin: site.server.base)
                let shut = try site.post("add", fields: ["token": token, "url": "https://\(host):\(closed)/booking.html"], origin: site.server.base)
                #expect(listening.status == 422, "\(host): \(listening.text) \(site.server.log)")
                #expect(listening.text.contains("could not connect"), "\(host): \(listening.text)")
                #expect(listening.status == shut.status && listening.text == shut.text, "\(host): the answers tell the two apart")
            }
            #expect(intranet.requestedHosts().isEmpty, "no request reached the intranet server")
            #expect(try PendingSendersCLITests.stored(site.store).isEmpty)
        }

        /// A page of the origin `url` names, in headless Chromium, that runs `script` (an
        /// expression whose promise gives a string) and prints what it gives. The page itself is
        /// the attacker's: Chromium serves it from the DevTools protocol (Fetch.fulfillRequest),
        /// as the attacker's own server answered the name's first lookup; every other request of
        /// the page goes to the network, where `--host-resolver-rules` maps attacker.example to
        /// 127.0.0.1, the rebound answer. Chromium's own guard for pages reaching local
        /// addresses is switched off, so that the server's answer is what is tested.
        static let rebinder = #"""
            import base64, json, os, subprocess, sys, time
            chromium, profile, url, script = sys.argv[1:5]
            to_browser_r, to_browser_w = os.pipe()
            from_browser_r, from_browser_w = os.pipe()
            def setup():
                os.dup2(to_browser_r, 3)
                os.dup2(from_browser_w, 4)
                os.set_inheritable(3, True)
                os.set_inheritable(4, True)
            browser = subprocess.Popen(
                [chromium, '--headless', '--no-sandbox', '--disable-gpu', '--user-data-dir=' + profile, '--no-first-run',
                 '--host-resolver-rules=MAP attacker.example 127.0.0.1',
                 '--disable-features=LocalNetworkAccessChecks,BlockInsecurePrivateNetworkRequests,PrivateNetworkAccessSendPreflights,PrivateNetworkAccessRespectPreflightResults',
                 '--remote-debugging-pipe', 'about:blank'],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=setup, close_fds=False)
            os.close(to_browser_r); os.close(from_browser_w)
            buffer = b''
            next_id = 0
            deadline = time.time() + 30
            session = None
            page = base64.b64encode(b'<!DOCTYPE html><html><head><title>Cats</title></head><body>Cute cats.</body></html>').decode()
            def send(method, params=None, session=None):
                global next_id
                next_id += 1
                message = {'id': next_id, 'method': method, 'params': params or {}}
                if session: message['sessionId'] = session
                os.write(to_browser_w, json.dumps(message).encode() + b'\0')
                return next_id
            def receive():
                global buffer
                while b'\0' not in buffer:
                    if time.time() > deadline: raise SystemExit('timed out')
                    chunk = os.read(from_browser_r, 65536)
                    if not chunk: raise SystemExit('browser closed')
                    buffer += chunk
                message, buffer = buffer.split(b'\0', 1)
                message = json.loads(message)
                if message.get('method') == 'Fetch.requestPaused':
                    send('Fetch.fulfillRequest', {'requestId': message['params']['requestId'], 'responseCode': 200,
                         'responseHeaders': [{'name': 'Content-Type', 'value': 'text/html'}], 'body': page}, session)
                return message
            def call(method, params=None, session=None):
                wanted = send(method, params, session)
                while True:
                    message = receive()
                    if message.get('id') == wanted:
                        if 'error' in message: raise SystemExit(method + ': ' + json.dumps(message['error']))
                        return message.get('result', {})
            target = call('Target.createTarget', {'url': 'about:blank'})['targetId']
            session = call('Target.attachToTarget', {'targetId': target, 'flatten': True})['sessionId']
            call('Fetch.enable', {'patterns': [{'urlPattern': url}]}, session)
            call('Page.enable', session=session)
            call('Page.navigate', {'url': url}, session)
            while receive().get('method') != 'Page.loadEventFired': pass
            result = call('Runtime.evaluate', {'expression': script, 'awaitPromise': True, 'returnByValue': True}, session)
            print(result['result'].get('value', json.dumps(result)))
            try: call('Browser.close')
            except SystemExit: pass
            browser.wait(timeout=10)
            """#

        /// What the attacker's script does once its name points at the server: read the page
        /// (the bookings and the form's token), then press Trust with that token.
        static func rebindingScript(page path: String, domain: String) -> String {
            """
            (async () => {
              const answer = {};
              try {
                const page = await fetch('\(path)');
                const text = await page.text();
                answer.page = page.status;
                const match = text.match(/name="token" value="([^"]+)"/);
                answer.token = !!match;
                const body = new URLSearchParams({token: match ? match[1] : '', domain: '\(domain)'});
                const posted = await fetch('\(path)allow', {method: 'POST', body});
                answer.post = posted.status;
              } catch (error) { answer.error = String(error); }
              return JSON.stringify(answer);
            })()
            """
        }

        @Test(
            "DNS rebinding in headless Chromium: a page of attacker.example, its name pointed at the server, can neither read the page nor press Trust; the page's own origin can",
            .enabled(if: Requirement.met(ServeCLITests.hasChromium), "chromium is not installed (apt-get install chromium)"))
        func rebindingInBrowser() throws {
            let site = try Site()
            defer { site.close() }
            let pending = try PendingSendersCLITests.pending(site.store)
            let domain = try #require(pending.keys.first, "the genuine message waits as pending")
            let script = site.tmp.path + "/rebind.py"
            try Self.rebinder.write(toFile: script, atomically: true, encoding: .utf8)
            let path = "/" + site.token + "/"
            func run(origin: String) throws -> [String: Any] {
                let result = try ReservoirBinary.run(
                    [
                        script, ServeCLITests.chromium, site.tmp.path + "/profile-\(origin.count)", origin + "/cats.html",
                        Self.rebindingScript(page: path, domain: domain),
                    ], executable: URL(fileURLWithPath: "/usr/bin/python3"))
                #expect(result.status == 0, "\(result.stderr.suffix(2000))")
                let line = result.text.split(separator: "\n").last.map(String.init) ?? ""
                return try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] ?? [:]
            }
            let port = site.server.port
            let attack = try run(origin: "http://attacker.example:\(port)")
            #expect(attack["page"] as? Int == 421, "\(attack) \(site.server.log)")
            #expect(attack["token"] as? Bool == false)
            #expect(attack["post"] as? Int == 421, "\(attack)")
            #expect(site.server.log.contains("Host attacker.example:\(port)"), "the requests reached the server and were refused there")
            #expect(try PendingSendersCLITests.pending(site.store) == pending, "nothing was trusted")
            #expect(try PendingSendersCLITests.stored(site.store).isEmpty)

            // The control: the same script on the page's own origin reads the token and trusts.
            let own = try run(origin: "http://127.0.0.1:\(port)")
            #expect(own["page"] as? Int == 200, "\(own) \(site.server.log)")
            #expect(own["token"] as? Bool == true)
            #expect(own["post"] as? Int == 200, "\(own)")
            #expect(try PendingSendersCLITests.pending(site.store).isEmpty)
            #expect(try PendingSendersCLITests.stored(site.store) == pending[domain])
        }

        /// `decidedBy` of each choice `reservoir pending --json` lists.
        static func decidedBy(_ store: String, account: String? = nil) throws -> [String] {
            let run = try ReservoirBinary.run(
                ["pending", "--json", "--store", "sqlite:" + store, "--now", ReservoirBinary.now] + (account.map { ["--account", $0] } ?? []))
            let json = try #require(try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any], "\(run.stderr)")
            return (json["decided"] as? [[String: Any]] ?? []).compactMap { $0["decidedBy"] as? String }
        }

        @Test("a site account's page names the account, and its Trust is recorded as page:ADDRESS, that account's choice")
        func accountPage() throws {
            let account = "jane@example.org"
            let site = try Site(account: account)
            defer { site.close() }
            let page = try ServeCLITests.curl(site.page, tmp: site.tmp)
            #expect(page.text.contains("<p class=\"owner\">\(account)</p>"), "\(page.text)")
            let domain = try #require(try PendingSendersCLITests.pending(site.store, extra: ["--account", account]).keys.first)
            let trusted = try site.post(
                "allow", fields: ["token": try site.formToken(), "domain": domain], origin: site.server.base,
                extra: ["-H", "Sec-Fetch-Site: same-origin"])
            #expect(trusted.status == 200, "\(trusted.text) \(site.server.log)")
            #expect(try Self.decidedBy(site.store, account: account) == ["page:" + account])
            let listing = try ReservoirBinary.run(
                ["pending", "--store", "sqlite:" + site.store, "--now", ReservoirBinary.now, "--account", account])
            #expect(listing.text.contains("\(domain)  allowed  \(ReservoirBinary.now)  by page:\(account)"), "\(listing.text)")
            #expect(try PendingSendersCLITests.pending(site.store, extra: ["--account", account]).isEmpty)
        }

        @Test("Dismiss denies the sender: its pending booking is dropped, nothing stored")
        func dismissButton() throws {
            let site = try Site()
            defer { site.close() }
            let domain = try #require(try PendingSendersCLITests.pending(site.store).keys.first)
            let reply = try site.post("deny", fields: ["token": try site.formToken(), "domain": domain], origin: site.server.base)
            #expect(reply.status == 200, "\(reply.text) \(site.server.log)")
            #expect(reply.text.contains("Reservations from \(domain) are now refused: 1 waiting reservation dropped."), "\(reply.text)")
            #expect(try Self.decidedBy(site.store) == ["page"])
            #expect(try PendingSendersCLITests.pending(site.store).isEmpty)
            #expect(try PendingSendersCLITests.stored(site.store).isEmpty)
        }

        @Test("without --actions the page has no forms and a post is not found")
        func readOnly() throws {
            let site = try Site(actions: false)
            defer { site.close() }
            let page = try ServeCLITests.curl(site.page, tmp: site.tmp)
            #expect(!page.text.contains("<form"))
            #expect(page.headers["content-security-policy"]?.contains("form-action 'none'") == true)
            let reply = try site.post("allow", fields: ["domain": "x.example"], origin: site.server.base)
            #expect(reply.status == 404)
        }

        @Test("--actions off loopback needs a token or credentials")
        func refusedOpen() throws {
            let r = try ReservoirBinary.run(["serve", "--listen", "0.0.0.0:0", "--no-auth", "--actions"])
            #expect(r.status == 64)
            #expect(r.stderr.contains("--actions"), "\(r.stderr)")
        }
    }
}
