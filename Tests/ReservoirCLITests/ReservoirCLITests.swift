import Foundation
import Testing

@Suite("The reservoir command, run as a user runs it")
struct ReservoirCLITests {
    @Test("banner on the confirmation: restaurant, local time with offset, party, status, DKIM verdict")
    func bannerConfirmation() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let r = try ReservoirBinary.run([
            "banner", try ReservoirBinary.sample(1), "--keys", ReservoirBinary.keys,
            "--allowed-domains", ReservoirBinary.allowed, "--now", ReservoirBinary.now,
            "--store", "sqlite:\(tmp.path)/e.sqlite3",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let text = r.text
        #expect(text.contains("Restaurant"))
        #expect(text.contains("EPIC Steak"))
        #expect(text.contains("Mon 12 May 2031 19:30 (UTC−07:00)"))
        #expect(text.contains("Party size") && text.contains("2"))
        #expect(text.contains("confirmed"))
        #expect(text.contains("pass d=epicsteak.example"))
        #expect(text.contains("trusted: DKIM signature by epicsteak.example"))
        #expect(text.contains("new event"))
    }

    @Test("banner on the altered message shows the DKIM failure and no trust")
    func bannerAltered() throws {
        let r = try ReservoirBinary.run([
            "banner", try ReservoirBinary.sample(8), "--keys", ReservoirBinary.keys,
            "--allowed-domains", ReservoirBinary.allowed, "--now", ReservoirBinary.now, "--no-store",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.text.contains("fail d=trattorialucca.example"))
        #expect(r.text.contains("NOT TRUSTED"))
        #expect(r.text.contains("body hash"))
    }

    @Test("banner reads standard input with -, and prints JSON for programs")
    func bannerJSON() throws {
        let message = try ReservoirBinary.sampleMessage(1)
        let r = try ReservoirBinary.run(
            [
                "banner", "-", "--json", "--keys", ReservoirBinary.keys, "--allow-any-domain",
                "--now", ReservoirBinary.now, "--no-store",
            ], stdin: message)
        #expect(r.status == 0, "\(r.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
        let trust = try #require(object["trust"] as? [String: Any])
        #expect(trust["trusted"] as? Bool == true)
        #expect((trust["overrides"] as? [String]) == ["--allow-any-domain"])
        let reservations = try #require(object["reservations"] as? [[String: Any]])
        #expect(reservations.first?["reservationId"] as? String == "IWDSCA")
        #expect(reservations.first?["start"] as? String == "2031-05-12T19:30:00-07:00")
    }

    @Test("scan of the samples stores the lifecycle; events --ics exports it")
    func scanAndExport() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let store = "sqlite:\(tmp.path)/events.sqlite3"
        let scan = try ReservoirBinary.run([
            "scan", ReservoirBinary.samples.path, "--keys", ReservoirBinary.keys,
            "--allowed-domains", ReservoirBinary.allowed, "--now", ReservoirBinary.now, "--store", store,
            "--pass-ca", ReservoirBinary.passCA, "--allow-pass-type", "pass.example.cascadia-air.*",
        ])
        #expect(scan.status == 0, "\(scan.stderr)")
        #expect(scan.text.contains("Scanned: 11 messages read"))
        // The altered message, and the forwarded one without --me.
        #expect(scan.text.contains("2 untrusted"))
        #expect(scan.text.contains("untrusted-forward-not-from-me"))
        #expect(scan.text.contains("Found:   5 Restaurant, 3 Flight, 1 Event, 1 Hotel, 1 Train"))
        #expect(scan.text.contains("Time:    "))
        // Incremental: a second scan of the unchanged Maildir reads nothing again.
        let again = try ReservoirBinary.run([
            "scan", ReservoirBinary.samples.path, "--keys", ReservoirBinary.keys,
            "--allowed-domains", ReservoirBinary.allowed, "--now", ReservoirBinary.now, "--store", store,
            "--pass-ca", ReservoirBinary.passCA, "--allow-pass-type", "pass.example.cascadia-air.*",
        ])
        #expect(again.text.contains("Scanned: 0 messages read"))
        #expect(again.text.contains("11 unchanged since the last scan"))
        let forced = try ReservoirBinary.run([
            "scan", ReservoirBinary.samples.path, "--keys", ReservoirBinary.keys, "--rescan",
            "--allowed-domains", ReservoirBinary.allowed, "--now", ReservoirBinary.now, "--store", store,
            "--pass-ca", ReservoirBinary.passCA, "--allow-pass-type", "pass.example.cascadia-air.*",
        ])
        #expect(forced.text.contains("Scanned: 11 messages read"))
        let ics = try ReservoirBinary.run(["events", "--ics", "--store", store, "--now", ReservoirBinary.now])
        #expect(ics.status == 0, "\(ics.stderr)")
        #expect(ics.text.hasPrefix("BEGIN:VCALENDAR\r\n"))
        #expect(ics.text.contains("STATUS:CANCELLED"))
        #expect(!ics.text.contains("Trattoria"))  // the altered message is never stored
        let history = try ReservoirBinary.run(["events", "--history", "IWDSCA", "--store", store])
        #expect(history.text.contains("created") && history.text.contains("updated") && history.text.contains("cancelled"))
    }

    @Test("the forwarded sample: with --me the forward is the user's, and its reservation is stored and filtered")
    func forwardedSample() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let store = "sqlite:\(tmp.path)/events.sqlite3"
        let common = ["--keys", ReservoirBinary.keys, "--allowed-domains", ReservoirBinary.allowed, "--now", ReservoirBinary.now]
        let scan = try ReservoirBinary.run(["scan", ReservoirBinary.samples.path, "--me", "jane@home.example", "--store", store] + common)
        #expect(scan.status == 0, "\(scan.stderr)")
        #expect(scan.text.contains("1 untrusted"), "only the altered message: \(scan.text)")
        #expect(scan.text.contains("Forwarded  by jane@home.example, you (DKIM signature by home.example)"), "\(scan.text)")
        let ics = try ReservoirBinary.run(["events", "--ics", "--store", store, "--now", ReservoirBinary.now])
        #expect(ics.text.contains("Trattoria Lucca") && ics.text.contains("DTSTART:20310629T023000Z"), "\(ics.text)")
        let filter = try ReservoirBinary.run(
            ["filter", "--me", "jane@home.example", "--authserv-id", "mx.test", "--no-store"] + common, stdin: try ReservoirBinary.sampleMessage(11))
        #expect(filter.status == 0, "\(filter.stderr)")
        #expect(filter.text.contains("#TL-90417 (forwarded)") && !filter.text.contains("(untrusted) (forwarded)"), "\(filter.text.prefix(600))")
        let stranger = try ReservoirBinary.run(
            ["filter", "--authserv-id", "mx.test", "--no-store"] + common, stdin: try ReservoirBinary.sampleMessage(11))
        #expect(stranger.text.contains("#TL-90417 (untrusted) (forwarded)"), "\(stranger.text.prefix(600))")
        // extract lists what the forwarded message describes, trusted or not.
        let extract = try ReservoirBinary.run([
            "extract", try ReservoirBinary.sample(11), "--json", "--keys", ReservoirBinary.keys, "--now", ReservoirBinary.now,
        ])
        #expect(extract.status == 0, "\(extract.stderr)")
        let listed = try #require(try JSONSerialization.jsonObject(with: extract.stdout) as? [String: Any])
        let numbers = (listed["reservations"] as? [[String: Any]] ?? []).compactMap { ($0["reservationId"] ?? $0["reservationNumber"]) as? String }
        #expect(numbers == ["TL-90417"])
    }

    @Test("a scan on several threads prints and stores exactly what a one-thread scan does")
    func parallelScanIsDeterministic() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        var outputs: [String] = []
        for jobs in ["1", "3"] {
            let r = try ReservoirBinary.run([
                "scan", ReservoirBinary.samples.path, ReservoirBinary.samples.path,
                "--keys", ReservoirBinary.keys, "--allowed-domains", ReservoirBinary.allowed,
                "--now", ReservoirBinary.now, "--store", "sqlite:\(tmp.path)/j\(jobs).sqlite3",
                "--jobs", jobs, "--json",
            ])
            #expect(r.status == 0, "\(r.stderr)")
            outputs.append(r.text)
        }
        #expect(outputs[0] == outputs[1])
        // The second pass over the same Maildir replays every message: nothing changes.
        let changes = outputs[0].split(separator: "\n").compactMap { line -> [String]? in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let reservations = object["reservations"] as? [[String: Any]]
            else { return nil }
            return reservations.compactMap { $0["change"] as? String }
        }
        #expect(changes.count == 22)
        #expect(changes.suffix(11).allSatisfy { $0.allSatisfy { $0 == "unchanged" } })
    }

    @Test("filter passes the message through byte for byte with fields added at the top")
    func filter() throws {
        let message = try ReservoirBinary.sampleMessage(4)
        let r = try ReservoirBinary.run(
            [
                "filter", "--keys", ReservoirBinary.keys, "--allowed-domains", ReservoirBinary.allowed,
                "--now", ReservoirBinary.now, "--no-store", "--authserv-id", "mx.test",
            ], stdin: message)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.suffix(message.count) == message)
        let added = String(decoding: r.stdout.prefix(r.stdout.count - message.count), as: UTF8.self)
        #expect(added.hasPrefix("Authentication-Results: mx.test;"))
        #expect(added.contains("dkim=pass"))
        #expect(added.components(separatedBy: "X-Reservation: Flight").count == 3)
    }

    @Test(
        "filter passes garbage and empty input through unchanged, exit 0",
        arguments: [Data(), Data([0x00, 0xFF, 0x0A, 0x0D]), Data("no header at all".utf8)])
    func filterGarbage(input: Data) throws {
        let r = try ReservoirBinary.run(["filter", "--keys", ReservoirBinary.keys, "--no-store"], stdin: input)
        #expect(r.status == 0)
        #expect(r.stdout.suffix(input.count) == input)
    }

    @Test("an unreadable file is a clear error with EX_NOINPUT")
    func missingFile() throws {
        let r = try ReservoirBinary.run(["banner", "/nonexistent/message.eml", "--no-store"])
        #expect(r.status == 66)
        #expect(r.stderr.contains("/nonexistent/message.eml"))
    }

    /// A directory opens as a file but reads nothing: it was once taken for an empty list, which
    /// refused every sender without a word.
    @Test("an allowed-domains path that is a directory is a clear error with EX_NOINPUT")
    func allowedDomainsDirectory() throws {
        let directory = NSTemporaryDirectory()
        let r = try ReservoirBinary.run([
            "banner", try ReservoirBinary.sample(5), "--keys", ReservoirBinary.keys,
            "--allowed-domains", directory, "--now", ReservoirBinary.now, "--no-store",
        ])
        #expect(r.status == 66, "\(r.stderr)")
        #expect(r.stderr.contains("cannot read the allowed-domains file"))
    }

    @Test("verify prints one result per signature")
    func verify() throws {
        let r = try ReservoirBinary.run(["verify", try ReservoirBinary.sample(5), "--keys", ReservoirBinary.keys])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.text.contains("dkim=pass d=harborview-hotels.example s=s2026 a=rsa-sha256"))
    }

    @Test("extract --explain says what was repaired in Apple's broken example")
    func extractExplain() throws {
        let r = try ReservoirBinary.run(["extract", try ReservoirBinary.sample(1), "--explain", "--now", ReservoirBinary.now])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.text.contains("EPIC Steak"))
        #expect(r.text.contains("json-repaired"))
    }

    @Test("sign over-signs by default (a Cc the message lacks listed once, a Subject twice); --no-over-sign lists --headers as given")
    func signOverSigns() throws {
        let key = ReservoirBinary.packageRoot.appendingPathComponent("scripts/samples/sample-dkim-key.pem").path
        let message = Data("From: a@epicsteak.example\nTo: b@example.net\nSubject: Table\n\nbody\n".utf8)
        let common = ["sign", "--key", key, "--domain", "epicsteak.example", "--selector", "s2026", "--timestamp", "1795000000"]
        let over = try ReservoirBinary.run(common, stdin: message)
        #expect(over.status == 0, "\(over.stderr)")
        let unfolded = over.text.replacingOccurrences(of: "\n\t ", with: "")
        #expect(
            unfolded.contains("h=From:From:To:To:Cc:Subject:Subject:Date:Message-ID:Reply-To:MIME-Version:Content-Type:Content-Transfer-Encoding;"))
        let exact = try ReservoirBinary.run(common + ["--no-over-sign", "--headers", "From:Subject"], stdin: message)
        #expect(exact.status == 0, "\(exact.stderr)")
        #expect(exact.text.contains("h=From:Subject;"))
        let help = try ReservoirBinary.run(["help", "sign"])
        #expect(help.text.contains("--no-over-sign"))
    }

    @Test("banner, scan, verify, extract and parts write no control byte from the message; the verdict stays NOT TRUSTED")
    func hostileText() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let message = Data(
            """
            From: =?UTF-8?Q?EPIC=1B[2K=0D=E2=80=AE?= <reservations@epicsteak.example>\r
            Subject: =?UTF-8?Q?Table=1B[1A=1B[2K=0D=00=08=C2=9B?= \u{1B}[32mtrusted\r
            Content-Type: text/html; charset=utf-8\r
            \r
            <script type="application/ld+json">{"@context":"https://schema.org","@type":"FoodEstablishmentReservation",
            "reservationId":"X1","startTime":"2031-05-12T19:30:00-07:00",
            "reservationFor":{"@type":"Restaurant","name":"EPIC \\u2066\\u202e\\u2028 Trust trusted"}}</script>\r

            """.utf8)
        try FileManager.default.createDirectory(atPath: tmp.path + "/Maildir/cur", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: tmp.path + "/Maildir/new", withIntermediateDirectories: true)
        try message.write(to: URL(fileURLWithPath: tmp.path + "/Maildir/new/1.hostile"))
        let common = ["--keys", ReservoirBinary.keys, "--allowed-domains", ReservoirBinary.allowed, "--now", ReservoirBinary.now]
        let runs = [
            try ReservoirBinary.run(["banner", "-", "--no-store"] + common, stdin: message),
            try ReservoirBinary.run(["scan", tmp.path + "/Maildir", "--store", "sqlite:\(tmp.path)/e.sqlite3", "--explain"] + common),
            try ReservoirBinary.run(["verify", "-", "--keys", ReservoirBinary.keys, "--now", ReservoirBinary.now], stdin: message),
            try ReservoirBinary.run(["extract", "-", "--explain"], stdin: message),
            try ReservoirBinary.run(["parts", "-"], stdin: message),
        ]
        for r in runs {
            #expect(r.status == 0, "\(r.stderr)")
            #expect(!r.stdout.contains { $0 < 0x20 && $0 != 0x0A || $0 == 0x7F }, "\(r.text)")
            // C1 controls (C2 80–9F) and bidi controls or separators (E2 80 8E–8F, A8–AE; E2 81 A6–A9).
            let bytes = [UInt8](r.stdout)
            for i in bytes.indices.dropLast(2) {
                #expect(!(bytes[i] == 0xC2 && (0x80...0x9F).contains(bytes[i + 1])), "\(r.text)")
                #expect(
                    !(bytes[i] == 0xE2 && bytes[i + 1] == 0x80 && ((0x8E...0x8F).contains(bytes[i + 2]) || (0xA8...0xAE).contains(bytes[i + 2]))),
                    "\(r.text)")
                #expect(!(bytes[i] == 0xE2 && bytes[i + 1] == 0x81 && (0xA6...0xA9).contains(bytes[i + 2])), "\(r.text)")
            }
        }
        for banner in runs[0...1] {
            let trust = banner.text.split(separator: "\n").filter { $0.hasPrefix("  Trust ") }
            #expect(trust.count == 1 && trust[0].contains("NOT TRUSTED"), "\(banner.text)")
            #expect(banner.text.contains("Table\\x1B[1A\\x1B[2K\\x0D"))
        }
    }
}

@Suite("reservoir parts")
struct PartsCommandTests {
    @Test("parts --json shows decoded header fields and the numbered part tree")
    func partsJSON() throws {
        // RFC 2047 Subject, a filename in RFC 2231 form split inside a UTF-8 character, base64.
        let message = """
            From: =?UTF-8?Q?Caf=C3=A9?= Lucca <hello@lucca.example>
            To: jane@home.example
            Subject: =?UTF-8?B?SGVsbG8=?= =?UTF-8?B?IHdvcmxk?=
            Date: Tue, 17 Nov 2026 07:21:50 -0800
            Message-ID: <m1@lucca.example>
            MIME-Version: 1.0
            Content-Type: multipart/mixed; boundary="outer"

            preamble
            --outer
            Content-Type: text/plain; charset=iso-8859-1
            Content-Transfer-Encoding: quoted-printable

            Gr=FC=DFe
            --outer
            Content-Type: application/octet-stream
            Content-Disposition: attachment; filename*0*=UTF-8''%E2%98; filename*1*=%83.txt
            Content-Transfer-Encoding: base64

            aGVsbG8=
            --outer--

            """
        let r = try ReservoirBinary.run(["parts", "-", "--json"], stdin: Data(message.utf8))
        #expect(r.status == 0, "\(r.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
        #expect(object["subject"] as? String == "Hello world")
        #expect(object["date"] as? String == "2026-11-17T07:21:50-08:00")
        #expect(object["messageId"] as? String == "<m1@lucca.example>")
        let from = try #require((object["from"] as? [[String: Any]])?.first)
        #expect(from["name"] as? String == "Café Lucca")
        #expect(from["address"] as? String == "hello@lucca.example")
        let root = try #require((object["parts"] as? [[String: Any]])?.first)
        #expect(root["path"] as? String == "1")
        #expect(root["contentType"] as? String == "multipart/mixed")
        let children = try #require(root["children"] as? [[String: Any]])
        #expect(children.map { $0["path"] as? String } == ["1.1", "1.2"])
        #expect(children[0]["charset"] as? String == "iso-8859-1")
        #expect(children[0]["size"] as? Int == 5)  // "Grüße" in Latin-1; the line break before a boundary is not content
        #expect(children[1]["disposition"] as? String == "attachment")
        #expect(children[1]["filename"] as? String == "☃.txt")
        #expect(children[1]["size"] as? Int == 5)
    }

    @Test("parts tells what it worked around: a missing close delimiter")
    func partsDiagnostics() throws {
        let message = "From: a@b.example\nContent-Type: multipart/mixed; boundary=x\n\n--x\n\nbody\n"
        let r = try ReservoirBinary.run(["parts", "-"], stdin: Data(message.utf8))
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.text.contains("1.1  text/plain"))
        #expect(r.text.contains("missing-close-delimiter"))
    }

    @Test("parts on a missing file exits 66 with the path in the message")
    func partsMissing() throws {
        let r = try ReservoirBinary.run(["parts", "/nonexistent/message.eml"])
        #expect(r.status == 66)
        #expect(r.stderr.contains("/nonexistent/message.eml"))
    }
}
