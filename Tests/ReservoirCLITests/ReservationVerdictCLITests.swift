import Foundation
import Testing

/// Every reservation carries its own verdict in `banner --json`, `scan --json` and
/// `extract --json` (`trusted`, `refusal` `{code, reason}`, `proof`), so a program never combines
/// the message's DKIM decision with hints of the item; `verify` reports the policy result the
/// filter writes; `extract --json` writes dates as ISO 8601.
@Suite("one verdict per reservation, in every JSON output")
struct ReservationVerdictCLITests {
    static let attacks = ReservoirBinary.packageRoot.appendingPathComponent("Tests/PipelineTests/Attacks")
    static let corpus = ReservoirBinary.packageRoot.appendingPathComponent("Tests/ReservoirCLITests/Corpus")
    static let options = ["--keys", ReservoirBinary.keys, "--allow-domain", "epicsteak.example", "--now", ReservoirBinary.now]
    /// `verify` checks signatures; it takes no policy options.
    static let verifyOptions = ["--keys", ReservoirBinary.keys, "--now", ReservoirBinary.now]
    static let passOptions = ["--pass-ca", ReservoirBinary.passCA, "--allow-pass-type", "pass.example.cascadia-air.*"]

    static func object(_ result: ReservoirBinary.Result) throws -> [String: Any] {
        #expect(result.status == 0, "\(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any], "\(result.text.prefix(400))")
    }

    /// The reservations of one message in the three outputs: `banner --json`'s, `scan --json`'s
    /// (its first line), and `extract --json`'s; with the message-level `trust` of the first two.
    static func threeOutputs(_ path: String, _ options: [String]) throws -> [(output: String, trust: [String: Any]?, items: [[String: Any]])] {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let banner = try object(try ReservoirBinary.run(["banner", path, "--json"] + options))
        let scanRun = try ReservoirBinary.run(["scan", path, "--json", "--store", "sqlite:\(tmp.path)/events.sqlite3"] + options)
        #expect(scanRun.status == 0, "\(scanRun.stderr)")
        let firstLine = try #require(scanRun.text.split(separator: "\n").first)
        let scan = try #require(try JSONSerialization.jsonObject(with: Data(firstLine.utf8)) as? [String: Any])
        let extract = try object(try ReservoirBinary.run(["extract", path, "--json"] + options))
        return [
            ("banner", banner["trust"] as? [String: Any], banner["reservations"] as? [[String: Any]] ?? []),
            ("scan", scan["trust"] as? [String: Any], scan["reservations"] as? [[String: Any]] ?? []),
            ("extract", nil, extract["reservations"] as? [[String: Any]] ?? []),
        ]
    }

    /// The booking number of an item in any of the outputs (banner's `reservationId`, or the
    /// schema.org members of extract's JSON-LD).
    static func number(_ item: [String: Any]) -> String? {
        (item["reservationId"] ?? item["reservationNumber"]) as? String
    }

    @Test("a trusted message with a refused invitation: the message is trusted, the event is not, each says so")
    func refusedInvitation() throws {
        let path = Self.attacks.appendingPathComponent("ics-organizer-not-aligned.eml").path
        for (output, trust, items) in try Self.threeOutputs(path, Self.options) {
            if let trust { #expect(trust["trusted"] as? Bool == true, "\(output): the message-level DKIM decision") }
            let item = try #require(items.first, "\(output)")
            #expect(items.count == 1, "\(output)")
            #expect(item["trusted"] as? Bool == false, "\(output)")
            let refusal = try #require(item["refusal"] as? [String: Any], "\(output)")
            #expect(refusal["code"] as? String == "organizer-not-aligned", "\(output)")
            #expect((refusal["reason"] as? String)?.contains("events@attacker.example") == true, "\(output)")
            #expect(item["proof"] as? [String: String] == ["kind": "dkim", "domain": "epicsteak.example"], "\(output)")
        }
        // Its control: the same invitation by the sender's own ORGANIZER is trusted, without refusal.
        let control = Self.attacks.appendingPathComponent("ics-control.eml").path
        for (output, _, items) in try Self.threeOutputs(control, Self.options) {
            let item = try #require(items.first, "\(output)")
            #expect(item["trusted"] as? Bool == true, "\(output)")
            #expect(item["refusal"] == nil, "\(output)")
            #expect(item["proof"] as? [String: String] == ["kind": "dkim", "domain": "epicsteak.example"], "\(output)")
        }
    }

    /// An unsigned message from a stranger: a genuine Wallet pass (the sample's) beside markup
    /// the stranger wrote.
    static func passBesideMarkup() throws -> Data {
        let pass = try Data(contentsOf: ReservoirBinary.packageRoot.appendingPathComponent("scripts/samples/cascadia-air-boarding.pkpass"))
        let markup = """
            <script type="application/ld+json">{"@context": "https://schema.org", "@type": "FoodEstablishmentReservation",
            "reservationNumber": "STRANGER1", "reservationStatus": "https://schema.org/ReservationConfirmed",
            "startTime": "2031-06-11T19:00:00-07:00", "reservationFor": {"@type": "Restaurant", "name": "Complimentary dinner"}}</script>
            """
        let text = """
            From: Someone <someone@elsewhere.example>\r
            To: jane@home.example\r
            Subject: your boarding pass, and dinner\r
            Date: Sun, 22 Nov 2026 06:15:30 +0000\r
            MIME-Version: 1.0\r
            Content-Type: multipart/mixed; boundary="b"\r
            \r
            --b\r
            Content-Type: text/html; charset=utf-8\r
            \r
            <html><body>\(markup)</body></html>\r
            --b\r
            Content-Type: application/vnd.apple.pkpass\r
            Content-Disposition: attachment; filename="boarding-pass.pkpass"\r
            Content-Transfer-Encoding: base64\r
            \r
            \(pass.base64EncodedString(options: .lineLength76Characters))\r
            --b--\r

            """
        return Data(text.utf8)
    }

    @Test("a trusted pass beside untrusted markup: each reservation its own verdict and proof")
    func passBesideUntrustedMarkup() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let path = tmp.path + "/pass-and-markup.eml"
        try Self.passBesideMarkup().write(to: URL(fileURLWithPath: path))
        for (output, trust, items) in try Self.threeOutputs(path, Self.options + Self.passOptions) {
            if let trust { #expect(trust["trusted"] as? Bool == false, "\(output): the message-level DKIM decision") }
            #expect(items.count == 2, "\(output)")
            let markup = try #require(items.first { Self.number($0) == "STRANGER1" }, "\(output)")
            #expect(markup["trusted"] as? Bool == false, "\(output)")
            #expect((markup["refusal"] as? [String: Any])?["code"] as? String == "no-signature", "\(output)")
            #expect(markup["proof"] == nil, "\(output)")
            let pass = try #require(items.first { Self.number($0) == "M4XT9B" }, "\(output)")
            #expect(pass["trusted"] as? Bool == true, "\(output)")
            #expect(pass["refusal"] == nil, "\(output)")
            let proof = try #require(pass["proof"] as? [String: Any], "\(output)")
            #expect(proof["kind"] as? String == "pass", "\(output)")
            #expect(proof["passType"] as? String == "pass.example.cascadia-air.boarding", "\(output)")
            #expect(proof["teamIdentifier"] as? String == "C4SC4D1A77", "\(output)")
        }
        // Without --allow-pass-type the pass is verified but not allowed: a proof, and a refusal.
        let banner = try Self.object(try ReservoirBinary.run(["banner", path, "--json", "--pass-ca", ReservoirBinary.passCA] + Self.options))
        let pass = try #require((banner["reservations"] as? [[String: Any]])?.first { Self.number($0) == "M4XT9B" })
        #expect(pass["trusted"] as? Bool == false)
        #expect((pass["refusal"] as? [String: Any])?["code"] as? String == "pass-type-not-allowed")
        #expect((pass["proof"] as? [String: Any])?["kind"] as? String == "pass")
    }

    @Test("a forwarded confirmation: the proof is the forward's, holding the attached message's")
    func forwardedProof() throws {
        let path = try ReservoirBinary.sample(11)
        let options = ["--keys", ReservoirBinary.keys, "--allowed-domains", ReservoirBinary.allowed, "--now", ReservoirBinary.now]
        let mine = try Self.object(try ReservoirBinary.run(["extract", path, "--json", "--me", "jane@home.example"] + options))
        let item = try #require((mine["reservations"] as? [[String: Any]])?.first)
        #expect(item["trusted"] as? Bool == true)
        let proof = try #require(item["proof"] as? [String: Any])
        #expect(proof["kind"] as? String == "forward")
        #expect(proof["forwarder"] as? String == "jane@home.example")
        #expect(proof["via"] as? [String: String] == ["method": "dkim", "domain": "home.example"])
        #expect(proof["message"] as? [String: String] == ["kind": "dkim", "domain": "trattorialucca.example"])
        // Forwarded by someone who is not shown to be the user: refused, the attached message's proof still there.
        let stranger = try Self.object(try ReservoirBinary.run(["banner", path, "--json"] + options))
        let inner = try #require(((stranger["forwarded"] as? [[String: Any]])?.first?["message"] as? [String: Any]))
        let refused = try #require((inner["reservations"] as? [[String: Any]])?.first)
        #expect(refused["trusted"] as? Bool == false)
        #expect((refused["refusal"] as? [String: Any])?["code"] as? String == "forward-not-from-me")
        #expect((refused["proof"] as? [String: Any])?["via"] == nil)
    }

    @Test("verify reports the filter's dkim=policy beside a signature that passes on a message with two From")
    func verifyPolicy() throws {
        for (name, reason, refusal) in [
            ("c6-prepend-from", "multiple From fields", "multiple-from"), ("c7-from-after-header-limit", "too many header fields", "header-limit"),
        ] {
            let path = Self.attacks.appendingPathComponent(name + ".eml").path
            let json = try Self.object(try ReservoirBinary.run(["verify", path, "--json", "--authserv-id", "mx.test"] + Self.verifyOptions))
            let signature = try #require((json["signatures"] as? [[String: Any]])?.first, "\(name)")
            #expect(signature["result"] as? String == "pass", "\(name): the cryptographic result stays")
            let policy = try #require(signature["policy"] as? [String: String], "\(name)")
            #expect(policy == ["result": "policy", "reason": reason, "refusal": refusal], "\(name)")
            #expect((json["authenticationResults"] as? String)?.contains("dkim=policy reason=\"\(reason)\"") == true, "\(name)")
            let text = try ReservoirBinary.run(["verify", path] + Self.verifyOptions)
            #expect(text.text.contains("policy: written dkim=policy reason=\"\(reason)\""), "\(name): \(text.text)")
            // The filter writes the same.
            let filtered = try ReservoirBinary.run(
                Self.options + ["--no-store", "--authserv-id", "mx.test"], stdin: try Data(contentsOf: URL(fileURLWithPath: path)),
                executable: ReservoirBinary.filterExecutable)
            #expect(filtered.text.contains("dkim=policy reason=\"\(reason)\""), "\(name)")
        }
        // The control: one From, nothing but the signature's own result.
        let control = Self.attacks.appendingPathComponent("control-multipart.eml").path
        let json = try Self.object(try ReservoirBinary.run(["verify", control, "--json"] + Self.verifyOptions))
        let signature = try #require((json["signatures"] as? [[String: Any]])?.first)
        #expect(signature["result"] as? String == "pass")
        #expect(signature["policy"] == nil)
    }

    @Test("a second unsigned To without --me changes nothing, and the banner says the recipient was not checked")
    func duplicatedToWithoutMe() throws {
        let path = Self.attacks.appendingPathComponent("to-duplicated-without-me.eml").path
        let banner = try ReservoirBinary.run(["banner", path] + Self.options)
        #expect(banner.text.contains("recipient not checked (no --me)"), "\(banner.text)")
        let json = try Self.object(try ReservoirBinary.run(["banner", path, "--json"] + Self.options))
        #expect((json["trust"] as? [String: Any])?["recipient"] as? String == "not-checked")
        #expect((json["reservations"] as? [[String: Any]])?.first?["trusted"] as? Bool == true)
        // With --me the same field refuses: the instance read would say whom the message was for.
        let bound = try Self.object(try ReservoirBinary.run(["banner", path, "--json", "--me", "jane@example.org"] + Self.options))
        #expect(((bound["trust"] as? [String: Any])?["refusals"] as? [String])?.first == "duplicate-field")
    }

    /// Where schema.org keeps the dates Reservoir reads.
    static let dateProperties: Set<String> = [
        "startTime", "endTime", "checkinTime", "checkoutTime", "checkinDate", "checkoutDate", "pickupTime", "dropoffTime",
        "departureTime", "arrivalTime", "startDate", "endDate", "modifiedTime",
    ]

    /// ISO 8601 as the normalized JSON writes it: a date, or a date-time (seconds and fraction
    /// optional) with `Z` or `±HH:MM`, or without offset.
    static func isISO8601(_ text: String) -> Bool {
        text.range(of: #"^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?)?$"#, options: .regularExpression) != nil
    }

    /// Every string of a date property in `value`, with its path.
    static func dates(in value: Any, path: String = "") -> [(String, String)] {
        if let object = value as? [String: Any] {
            return object.flatMap { key, member -> [(String, String)] in
                if dateProperties.contains(key), let text = member as? String { return [(path + key, text)] }
                return dates(in: member, path: path + key + ".")
            }
        }
        if let list = value as? [Any] { return list.flatMap { dates(in: $0, path: path) } }
        return []
    }

    @Test("extract --json writes every date it read as ISO 8601, the sender's text beside it", arguments: ["date-day-first-dashes.eml"])
    func isoDates(_ file: String) throws {
        let json = try Self.object(
            try ReservoirBinary.run(["extract", Self.corpus.appendingPathComponent(file).path, "--json", "--now", "2026-11-23T12:00:00Z"]))
        let item = try #require((json["reservations"] as? [[String: Any]])?.first)
        #expect(item["startTime"] as? String == "2031-06-15T20:00:00+02:00")
        #expect(item["reservoir:originalStartTime"] as? String == "15-06-2031 20:00")
    }

    @Test("no date in extract --json of the senders' corpus is other than ISO 8601")
    func corpusDatesAreISO() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.corpus.path).filter { $0.hasSuffix(".eml") }.sorted()
        #expect(files.count >= 25)
        var checked = 0
        for file in files {
            let json = try Self.object(
                try ReservoirBinary.run(["extract", Self.corpus.appendingPathComponent(file).path, "--json", "--now", "2026-11-23T12:00:00Z"]))
            for (path, text) in Self.dates(in: json["reservations"] ?? []) {
                #expect(Self.isISO8601(text), "\(file): \(path) \(text)")
                checked += 1
            }
        }
        #expect(checked >= 40)
    }
}
