import Foundation
import Glibc
import Testing

extension ProcessSuites {
    /// Faults a mail host meets: parallel deliveries, a dead store, a dead DNS server, a process
    /// killed mid-write. Mail is never lost and no event is duplicated or half-written.
    @Suite("faults: concurrency, store and DNS failures, kill -9")
    struct FaultTests {
        static var baseOptions: [String] {
            ["--keys", ReservoirBinary.keys, "--allowed-domains", ReservoirBinary.allowed, "--now", ReservoirBinary.now]
        }

        /// The stored events as (key, status) lines, sorted, from `events --all --json`.
        static func events(_ store: String) throws -> [String] {
            let r = try ReservoirBinary.run(["events", "--all", "--json", "--store", store, "--now", ReservoirBinary.now])
            let list = try JSONSerialization.jsonObject(with: r.stdout) as? [[String: Any]] ?? []
            return list.map { item in
                let id = item["reservationId"] as? String ?? "?"
                let status = item["reservationStatus"] as? String ?? "?"
                let leg = (item["reservationFor"] as? [String: Any])?["flightNumber"] as? String ?? ""
                return "\(id) \(leg) \(status)"
            }.sorted()
        }

        @Test("50 filter processes at once on one SQLite store record every reservation once")
        func concurrentFilters() throws {
            let tmp = try TemporaryDirectory(); defer { tmp.remove() }
            let store = "sqlite:\(tmp.path)/events.sqlite3"
            // The same deliveries one at a time give the reference.
            let reference = "sqlite:\(tmp.path)/reference.sqlite3"
            for n in [4, 5, 6, 1] {
                let message = try Data(contentsOf: URL(fileURLWithPath: try ReservoirBinary.sample(n)))
                _ = try ReservoirBinary.run(["filter", "--store", reference] + Self.baseOptions, stdin: message)
            }
            // 50 deliveries of the flight, hotel, train and restaurant confirmations, in parallel.
            let numbers = (0..<50).map { [4, 5, 6, 1][$0 % 4] }
            let messages = try numbers.map { try Data(contentsOf: URL(fileURLWithPath: try ReservoirBinary.sample($0))) }
            let lock = NSLock()
            nonisolated(unsafe) var results = [ReservoirBinary.Result?](repeating: nil, count: numbers.count)
            DispatchQueue.concurrentPerform(iterations: numbers.count) { i in
                let r = try? ReservoirBinary.run(["filter", "--store", store, "--timeout", "60"] + Self.baseOptions, stdin: messages[i])
                lock.lock()
                results[i] = r
                lock.unlock()
            }
            for (i, r) in results.enumerated() {
                #expect(r?.status == 0, "delivery \(i): \(r?.stderr ?? "did not run")")
                #expect(r.map { $0.stdout.suffix(messages[i].count) == messages[i] } == true, "delivery \(i): message damaged")
                #expect(r?.stderr.isEmpty == true, "delivery \(i): \(r?.stderr ?? "")")
            }
            let stored = try Self.events(store)
            #expect(stored == (try Self.events(reference)))
            #expect(stored.count == 5, "\(stored)")
        }

        @Test("a store that cannot be opened: the filter passes the message through, exit 0, one line on stderr")
        func deadStore() throws {
            let message = try Data(contentsOf: URL(fileURLWithPath: try ReservoirBinary.sample(1)))
            // A path under a regular file cannot be created, whoever runs the test.
            let r = try ReservoirBinary.run(["filter", "--store", "sqlite:/dev/null/events.sqlite3"] + Self.baseOptions, stdin: message)
            #expect(r.status == 0)
            #expect(r.stdout.suffix(message.count) == message)
            #expect(r.stderr.contains("reservoir: filter:"))
            #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
            // ingest asks the MTA to retry instead (EX_TEMPFAIL) or reports the unusable store (EX_CANTCREAT).
            let ingest = try ReservoirBinary.run(["ingest", "-", "--store", "sqlite:/dev/null/events.sqlite3"] + Self.baseOptions, stdin: message)
            #expect([73, 75].contains(ingest.status), "ingest exit \(ingest.status): \(ingest.stderr)")
        }

        @Test("a DNS server that does not answer is a temporary error, never a pass")
        func deadDNS() throws {
            let message = try Data(contentsOf: URL(fileURLWithPath: try ReservoirBinary.sample(1)))
            let r = try ReservoirBinary.run(["filter", "--dns-server", "127.0.0.1:9", "--dns-timeout", "1", "--no-store",
                                             "--allowed-domains", ReservoirBinary.allowed, "--authserv-id", "mx.test",
                                             "--now", ReservoirBinary.now], stdin: message)
            #expect(r.status == 0)
            let added = String(decoding: r.stdout.prefix(r.stdout.count - message.count), as: UTF8.self)
            #expect(added.contains("dkim=temperror"), "\(added)")
            #expect(!added.contains("dkim=pass"))
            #expect(added.contains("(untrusted)"))
        }

        @Test("scans killed with SIGKILL at random points, then run again, store exactly what one clean scan stores")
        func killedScans() throws {
            let tmp = try TemporaryDirectory(); defer { tmp.remove() }
            let clean = "sqlite:\(tmp.path)/clean.sqlite3"
            _ = try ReservoirBinary.run(["scan", ReservoirBinary.samples.path, "--store", clean] + Self.baseOptions)
            let expected = try Self.events(clean)
            #expect(expected.count == 5)
            var generator = SystemRandomNumberGenerator()
            for round in 0..<6 {
                let store = "sqlite:\(tmp.path)/killed-\(round).sqlite3"
                for _ in 0..<3 {
                    // posix_spawn and waitpid, not Process: Foundation reaps its children on its own,
                    // and a SIGKILL sent after that could hit an unrelated process given the same pid.
                    let arguments = [ReservoirBinary.executable.path, "scan", ReservoirBinary.samples.path, "--store", store, "--rescan"]
                        + Self.baseOptions
                    var actions = posix_spawn_file_actions_t()
                    posix_spawn_file_actions_init(&actions)
                    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
                    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
                    var argv = arguments.map { strdup($0) } + [nil]
                    var pid: pid_t = 0
                    let spawned = posix_spawn(&pid, arguments[0], &actions, nil, &argv, environ)
                    posix_spawn_file_actions_destroy(&actions)
                    argv.forEach { free($0) }
                    try #require(spawned == 0)
                    usleep(UInt32.random(in: 1_000...40_000, using: &generator))
                    kill(pid, SIGKILL)   // the child is ours until waitpid: a zombie at worst, never reused
                    var status: Int32 = 0
                    waitpid(pid, &status, 0)
                }
                let rerun = try ReservoirBinary.run(["scan", ReservoirBinary.samples.path, "--store", store] + Self.baseOptions)
                #expect(rerun.status == 0, "\(rerun.stderr)")
                #expect(try Self.events(store) == expected, "round \(round)")
            }
        }
    }
}
