import DNSTestSupport
import Foundation
import Glibc
import TestRequirements
import Testing

extension ProcessSuites {
    /// Nothing lost on passing failures: a DNS temperror, an unusable store or a full disk leaves
    /// a retry record, and `reservoir retry` (or the next scan) records it, once.
    @Suite("retry: records kept on passing failures, applied once")
    struct RetryTests {
        static let options = ["--allowed-domains", ReservoirBinary.allowed, "--now", ReservoirBinary.now]

        /// A nameserver on loopback that answers SERVFAIL to every query.
        static func servfail() -> FaultTests.LoopbackNameserver {
            FaultTests.LoopbackNameserver { q in FaultTests.LoopbackNameserver.response(to: q, flags: 0x8182, answers: 0) }
        }

        static func records(_ spool: String) -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: spool)) ?? []).filter { $0.hasSuffix(".eml") || $0.hasSuffix(".path") }
                .sorted()
        }

        static func retry(_ spool: String, store: String, json: Bool = false) throws -> ReservoirBinary.Result {
            try ReservoirBinary.run(
                ["retry", "--keys", ReservoirBinary.keys, "--store", store, "--retry-spool", spool] + options + (json ? ["--json"] : []))
        }

        @Test("SERVFAIL for the key: the filter passes the message with dkim=temperror and keeps a copy; retry records the event once")
        func servfailThenRetry() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let spool = tmp.path + "/retry"
            let store = "sqlite:\(tmp.path)/events.sqlite3"
            let server = Self.servfail()
            defer { server.stop() }
            let message = try ReservoirBinary.sampleMessage(1)
            let r = try ReservoirBinary.run(
                ["filter", "--dns-server", "127.0.0.1:\(server.port)", "--dns-timeout", "1", "--store", store, "--retry-spool", spool]
                    + Self.options, stdin: message)
            #expect(r.status == 0)
            #expect(r.stdout.suffix(message.count) == message, "message not intact")
            let added = String(decoding: r.stdout.prefix(r.stdout.count - message.count), as: UTF8.self)
            #expect(added.hasPrefix("Authentication-Results:") && added.contains("dkim=temperror"), "\(added)")
            #expect(!added.contains("X-Reservoir-Error"), "\(added)")
            #expect(r.stderr.split(separator: "\n").count == 1 && r.stderr.contains("kept for reservoir retry"), "\(r.stderr)")
            let kept = Self.records(spool)
            #expect(kept.count == 1 && kept[0].hasSuffix(".eml"), "\(kept)")
            let copy = try Data(contentsOf: URL(fileURLWithPath: spool + "/" + kept[0]))
            #expect(copy == message, "the record is not the message")
            let attributes = try FileManager.default.attributesOfItem(atPath: spool + "/" + kept[0])
            #expect((attributes[.posixPermissions] as? Int) == 0o600)
            #expect(try FaultTests.events(store).isEmpty)

            // With the key reachable (the keys file here), retry records it; a second run finds nothing.
            let first = try Self.retry(spool, store: store, json: true)
            #expect(first.status == 0, "\(first.stderr)")
            let object = try JSONSerialization.jsonObject(with: first.stdout) as? [String: Any]
            let outcomes = object?["records"] as? [[String: Any]] ?? []
            #expect(outcomes.count == 1 && outcomes.first?["outcome"] as? String == "applied", "\(first.text)")
            #expect(object?["pending"] as? Int == 0)
            let second = try Self.retry(spool, store: store)
            #expect(second.status == 0 && second.text.contains("0 records"), "\(second.text)")
            let stored = try FaultTests.events(store)
            #expect(stored.count == 1 && stored[0].hasPrefix("IWDSCA"), "\(stored)")
            #expect(Self.records(spool).isEmpty)
        }

        @Test("two retry runs at once apply each record once")
        func concurrentRetries() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let spool = tmp.path + "/retry"
            let store = "sqlite:\(tmp.path)/events.sqlite3"
            for n in [1, 4, 5, 6] {
                let r = try ReservoirBinary.run(
                    ["ingest", "-", "--dns-server", "127.0.0.1:9", "--dns-timeout", "1", "--store", store, "--retry-spool", spool] + Self.options,
                    stdin: try ReservoirBinary.sampleMessage(n))
                #expect(r.status == 0, "\(r.stderr)")
            }
            #expect(Self.records(spool).count == 4)
            let lock = NSLock()
            nonisolated(unsafe) var applied = 0
            let group = DispatchGroup()
            for _ in 0..<2 {
                group.enter()
                Thread {
                    let r = try? Self.retry(spool, store: store, json: true)
                    let object = r.flatMap { try? JSONSerialization.jsonObject(with: $0.stdout) as? [String: Any] }
                    let count = (object?["records"] as? [[String: Any]] ?? []).filter { $0["outcome"] as? String == "applied" }.count
                    lock.lock()
                    applied += count
                    lock.unlock()
                    group.leave()
                }.start()
            }
            group.wait()
            #expect(applied == 4)
            #expect(try FaultTests.events(store).count == 5, "the restaurant, two flight legs, the hotel and the train")
            #expect(Self.records(spool).isEmpty)
        }

        @Test("a store that cannot be opened: the record is kept, retry against it keeps it (exit 75), then applies it once the store works")
        func unusableStore() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let spool = tmp.path + "/retry"
            let dead = "sqlite:/dev/null/events.sqlite3"
            let message = try ReservoirBinary.sampleMessage(4)
            let r = try ReservoirBinary.run(
                ["filter", "--keys", ReservoirBinary.keys, "--store", dead, "--retry-spool", spool] + Self.options, stdin: message)
            #expect(r.status == 0 && r.stdout.suffix(message.count) == message)
            let added = String(decoding: r.stdout.prefix(r.stdout.count - message.count), as: UTF8.self)
            #expect(added.contains("dkim=pass"), "the Authentication-Results stay: \(added)")
            #expect(Self.records(spool).count == 1)
            let again = try Self.retry(spool, store: dead)
            #expect(again.status == 75, "\(again.stderr)")
            #expect(Self.records(spool).count == 1, "the record must stay")
            let good = "sqlite:\(tmp.path)/events.sqlite3"
            #expect(try Self.retry(spool, store: good).status == 0)
            #expect(try FaultTests.events(good).count == 2, "both flight legs")
            #expect(Self.records(spool).isEmpty)
        }

        @Test("a genuine sender not chosen yet: its record is applied as pending, not failed as untrusted")
        func pendingRecord() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let spool = tmp.path + "/retry"
            let dead = "sqlite:/dev/null/events.sqlite3"
            let message = try Data(contentsOf: URL(fileURLWithPath: PendingSendersCLITests.genuine))
            let options = ["--keys", ReservoirBinary.keys, "--now", ReservoirBinary.now, "--retry-spool", spool]
            let r = try ReservoirBinary.run(["filter", "--store", dead] + options, stdin: message)
            #expect(r.status == 0 && r.stdout.suffix(message.count) == message)
            #expect(Self.records(spool).count == 1, "a message that would wait as pending is kept like a trusted one")
            let store = tmp.path + "/events.sqlite3"
            let retried = try ReservoirBinary.run(["retry", "--store", "sqlite:" + store] + options)
            #expect(retried.status == 0, "\(retried.stderr)")
            #expect(retried.text.contains("applied") && retried.text.contains("waits"), "\(retried.text)")
            #expect(Self.records(spool).isEmpty)
            #expect(((try? FileManager.default.contentsOfDirectory(atPath: spool + "/failed")) ?? []).isEmpty, "nothing failed")
            #expect(try PendingSendersCLITests.pending(store).count == 1)
        }

        @Test("an account's records are kept in its own spool and retried into its own bookings, never the implicit account's")
        func accountRecords() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let spool = tmp.path + "/retry"
            let dead = "sqlite:/dev/null/events.sqlite3"
            // The samples name jane@home.example: the household's domain is each account's too.
            let environment = try AccountsCLITests.siteConfiguration(in: tmp.path)
            let accounts = [(4, "jane@example.org"), (5, "joe@Example.ORG"), (6, "")]
            for (sample, account) in accounts {
                let message = try ReservoirBinary.sampleMessage(sample)
                let r = try ReservoirBinary.run(
                    ["filter", "--keys", ReservoirBinary.keys, "--store", dead, "--retry-spool", spool]
                        + (account.isEmpty ? [] : ["--account", account]) + Self.options, stdin: message, environment: environment)
                #expect(r.status == 0 && r.stdout.suffix(message.count) == message)
            }
            #expect(Self.records(spool).count == 1, "the implicit account's record at the top")
            #expect(Self.records(spool + "/accounts/jane@example.org").count == 1)
            #expect(Self.records(spool + "/accounts/joe@example.org").count == 1, "the domain lowercased, as the account is")
            let good = "sqlite:\(tmp.path)/events.sqlite3"
            // With --account, that account's records only.
            let janeOnly = try ReservoirBinary.run(
                ["retry", "--keys", ReservoirBinary.keys, "--store", good, "--retry-spool", spool, "--account", "jane@example.org", "--json"]
                    + Self.options, environment: environment)
            #expect(janeOnly.status == 0, "\(janeOnly.stderr)")
            #expect(Self.records(spool + "/accounts/jane@example.org").isEmpty)
            #expect(Self.records(spool + "/accounts/joe@example.org").count == 1)
            #expect(Self.records(spool).count == 1)
            // Without, every account's, each into its own bookings.
            let all = try ReservoirBinary.run(
                ["retry", "--keys", ReservoirBinary.keys, "--store", good, "--retry-spool", spool, "--json"] + Self.options,
                environment: environment)
            #expect(all.status == 0, "\(all.stderr)")
            let object = try JSONSerialization.jsonObject(with: all.stdout) as? [String: Any]
            let outcomes = object?["records"] as? [[String: Any]] ?? []
            #expect(outcomes.map { $0["account"] as? String ?? "" } == ["", "joe@example.org"], "\(all.text)")
            #expect(outcomes.allSatisfy { $0["outcome"] as? String == "applied" }, "\(all.text)")
            func events(_ account: String) throws -> [String] {
                let r = try ReservoirBinary.run(
                    ["events", "--all", "--json", "--store", good, "--now", ReservoirBinary.now] + (account.isEmpty ? [] : ["--account", account]))
                let list = try JSONSerialization.jsonObject(with: r.stdout) as? [[String: Any]] ?? []
                return list.compactMap { $0["key"] as? String }.sorted()
            }
            let (jane, joe) = (try events("jane@example.org"), try events("joe@example.org"))
            #expect(jane.count == 2 && jane.allSatisfy { $0.hasPrefix("K7Q2PX/") }, "both flight legs: \(jane)")
            #expect(joe.count == 1 && !jane.contains(joe[0]), "the hotel alone: \(joe)")
            let listed = try ReservoirBinary.run(["accounts", "--json", "--store", good])
            #expect(listed.status == 0, "\(listed.stderr)")
            let counts = (try JSONSerialization.jsonObject(with: listed.stdout) as? [[String: Any]] ?? []).map {
                "\($0["account"] as? String ?? "?")=\($0["events"] as? Int ?? -1)"
            }
            #expect(counts == ["=1", "jane@example.org=2", "joe@example.org=1"], "\(listed.text)")
        }

        @Test(
            "a store on a read-only file system: the record is kept and retry against it keeps it",
            .enabled(if: FaultTests.canMount, "needs root and mount(8) for a small tmpfs"))
        func readOnlyStore() throws {
            let fs = try #require(FaultTests.SmallFileSystem(kilobytes: 1024))
            defer { fs.remove() }
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let spool = tmp.path + "/retry"
            let store = "sqlite:\(fs.path)/events.sqlite3"
            _ = try FaultTests.filter(try ReservoirBinary.sampleMessage(1), store: store)
            try #require(fs.remountReadOnly())
            let r = try ReservoirBinary.run(
                ["filter", "--keys", ReservoirBinary.keys, "--store", store, "--retry-spool", spool] + Self.options,
                stdin: try ReservoirBinary.sampleMessage(4))
            #expect(r.status == 0)
            #expect(Self.records(spool).count == 1, "\(r.stderr)")
            let again = try Self.retry(spool, store: store)
            #expect(again.status == 75, "\(again.text) \(again.stderr)")
            #expect(Self.records(spool).count == 1)
        }

        @Test(
            "a full disk under the store: the record is kept in the spool on another file system, and applied once there is room",
            .enabled(if: FaultTests.canMount, "needs root and mount(8) for a small tmpfs"))
        func diskFull() throws {
            let fs = try #require(FaultTests.SmallFileSystem(kilobytes: 512))
            defer { fs.remove() }
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let spool = tmp.path + "/retry"
            let store = "sqlite:\(fs.path)/events.sqlite3"
            _ = try FaultTests.filter(try ReservoirBinary.sampleMessage(1), store: store)
            fs.fill()
            let r = try ReservoirBinary.run(
                ["filter", "--keys", ReservoirBinary.keys, "--store", store, "--retry-spool", spool] + Self.options,
                stdin: try ReservoirBinary.sampleMessage(4))
            #expect(r.status == 0)
            #expect(Self.records(spool).count == 1, "\(r.stderr)")
            fs.unfill()
            #expect(try Self.retry(spool, store: store).status == 0)
            #expect(try FaultTests.events(store).count == 3)
        }

        @Test("ingest of a file keeps its path; retry finds it after the Maildir moved it from new/ to cur/ with flags")
        func pathRecordFollowsMaildir() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let spool = tmp.path + "/retry"
            for sub in ["new", "cur", "tmp"] {
                try FileManager.default.createDirectory(atPath: "\(tmp.path)/Maildir/\(sub)", withIntermediateDirectories: true)
            }
            let path = "\(tmp.path)/Maildir/new/1790000000.M1P1.host"
            try ReservoirBinary.sampleMessage(1).write(to: URL(fileURLWithPath: path))
            let store = "sqlite:\(tmp.path)/events.sqlite3"
            let r = try ReservoirBinary.run(
                ["ingest", path, "--dns-server", "127.0.0.1:9", "--dns-timeout", "1", "--store", store, "--retry-spool", spool] + Self.options)
            #expect(r.status == 0, "\(r.stderr)")
            let kept = Self.records(spool)
            #expect(kept.count == 1 && kept[0].hasSuffix(".path"), "\(kept)")
            #expect(try String(contentsOfFile: spool + "/" + kept[0], encoding: .utf8) == path + "\n")
            try FileManager.default.moveItem(atPath: path, toPath: "\(tmp.path)/Maildir/cur/1790000000.M1P1.host:2,S")
            #expect(try Self.retry(spool, store: store).status == 0)
            #expect(try FaultTests.events(store).count == 1)
        }

        @Test("a record that cannot succeed moves to failed/ with its reason; the retry exits 0")
        func permanentFailure() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let spool = tmp.path + "/retry"
            try FileManager.default.createDirectory(atPath: spool, withIntermediateDirectories: true)
            try Data("From: a@example.com\nSubject: hello\n\nno reservation here\n".utf8).write(
                to: URL(fileURLWithPath: spool + "/1.M1P1R1.host.eml"))
            try Data("/nonexistent/message\n".utf8).write(to: URL(fileURLWithPath: spool + "/2.M1P1R1.host.path"))
            let r = try Self.retry(spool, store: "sqlite:\(tmp.path)/events.sqlite3")
            #expect(r.status == 0, "\(r.stderr)")
            #expect(Self.records(spool).isEmpty)
            let failed = Self.records(spool + "/failed")
            #expect(failed == ["1.M1P1R1.host.eml", "2.M1P1R1.host.path"], "\(failed)")
            let reason = try String(contentsOfFile: spool + "/failed/2.M1P1R1.host.path.reason", encoding: .utf8)
            #expect(reason.contains("no longer exists"), "\(reason)")
        }

        @Test("a full retry spool: the message still goes out, with X-Reservoir-Error saying it was not kept")
        func boundedSpool() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let spool = tmp.path + "/retry"
            try FileManager.default.createDirectory(atPath: spool, withIntermediateDirectories: true)
            // The count limit (RetrySpool.maximumRecords), reached with empty records.
            for n in 0..<1000 { _ = FileManager.default.createFile(atPath: spool + "/\(n).M0P0R0.host.eml", contents: Data()) }
            let message = try ReservoirBinary.sampleMessage(1)
            let r = try ReservoirBinary.run(
                ["filter", "--dns-server", "127.0.0.1:9", "--dns-timeout", "1", "--store", "sqlite:\(tmp.path)/e.sqlite3", "--retry-spool", spool]
                    + Self.options, stdin: message)
            #expect(r.status == 0 && r.stdout.suffix(message.count) == message)
            let added = String(decoding: r.stdout.prefix(r.stdout.count - message.count), as: UTF8.self)
            #expect(added.contains("dkim=temperror") && added.contains("X-Reservoir-Error: retry: not kept"), "\(added)")
            #expect(r.stderr.contains("is full"), "\(r.stderr)")
            #expect(Self.records(spool).count == 1000)
        }

        @Test("scan processes pending records first, and keeps a path record for a message whose key lookup failed")
        func scanRetriesFirst() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let spool = tmp.path + "/retry"
            let store = "sqlite:\(tmp.path)/events.sqlite3"
            _ = try ReservoirBinary.run(
                ["ingest", "-", "--dns-server", "127.0.0.1:9", "--dns-timeout", "1", "--store", store, "--retry-spool", spool] + Self.options,
                stdin: try ReservoirBinary.sampleMessage(1))
            #expect(Self.records(spool).count == 1)
            let file = tmp.path + "/flight.eml"
            try ReservoirBinary.sampleMessage(4).write(to: URL(fileURLWithPath: file))
            // The pending record is applied with the keys file; the flight is scanned with a dead DNS server.
            let scan = try ReservoirBinary.run(
                ["scan", file, "--dns-server", "127.0.0.1:9", "--dns-timeout", "1", "--store", store, "--retry-spool", spool] + Self.options)
            #expect(scan.stderr.contains("retry: 1 record"), "\(scan.stderr)")
            let kept = Self.records(spool)
            #expect(kept.count == 2 || kept.count == 1, "\(kept)")
            #expect(kept.contains { $0.hasSuffix(".path") }, "\(kept)")
            let retried = try Self.retry(spool, store: store)
            #expect(retried.status == 0, "\(retried.text)")
            #expect(try FaultTests.events(store).count == 3)
        }
    }
}

extension ProcessSuites.RetryTests {
    @Test(
        "a store locked by another writer past the time budget: the record is kept before the budget runs out",
        .enabled(if: Requirement.met(FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")), "needs python3 to hold the lock"))
    func lockedStore() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let spool = tmp.path + "/retry"
        let path = tmp.path + "/events.sqlite3"
        _ = try ProcessSuites.FaultTests.filter(try ReservoirBinary.sampleMessage(1), store: "sqlite:\(path)")
        // Another writer holds the store's write lock for 6 s, longer than the filter's budget of 3.
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        holder.arguments = [
            "-c",
            "import sqlite3, sys, time\nc = sqlite3.connect(sys.argv[1], isolation_level=None)\nc.execute('BEGIN IMMEDIATE')\nprint('locked', flush=True)\ntime.sleep(6)",
            path,
        ]
        let ready = Pipe()
        holder.standardOutput = ready
        try holder.run()
        _ = ready.fileHandleForReading.availableData  // "locked"
        let message = try ReservoirBinary.sampleMessage(4)
        let started = Date()
        let r = try ReservoirBinary.run(
            ["filter", "--keys", ReservoirBinary.keys, "--store", "sqlite:\(path)", "--timeout", "3", "--retry-spool", spool] + Self.options,
            stdin: message)
        let elapsed = Date().timeIntervalSince(started)
        #expect(r.status == 0 && r.stdout.suffix(message.count) == message)
        let added = String(decoding: r.stdout.prefix(r.stdout.count - message.count), as: UTF8.self)
        #expect(added.contains("dkim=pass") && !added.contains("time budget"), "\(added)")
        #expect(Self.records(spool).count == 1, "\(r.stderr)")
        #expect(elapsed < 3, "took \(elapsed) s")
        holder.waitUntilExit()
        #expect(try Self.retry(spool, store: "sqlite:\(path)").status == 0)
        #expect(try ProcessSuites.FaultTests.events("sqlite:\(path)").count == 3)
    }
}
