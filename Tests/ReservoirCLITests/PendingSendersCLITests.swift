import Foundation
import Testing

extension ProcessSuites {
    /// Pending senders (docs/SECURITY.md, "Pending senders"): only a message a DKIM signature
    /// verified here, aligned with From and covering the markup, would vouch for waits as
    /// pending when its domain is not allowed; `allow` imports it, `deny` drops it for good.
    @Suite("pending senders: the person decides")
    struct PendingSendersCLITests {
        static let attacks = AttackAgreementTests.folder
        static let genuine = attacks.appendingPathComponent("control-html-7bit.eml").path

        /// The corpus's options without the allowed domain: every sender is one not chosen yet.
        static func options(_ expected: AttackAgreementTests.Expectation?, store: String, now: String = ReservoirBinary.now) -> [String] {
            ["--keys", ReservoirBinary.keys, "--now", now, "--store", "sqlite:" + store]
                + (expected?.me ?? []).flatMap { ["--me", $0] } + (expected?.arcSealers ?? []).flatMap { ["--trust-arc-sealer", $0] }
        }

        /// `reservoir pending --json`: the booking numbers pending per domain.
        static func pending(_ store: String, now: String = ReservoirBinary.now, extra: [String] = []) throws -> [String: [String]] {
            let run = try ReservoirBinary.run(["pending", "--json", "--store", "sqlite:" + store, "--now", now] + extra)
            #expect(run.status == 0, "\(run.stderr)")
            let json = try #require(try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])
            var result: [String: [String]] = [:]
            for sender in json["pending"] as? [[String: Any]] ?? [] {
                let domain = try #require(sender["domain"] as? String)
                result[domain] = (sender["reservations"] as? [[String: Any]] ?? []).compactMap { $0["booking"] as? String }.sorted()
            }
            return result
        }

        /// The booking numbers in the store.
        static func stored(_ store: String) throws -> [String] {
            let run = try ReservoirBinary.run(["events", "--json", "--all", "--store", "sqlite:" + store])
            let events = try #require(try JSONSerialization.jsonObject(with: run.stdout) as? [[String: Any]], "\(run.stderr)")
            return events.compactMap { ($0["key"] as? String)?.split(separator: "/").first.map(String.init) }.sorted()
        }

        /// The `sender` member of the genuine message's reservation in `banner --json` with the store.
        static func senderChoice(_ store: String) throws -> [String: String]? {
            let banner = try ReservoirBinary.run(["banner", "--json", genuine] + options(nil, store: store))
            let report = try #require(try JSONSerialization.jsonObject(with: banner.stdout) as? [String: Any], "\(banner.stderr)")
            return ((report["reservations"] as? [[String: Any]])?.first?["sender"] as? [String: String])
        }

        static func ingest(_ file: String, _ options: [String]) throws {
            let run = try ReservoirBinary.run(["ingest", file] + options)
            #expect(run.status == 0, "\(file): \(run.stderr)")
        }

        @Test(
            "across the attack corpus, a message waits as pending exactly when a DKIM signature verified here would vouch for it",
            arguments: AttackAgreementTests.names())
        func corpus(_ name: String) throws {
            let expected = try AttackAgreementTests.expectation(name)
            // The invitation sequences run in their own suite.
            guard expected.invitation == nil else { return }
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let store = tmp.path + "/events.sqlite3"
            try Self.ingest(Self.attacks.appendingPathComponent(name + ".eml").path, Self.options(expected, store: store) + ["--create"])
            let listed = FileManager.default.fileExists(atPath: store) ? try Self.pending(store) : [:]
            // Forged, misaligned, partially signed, unsigned or ARC-only: never pending. A genuine
            // message waits with exactly the reservations trust would have taken.
            let genuine = expected.trusted && (expected.arcSealers ?? []).isEmpty && !expected.reservations.isEmpty
            #expect(listed == (genuine ? ["epicsteak.example": expected.reservations.sorted()] : [:]), "\(name)")
            for forbidden in expected.forbidden {
                #expect(!listed.values.joined().contains(forbidden), "\(name): \(forbidden) waits")
            }
            if FileManager.default.fileExists(atPath: store) { #expect(try Self.stored(store) == [], "\(name)") }
        }

        @Test("allow imports the pending reservation into the store and a vdir, and the domain's later mail is trusted directly")
        func allow() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let store = tmp.path + "/events.sqlite3"
            let calendar = tmp.path + "/calendar"
            try FileManager.default.createDirectory(atPath: calendar, withIntermediateDirectories: true)
            try Self.ingest(Self.genuine, Self.options(nil, store: store) + ["--calendar", "vdir:" + calendar])
            #expect(try Self.pending(store) == ["epicsteak.example": ["GENUINE1"]])
            #expect(try Self.stored(store) == [])
            #expect(try FileManager.default.contentsOfDirectory(atPath: calendar) == [])

            let allowed = try ReservoirBinary.run(
                ["allow", "EpicSteak.example", "--keys", ReservoirBinary.keys, "--now", ReservoirBinary.now, "--store", "sqlite:" + store]
                    + ["--calendar", "vdir:" + calendar])
            #expect(allowed.status == 0, "\(allowed.stderr)")
            #expect(try Self.pending(store) == [:])
            #expect(try Self.stored(store) == ["GENUINE1"])
            let files = try FileManager.default.contentsOfDirectory(atPath: calendar)
            #expect(files.count == 1)
            let ics = try String(contentsOfFile: calendar + "/" + (files.first ?? ""), encoding: .utf8)
            #expect(ics.contains("EPIC Steak"))

            // Recorded with who decided.
            let listing = try ReservoirBinary.run(["pending", "--json", "--store", "sqlite:" + store, "--now", ReservoirBinary.now])
            let json = try #require(try JSONSerialization.jsonObject(with: listing.stdout) as? [String: Any])
            let decided = try #require((json["decided"] as? [[String: Any]])?.first)
            #expect(decided["domain"] as? String == "epicsteak.example")
            #expect(decided["decision"] as? String == "allow")
            #expect(decided["decidedAt"] as? String == ReservoirBinary.now)
            #expect((decided["decidedBy"] as? String)?.isEmpty == false)

            // Later mail from the domain, through the filter hook without --allow-domain: trusted.
            let message = try Data(contentsOf: Self.attacks.appendingPathComponent("control-multipart.eml"))
            let filtered = try ReservoirBinary.run(
                Self.options(nil, store: store) + ["--authserv-id", "mx.test"], stdin: message, executable: ReservoirBinary.filterExecutable)
            #expect(filtered.status == 0, "\(filtered.stderr)")
            let summaries = filtered.text.split(whereSeparator: \.isNewline).filter { $0.hasPrefix("X-Reservation:") }
            #expect(!summaries.isEmpty && summaries.allSatisfy { !$0.contains("(untrusted)") }, "\(summaries) \(filtered.stderr)")
            let banner = try ReservoirBinary.run(["banner", "--json", Self.genuine] + Self.options(nil, store: store))
            let report = try #require(try JSONSerialization.jsonObject(with: banner.stdout) as? [String: Any])
            #expect((report["trust"] as? [String: Any])?["trusted"] as? Bool == true, "\(banner.stderr)")
            #expect(try Self.pending(store) == [:])
        }

        /// The `X-Reservation` fields the filter hook adds to the genuine message with `store`.
        static func filterSummaries(_ store: String) throws -> [String] {
            let filtered = try ReservoirBinary.run(
                Self.options(nil, store: store) + ["--authserv-id", "mx.test"], stdin: try Data(contentsOf: URL(fileURLWithPath: Self.genuine)),
                executable: ReservoirBinary.filterExecutable)
            #expect(filtered.status == 0, "\(filtered.stderr)")
            // Unfolded (RFC 5322 §2.2.3): a long field goes on after a line break and white space.
            var fields: [String] = []
            for line in filtered.text.split(whereSeparator: \.isNewline) {
                if line.first == " " || line.first == "\t", let last = fields.indices.last {
                    fields[last] += String(line)
                } else {
                    fields.append(String(line))
                }
            }
            return fields.filter { $0.hasPrefix("X-Reservation:") }
        }

        @Test("deny drops the pending reservations, and the domain's later mail is refused without waiting")
        func deny() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let store = tmp.path + "/events.sqlite3"
            // The hook's fields say the genuine sender's reservation waits, not that it is untrusted.
            let waiting = try Self.filterSummaries(store)
            #expect(!waiting.isEmpty && waiting.allSatisfy { $0.hasSuffix("(pending)") }, "\(waiting)")
            try Self.ingest(Self.genuine, Self.options(nil, store: store))
            #expect(try Self.pending(store) == ["epicsteak.example": ["GENUINE1"]])
            #expect(try Self.senderChoice(store) == ["choice": "pending", "domain": "epicsteak.example"])
            let denied = try ReservoirBinary.run(["deny", "epicsteak.example", "--store", "sqlite:" + store, "--now", ReservoirBinary.now])
            #expect(denied.status == 0, "\(denied.stderr)")
            #expect(try Self.pending(store) == [:])
            try Self.ingest(Self.genuine, Self.options(nil, store: store))
            #expect(try Self.pending(store) == [:])
            #expect(try Self.stored(store) == [])
            // Denied, the fields say untrusted again.
            let refused = try Self.filterSummaries(store)
            #expect(!refused.isEmpty && refused.allSatisfy { $0.hasSuffix("(untrusted)") }, "\(refused)")
            let banner = try ReservoirBinary.run(["banner", "--json", Self.genuine] + Self.options(nil, store: store))
            let report = try #require(try JSONSerialization.jsonObject(with: banner.stdout) as? [String: Any])
            let codes = (report["diagnostics"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
            #expect(codes.contains("sender-denied") && !codes.contains("sender-pending"), "\(codes)")
            #expect(try Self.senderChoice(store) == ["choice": "denied", "domain": "epicsteak.example"])
            #expect((report["trust"] as? [String: Any])?["trusted"] as? Bool == false)
            // A configured allowed domain stays allowed: the configuration is the person's choice too.
            let configured = try ReservoirBinary.run(
                ["banner", "--json", Self.genuine, "--allow-domain", "epicsteak.example"] + Self.options(nil, store: store))
            let trusted = try #require(try JSONSerialization.jsonObject(with: configured.stdout) as? [String: Any])
            #expect((trusted["trust"] as? [String: Any])?["trusted"] as? Bool == true)
        }

        @Test("a scan keeps the genuine sender pending and its neighbours not; after allow, the next scan reads it again, trusted")
        func scan() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let store = tmp.path + "/events.sqlite3"
            let maildir = tmp.path + "/Maildir"
            for folder in ["cur", "new", "tmp"] {
                try FileManager.default.createDirectory(atPath: maildir + "/" + folder, withIntermediateDirectories: true)
            }
            for (index, name) in ["pending-control", "pending-forged", "pending-misaligned", "pending-partial", "pending-unsigned"].enumerated() {
                try FileManager.default.copyItem(
                    atPath: Self.attacks.appendingPathComponent(name + ".eml").path, toPath: "\(maildir)/cur/\(index).host:2,S")
            }
            let first = try ReservoirBinary.run(["scan", maildir, "--json"] + Self.options(nil, store: store))
            #expect(first.status == 0, "\(first.stderr)")
            #expect(try Self.pending(store) == ["epicsteak.example": ["GENUINE1"]])
            #expect(try Self.stored(store) == [])
            let allowed = try ReservoirBinary.run(
                ["allow", "epicsteak.example", "--keys", ReservoirBinary.keys, "--now", ReservoirBinary.now, "--store", "sqlite:" + store])
            #expect(allowed.status == 0, "\(allowed.stderr)")
            #expect(try Self.stored(store) == ["GENUINE1"])
            // The store's allowed domains are a trust setting: the files they could change are read again.
            let second = try ReservoirBinary.run(["scan", maildir, "--json"] + Self.options(nil, store: store))
            let summary = try #require(
                second.text.split(separator: "\n").last.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }?[
                    "summary"] as? [String: Any], "\(second.stderr)")
            #expect(summary["trusted"] as? Int == 1, "\(summary)")
            #expect(try Self.pending(store) == [:])
            #expect(try Self.stored(store) == ["GENUINE1"])
        }

        @Test("a message over the pending limit is never kept pending, yet read trusted by the hooks once its domain is allowed")
        func large() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let store = tmp.path + "/events.sqlite3"
            // A genuine confirmation with 3 MB of text after the markup: over the 1 MB kept for a
            // pending sender, and over the 2 MB read whole (read in pieces, from its file).
            let original = try String(contentsOfFile: Self.genuine, encoding: .utf8)
            let cut = try #require(original.range(of: "\r\n\r\n"))
            let header = original[..<cut.lowerBound].split(separator: "\r\n").filter { !$0.hasPrefix("DKIM-Signature") && !$0.hasPrefix(" ") }
            let body = String(original[cut.upperBound...]) + String(repeating: "<p>Terms and conditions apply.</p>\r\n", count: 90_000)
            let unsigned = Data((header.joined(separator: "\r\n") + "\r\n\r\n" + body).utf8)
            let key = ReservoirBinary.packageRoot.appendingPathComponent("scripts/samples/sample-dkim-key.pem").path
            let signed = try ReservoirBinary.run(
                ["sign", "--key", key, "--domain", "epicsteak.example", "--selector", "s2026", "--timestamp", "1795262400"], stdin: unsigned)
            #expect(signed.status == 0, "\(signed.stderr)")
            let file = tmp.path + "/large.eml"
            try signed.stdout.write(to: URL(fileURLWithPath: file))
            try Self.ingest(file, Self.options(nil, store: store))
            #expect(try Self.pending(store) == [:])
            let allowed = try ReservoirBinary.run(
                ["allow", "epicsteak.example", "--keys", ReservoirBinary.keys, "--now", ReservoirBinary.now, "--store", "sqlite:" + store])
            #expect(allowed.status == 0, "\(allowed.stderr)")
            #expect(try Self.stored(store) == [])
            try Self.ingest(file, Self.options(nil, store: store))
            #expect(try Self.stored(store) == ["GENUINE1"])
        }

        /// `received` of each pending reservation, by booking number.
        static func received(_ store: String, now: String) throws -> [String: String] {
            let run = try ReservoirBinary.run(["pending", "--json", "--store", "sqlite:" + store, "--now", now])
            let json = try #require(try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any], "\(run.stderr)")
            var result: [String: String] = [:]
            for sender in json["pending"] as? [[String: Any]] ?? [] {
                for reservation in sender["reservations"] as? [[String: Any]] ?? [] {
                    result[reservation["booking"] as? String ?? ""] = reservation["received"] as? String
                }
            }
            return result
        }

        @Test("a pending reservation waits from its message's arrival (the Maildir file's delivery time), not from the scan")
        func arrival() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            // ReservoirBinary.now is 2026-11-22T12:00:00Z (1795348800): the scan runs then.
            let yesterday: Int64 = 1_795_262_400
            let fortyDaysAgo: Int64 = 1_791_892_800
            func maildir(_ name: String, _ files: [(name: String, modified: Int64?)]) throws -> String {
                let path = tmp.path + "/" + name
                for folder in ["cur", "new", "tmp"] {
                    try FileManager.default.createDirectory(atPath: path + "/" + folder, withIntermediateDirectories: true)
                }
                for file in files {
                    let target = path + "/cur/" + file.name
                    try FileManager.default.copyItem(atPath: Self.genuine, toPath: target)
                    if let modified = file.modified {
                        try FileManager.default.setAttributes(
                            [.modificationDate: Date(timeIntervalSince1970: TimeInterval(modified))], ofItemAtPath: target)
                    }
                }
                return path
            }
            // Delivered 40 days ago, dated by its Maildir name or, without a dated name, its file's time: expired already.
            let old = try maildir("old", [("\(fortyDaysAgo).M1P1.mx.example:2,S", nil), ("copied:2,S", fortyDaysAgo)])
            let oldStore = tmp.path + "/old.sqlite3"
            let first = try ReservoirBinary.run(["scan", old] + Self.options(nil, store: oldStore))
            #expect(first.status == 0, "\(first.stderr)")
            #expect(try Self.pending(oldStore) == [:], "nothing waits for a choice past its pending-days")

            // Beside one delivered yesterday: that one waits, from yesterday.
            let both = try maildir("both", [("\(fortyDaysAgo).M1P1.mx.example:2,S", nil), ("\(yesterday).M2P2.mx.example:2,S", nil)])
            let store = tmp.path + "/events.sqlite3"
            let second = try ReservoirBinary.run(["scan", both] + Self.options(nil, store: store))
            #expect(second.status == 0, "\(second.stderr)")
            #expect(try Self.received(store, now: ReservoirBinary.now) == ["GENUINE1": "2026-11-21T12:00:00Z"])
            // 30 days after its arrival it has expired, though the scan found it only 29 days before.
            #expect(try Self.pending(store, now: "2026-12-21T11:00:00Z") == ["epicsteak.example": ["GENUINE1"]])
            #expect(try Self.pending(store, now: "2026-12-21T13:00:00Z") == [:])
        }

        @Test("a pending reservation expires after pending-days (default 30)")
        func expiry() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let store = tmp.path + "/events.sqlite3"
            try Self.ingest(Self.genuine, Self.options(nil, store: store))
            #expect(try Self.pending(store, now: "2026-12-21T12:00:00Z") == ["epicsteak.example": ["GENUINE1"]])
            #expect(try Self.pending(store, now: "2026-12-23T12:00:00Z") == [:])
            #expect(try Self.pending(store, now: "2026-12-23T12:00:00Z", extra: ["--pending-days", "40"]) == ["epicsteak.example": ["GENUINE1"]])
            // Expired ones are not imported by a later allow.
            let allowed = try ReservoirBinary.run(
                ["allow", "epicsteak.example", "--keys", ReservoirBinary.keys, "--now", "2026-12-23T12:00:00Z", "--store", "sqlite:" + store])
            #expect(allowed.status == 0, "\(allowed.stderr)")
            #expect(try Self.stored(store) == [])
        }
    }
}
