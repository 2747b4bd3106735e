import DNSTestSupport
import Foundation
import Glibc
import PostgresTestSupport
import TestRequirements
import Testing

extension ProcessSuites {
    /// Faults a mail host meets: parallel deliveries, a dead store, a dead DNS server, a process
    /// killed mid-write. Mail is never lost and no event is duplicated or half-written.
    @Suite("faults: concurrency, store and DNS failures, kill -9")
    struct FaultTests {
        static var baseOptions: [String] {
            ["--keys", ReservoirBinary.keys, "--allowed-domains", ReservoirBinary.allowed, "--now", ReservoirBinary.now]
        }

        /// `reservoir filter` on `message` into `store`, with the keys, allowed domains and clock above.
        static func filter(_ message: Data, store: String) throws -> ReservoirBinary.Result {
            try ReservoirBinary.run(["filter", "--store", store] + baseOptions, stdin: message)
        }

        /// The stored events as "key status sequence" lines, sorted, from `events --all --json`.
        /// The events a store holds; none when nothing made the store yet (exit 66, said).
        static func events(_ store: String) throws -> [String] {
            let r = try ReservoirBinary.run(["events", "--all", "--json", "--store", store, "--now", ReservoirBinary.now])
            if r.status == 66, r.stderr.contains("no store here") { return [] }
            let list = try JSONSerialization.jsonObject(with: r.stdout) as? [[String: Any]] ?? []
            return list.map { item in
                "\(item["key"] as? String ?? "?") \(item["status"] as? String ?? "?") \(item["sequence"] as? Int ?? -1)"
            }.sorted()
        }

        /// 50 deliveries of the flight, hotel, train and restaurant confirmations through
        /// `reservoir filter` processes running at once on `store`: every message comes out intact,
        /// nothing is logged, and the store holds what the same deliveries one at a time store.
        /// `during` runs on another thread while the deliveries go on.
        static func deliverConcurrently(store: String, reference: String, during: (@Sendable () -> Void)? = nil) throws {
            for n in [4, 5, 6, 1] {
                let message = try ReservoirBinary.sampleMessage(n)
                _ = try Self.filter(message, store: reference)
            }
            let numbers = (0..<50).map { [4, 5, 6, 1][$0 % 4] }
            let messages = try numbers.map { try ReservoirBinary.sampleMessage($0) }
            let lock = NSLock()
            nonisolated(unsafe) var results = [ReservoirBinary.Result?](repeating: nil, count: numbers.count)
            let side = DispatchGroup()
            if let during { DispatchQueue.global().async(group: side, execute: during) }
            // One thread per delivery, released together, so the 50 processes really overlap
            // (concurrentPerform would run only as many as there are cores).
            let go = DispatchSemaphore(value: 0)
            let finished = DispatchGroup()
            for i in numbers.indices {
                finished.enter()
                Thread {
                    go.wait()
                    let r = try? ReservoirBinary.run(["filter", "--store", store, "--timeout", "60"] + Self.baseOptions, stdin: messages[i])
                    lock.lock()
                    results[i] = r
                    lock.unlock()
                    finished.leave()
                }.start()
            }
            for _ in numbers { go.signal() }
            finished.wait()
            side.wait()
            for (i, r) in results.enumerated() {
                #expect(r?.status == 0, "delivery \(i): \(r?.stderr ?? "did not run")")
                #expect(r.map { $0.stdout.suffix(messages[i].count) == messages[i] } == true, "delivery \(i): message damaged")
                #expect(r?.stderr.isEmpty == true, "delivery \(i): \(r?.stderr ?? "")")
            }
            let stored = try Self.events(store)
            #expect(stored == (try Self.events(reference)))
            #expect(stored.count == 5, "\(stored)")
        }

        @Test("50 filter processes at once on one SQLite store record every reservation once")
        func concurrentFilters() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            try Self.deliverConcurrently(store: "sqlite:\(tmp.path)/events.sqlite3", reference: "sqlite:\(tmp.path)/reference.sqlite3")
        }

        @Test(
            "50 filter processes at once on PostgreSQL with 20 connection slots record every reservation once",
            .enabled(if: PostgresServer.isAvailable, Comment(rawValue: PostgresServer.skipReason)))
        func concurrentFiltersOnPostgres() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            // Fewer slots than processes: a delivery refused with "too many clients" waits for a slot.
            let server = try PostgresServer(maxConnections: 20)
            defer { server.stop() }
            try Self.deliverConcurrently(store: try server.makeDatabase(), reference: "sqlite:\(tmp.path)/reference.sqlite3")
        }

        @Test(
            "PostgreSQL restarted while 50 deliveries run: none lost, none duplicated",
            .enabled(if: PostgresServer.isAvailable, Comment(rawValue: PostgresServer.skipReason)))
        func postgresRestartedDuringDeliveries() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let server = try PostgresServer()
            defer { server.stop() }
            let database = try server.makeDatabase()
            try Self.deliverConcurrently(store: database, reference: "sqlite:\(tmp.path)/reference.sqlite3") {
                usleep(300_000)
                do { try server.restart() } catch { Issue.record("restart failed: \(error)") }
            }
        }

        @Test("a store that cannot be opened: the filter passes the message through, exit 0, one line on stderr")
        func deadStore() throws {
            let message = try ReservoirBinary.sampleMessage(1)
            // A path under a regular file cannot be created, whoever runs the test.
            let r = try ReservoirBinary.run(["filter", "--store", "sqlite:/dev/null/events.sqlite3"] + Self.baseOptions, stdin: message)
            #expect(r.status == 0)
            #expect(r.stdout.suffix(message.count) == message)
            #expect(r.stderr.contains("reservoir: filter:"))
            #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
            // ingest keeps the message for `reservoir retry` (exit 0); without a spool to keep it in
            // it asks the MTA to retry instead (EX_TEMPFAIL).
            let spool = try TemporaryDirectory()
            defer { spool.remove() }
            let ingest = try ReservoirBinary.run(
                ["ingest", "-", "--store", "sqlite:/dev/null/events.sqlite3", "--retry-spool", spool.path] + Self.baseOptions, stdin: message)
            #expect(ingest.status == 0 && ingest.stderr.contains("kept for reservoir retry"), "ingest exit \(ingest.status): \(ingest.stderr)")
            let unkept = try ReservoirBinary.run(
                ["ingest", "-", "--store", "sqlite:/dev/null/events.sqlite3", "--retry-spool", "/dev/null/retry"] + Self.baseOptions,
                stdin: message)
            #expect(unkept.status == 75, "ingest exit \(unkept.status): \(unkept.stderr)")
        }

        @Test("the filter opens the store only for a trusted reservation: mail without one is annotated even when the store is unusable")
        func storeOpenedOnlyWhenNeeded() throws {
            let dir = NSTemporaryDirectory() + "reservoir-lazy-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let store = dir + "/events.sqlite3"
            // The newsletter (M7) has nothing to record; the altered booking (M8) is not trusted.
            for number in [7, 8] {
                let message = try ReservoirBinary.sampleMessage(number)
                let r = try ReservoirBinary.run(["filter", "--store", "sqlite:" + store] + Self.baseOptions, stdin: message)
                #expect(r.status == 0 && r.stderr.isEmpty, "M\(number): exit \(r.status) \(r.stderr)")
                #expect(r.stdout.count > message.count && r.stdout.suffix(message.count) == message)
                #expect(!FileManager.default.fileExists(atPath: store), "M\(number) created the store")
                // With a store that cannot be opened, such mail still gets its results, and no complaint.
                let dead = try ReservoirBinary.run(["filter", "--store", "sqlite:/dev/null/events.sqlite3"] + Self.baseOptions, stdin: message)
                #expect(dead.stdout == r.stdout && dead.stderr.isEmpty, "M\(number): \(dead.stderr)")
            }
            let booking = try ReservoirBinary.sampleMessage(1)
            let r = try ReservoirBinary.run(["filter", "--store", "sqlite:" + store] + Self.baseOptions, stdin: booking)
            #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
            #expect(try Self.events(store).count == 1)
        }

        /// A small tmpfs mounted for one test, so the store's file system can fill up or turn
        /// read-only; nil when mounting is not allowed here (not root, or no CAP_SYS_ADMIN).
        struct SmallFileSystem {
            let path: String
            init?(kilobytes: Int) {
                guard getuid() == 0 else { return nil }
                let dir = NSTemporaryDirectory() + "reservoir-fs-\(UUID().uuidString)"
                try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
                guard Self.mount(["-t", "tmpfs", "-o", "size=\(kilobytes)k", "tmpfs", dir]) else {
                    try? FileManager.default.removeItem(atPath: dir)
                    return nil
                }
                path = dir
            }
            static func mount(_ arguments: [String], tool: String = "/bin/mount") -> Bool {
                let p = Process()
                p.executableURL = URL(fileURLWithPath: tool)
                p.arguments = arguments
                p.standardError = FileHandle.nullDevice
                guard (try? p.run()) != nil else { return false }
                p.waitUntilExit()
                return p.terminationStatus == 0
            }
            func remountReadOnly() -> Bool { Self.mount(["-o", "remount,ro", path]) }
            /// Fills the file system with one file until writing fails (ENOSPC).
            func fill() {
                let fd = open(path + "/filler", O_WRONLY | O_CREAT, 0o600)
                let block = [UInt8](repeating: 0, count: 4096)
                while write(fd, block, block.count) > 0 {}
                close(fd)
            }
            func unfill() { unlink(path + "/filler") }
            func remove() {
                _ = Self.mount([path], tool: "/bin/umount")
                try? FileManager.default.removeItem(atPath: path)
            }
        }
        static var canMount: Bool {
            guard let fs = SmallFileSystem(kilobytes: 64) else { return false }
            fs.remove()
            return true
        }

        @Test(
            "disk full under the store: the filter passes mail through and logs one line; with space back, the next delivery is recorded",
            .enabled(if: canMount, "needs root and mount(8) for a small tmpfs"))
        func diskFull() throws {
            let fs = try #require(SmallFileSystem(kilobytes: 512))
            defer { fs.remove() }
            let store = "sqlite:\(fs.path)/events.sqlite3"
            let restaurant = try ReservoirBinary.sampleMessage(1)
            let flight = try ReservoirBinary.sampleMessage(4)
            let first = try Self.filter(restaurant, store: store)
            #expect(first.status == 0 && first.stderr.isEmpty, "\(first.stderr)")
            fs.fill()
            let full = try Self.filter(flight, store: store)
            #expect(full.status == 0)
            #expect(full.stdout.suffix(flight.count) == flight, "message damaged on a full disk")
            #expect(full.stderr.split(separator: "\n").count == 1, "\(full.stderr)")
            #expect(full.stderr.contains("reservoir: filter:"))
            fs.unfill()
            let again = try Self.filter(flight, store: store)
            #expect(again.status == 0 && again.stderr.isEmpty, "\(again.stderr)")
            let stored = try Self.events(store)
            #expect(stored.filter { $0.hasPrefix("IWDSCA") }.count == 1, "\(stored)")
            #expect(stored.count == 3, "the restaurant and both flight legs: \(stored)")
        }

        @Test(
            "a store on a read-only file system: the filter passes mail through and logs one line; ingest asks for a retry; events still lists what it holds",
            .enabled(if: canMount, "needs root and mount(8) for a small tmpfs"))
        func readOnlyStore() throws {
            let fs = try #require(SmallFileSystem(kilobytes: 1024))
            defer { fs.remove() }
            let store = "sqlite:\(fs.path)/events.sqlite3"
            let restaurant = try ReservoirBinary.sampleMessage(1)
            let flight = try ReservoirBinary.sampleMessage(4)
            _ = try Self.filter(restaurant, store: store)
            try #require(fs.remountReadOnly())
            let r = try Self.filter(flight, store: store)
            #expect(r.status == 0)
            #expect(r.stdout.suffix(flight.count) == flight)
            #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
            let ingest = try ReservoirBinary.run(
                ["ingest", "-", "--store", store, "--retry-spool", "/dev/null/retry"] + Self.baseOptions, stdin: flight)
            #expect([73, 74, 75].contains(ingest.status), "ingest exit \(ingest.status): \(ingest.stderr)")
            // A WAL store cannot get its -shm index there; events reads it as immutable.
            let listed = try Self.events(store)
            #expect(listed.count == 1 && listed[0].hasPrefix("IWDSCA"), "\(listed)")
        }

        /// The loopback nameserver of the DNS faults (DNSTestSupport).
        typealias LoopbackNameserver = DNSTestSupport.LoopbackNameserver

        /// Sample 1 through `reservoir filter` with keys from `dnsServer` (1 s DNS timeout, no
        /// store): the run, the message, and the header fields added before it.
        static func filterSample1(dnsServer: String) throws -> (run: ReservoirBinary.Result, message: Data, added: String) {
            let message = try ReservoirBinary.sampleMessage(1)
            let r = try ReservoirBinary.run(
                [
                    "filter", "--dns-server", dnsServer, "--dns-timeout", "1", "--no-store",
                    "--allowed-domains", ReservoirBinary.allowed, "--authserv-id", "mx.test",
                    "--now", ReservoirBinary.now,
                ], stdin: message)
            return (r, message, String(decoding: r.stdout.prefix(max(0, r.stdout.count - message.count)), as: UTF8.self))
        }

        /// What the garbage nameserver answers, by case.
        static let garbage: [(String, @Sendable ([UInt8]) -> [UInt8]?)] = [
            ("random bytes", { _ in (0..<64).map { _ in UInt8.random(in: 0...255) } }),
            (
                "an answer cut short of its record length",
                { q in
                    LoopbackNameserver.response(to: q, flags: 0x8180, answers: 1) + [0xC0, 0x0C, 0, 16, 0, 1, 0, 0, 0, 60, 0, 200, 10, 0x76, 0x3D]
                }
            ),
            (
                "a TXT string longer than its record",
                { q in
                    LoopbackNameserver.response(to: q, flags: 0x8180, answers: 1) + [0xC0, 0x0C, 0, 16, 0, 1, 0, 0, 0, 60, 0, 5, 50]
                        + Array("abcd".utf8)
                }
            ),
            (
                "a compression pointer that loops",
                { q in
                    LoopbackNameserver.response(to: q, flags: 0x8180, answers: 1) + [
                        0xC0, UInt8(truncatingIfNeeded: q.count), 0, 16, 0, 1, 0, 0, 0, 60, 0, 4, 3,
                    ] + Array("v=D".utf8)
                }
            ),
            ("SERVFAIL", { q in LoopbackNameserver.response(to: q, flags: 0x8182, answers: 0) }),
            ("a truncated (TC) answer with no TCP service behind it", { q in LoopbackNameserver.response(to: q, flags: 0x8380, answers: 0) }),
        ]

        @Test(
            "a DNS server answering garbage is never a pass: the message goes through intact, untrusted",
            arguments: garbage.map(\.0))
        func garbageDNS(name: String) throws {
            let server = LoopbackNameserver(reply: Self.garbage.first { $0.0 == name }!.1)
            defer { server.stop() }
            let started = Date()
            let (r, message, added) = try Self.filterSample1(dnsServer: "127.0.0.1:\(server.port)")
            #expect(r.status == 0)
            #expect(r.stdout.count > message.count && r.stdout.suffix(message.count) == message, "\(name): message not intact")
            #expect(added.contains("dkim=temperror") || added.contains("dkim=permerror"), "\(name): \(added)")
            #expect(!added.contains("dkim=pass"), "\(name): \(added)")
            #expect(added.contains("(untrusted)"), "\(name): \(added)")
            #expect(Date().timeIntervalSince(started) < 20, "\(name): took too long")
        }

        @Test("the same nameserver answering the published key gives a pass (the garbage cases above reach the resolver)")
        func garbageServerControl() throws {
            let zone = try String(contentsOfFile: ReservoirBinary.keys, encoding: .utf8)
            let line = try #require(zone.split(separator: "\n").first { $0.hasPrefix("s2026._domainkey.epicsteak.example ") })
            // The record's quoted strings, concatenated (RFC 6376 §3.6.2.2).
            let quoted = line.split(separator: "\"", omittingEmptySubsequences: false)
            let record = Array(stride(from: 1, to: quoted.count, by: 2).map { quoted[$0] }.joined().utf8)
            let server = LoopbackNameserver { q in
                var rdata: [UInt8] = []
                var rest = record[...]
                while !rest.isEmpty {
                    let piece = rest.prefix(255)
                    rdata += [UInt8(piece.count)] + piece
                    rest = rest.dropFirst(piece.count)
                }
                return LoopbackNameserver.response(to: q, flags: 0x8180, answers: 1)
                    + [0xC0, 0x0C, 0, 16, 0, 1, 0, 0, 0, 60, UInt8(rdata.count >> 8), UInt8(rdata.count & 0xFF)] + rdata
            }
            defer { server.stop() }
            let added = try Self.filterSample1(dnsServer: "127.0.0.1:\(server.port)").added
            #expect(added.contains("dkim=pass"), "\(added)")
        }

        @Test("a DNS server that does not answer is a temporary error, never a pass")
        func deadDNS() throws {
            let (r, _, added) = try Self.filterSample1(dnsServer: "127.0.0.1:9")
            #expect(r.status == 0)
            #expect(added.contains("dkim=temperror"), "\(added)")
            #expect(!added.contains("dkim=pass"))
            #expect(added.contains("(untrusted)"))
        }

        @Test(
            "a filter over its time budget passes the message through with a temperror result, exit 0, even when started with SIGALRM blocked",
            arguments: [false, true])
        func timeBudget(alarmBlocked: Bool) throws {
            // A nameserver that reads queries and never answers: the key lookup outlasts --timeout.
            let server = LoopbackNameserver { _ in nil }
            defer { server.stop() }
            #expect(server.socketFD >= 0 && server.port != 0, "no loopback UDP socket")
            let sample = try ReservoirBinary.sample(1)
            let original = try Data(contentsOf: URL(fileURLWithPath: sample))
            let started = Date()
            let r = try ChildProcess.capture(
                [
                    ReservoirBinary.executable.path, "filter", "--dns-server", "127.0.0.1:\(server.port)",
                    "--dns-timeout", "30", "--timeout", "1", "--no-store", "--authserv-id", "mx.test",
                    "--allowed-domains", ReservoirBinary.allowed, "--now", ReservoirBinary.now,
                ],
                stdin: sample, blocking: alarmBlocked ? [SIGALRM] : [])
            let elapsed = Date().timeIntervalSince(started)
            #expect(r.status == 0, "exit \(r.status): \(String(decoding: r.stderr, as: UTF8.self))")
            #expect(r.stdout == Data(ForgedFieldTests.timeoutField.utf8) + original, "\(r.stdout.count) bytes out, \(original.count) in")
            #expect(elapsed < 10, "the filter took \(elapsed) s with a 1 s budget")
        }

        /// A signed reservation mail with an attachment of `megabytes` MB before its HTML part.
        static func largeSignedMessage(attachmentMegabytes megabytes: Int, in dir: String) throws -> String {
            // Incompressible bytes from a linear congruential generator: quick even in a debug build.
            var attachment = Data(count: megabytes << 20)
            attachment.withUnsafeMutableBytes { raw in
                var x = UInt64(megabytes) &* 0x9E37_79B9_7F4A_7C15 | 1
                for i in raw.bindMemory(to: UInt64.self).indices {
                    x = x &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    raw.storeBytes(of: x, toByteOffset: i * 8, as: UInt64.self)
                }
            }
            let html = """
                <html><body><script type="application/ld+json">{"@context": "http://schema.org", "@type": "FoodEstablishmentReservation",
                "reservationNumber": "BIG\(megabytes)", "reservationStatus": "http://schema.org/ReservationConfirmed",
                "underName": {"@type": "Person", "name": "Jane Appleseed"},
                "reservationFor": {"@type": "FoodEstablishment", "name": "Epic Steak",
                "address": {"@type": "PostalAddress", "streetAddress": "1 Pier", "addressLocality": "San Francisco", "addressRegion": "CA", "postalCode": "94105", "addressCountry": "US"}},
                "startTime": "2031-06-03T20:00:00-07:00", "partySize": 2}</script><p>Table for two.</p></body></html>
                """
            var message = Data(
                """
                From: Epic Steak <reservations@epicsteak.example>
                To: jane@home.example
                Subject: Your table, with the menu attached
                Date: Sun, 22 Nov 2026 10:00:00 +0000
                Message-ID: <big-\(megabytes)@epicsteak.example>
                MIME-Version: 1.0
                Content-Type: multipart/mixed; boundary="XX"

                --XX
                Content-Type: application/pdf; name="menu.pdf"
                Content-Disposition: attachment; filename="menu.pdf"
                Content-Transfer-Encoding: base64


                """.utf8)
            message.append(attachment.base64EncodedData(options: [.lineLength76Characters, .endLineWithLineFeed]))
            message.append(Data("\n--XX\nContent-Type: text/html; charset=utf-8\n\n\(html)\n--XX--\n".utf8))
            let unsigned = dir + "/unsigned-\(megabytes).eml"
            let signed = dir + "/signed-\(megabytes).eml"
            try message.write(to: URL(fileURLWithPath: unsigned))
            let key = ReservoirBinary.packageRoot.appendingPathComponent("scripts/samples/sample-dkim-key.pem").path
            let status = try ChildProcess.run(
                [
                    ReservoirBinary.executable.path, "sign", "--key", key, "--domain", "epicsteak.example",
                    "--selector", "s2026", "--timestamp", "1795000000",
                ],
                stdin: unsigned, stdout: signed, stderr: dir + "/sign.err")
            try #require(status == 0)
            try FileManager.default.removeItem(atPath: unsigned)
            return signed
        }

        @Test(
            "memory does not grow with the message: 10 and 50 MB attachments through filter, banner (file and pipe) and scan, DKIM verified, markup after the attachment read",
            .enabled(
                if: Requirement.met(FileManager.default.isExecutableFile(atPath: ChildProcess.timeProgram)),
                "GNU time is not installed (apt-get install time)"))
        func largeMessagesInBoundedMemory() throws {
            let dir = NSTemporaryDirectory() + "reservoir-memory-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let common = ["--keys", ReservoirBinary.keys, "--allowed-domains", ReservoirBinary.allowed, "--now", ReservoirBinary.now]
            var peaks: [String: [Int]] = [:]
            for megabytes in [10, 50] {
                let signed = try Self.largeSignedMessage(attachmentMegabytes: megabytes, in: dir)
                let original = try Data(contentsOf: URL(fileURLWithPath: signed))

                let filter = try ChildProcess.measure(
                    [
                        ReservoirBinary.executable.path, "filter", "--store", "sqlite:" + dir + "/filter.sqlite3",
                        // What is measured is memory: a debug build hashing 50 MB beside the rest of
                        // the suite may need more than the default 5 s budget.
                        "--authserv-id", "mx.test", "--timeout", "60",
                    ] + common,
                    stdin: signed, stdout: dir + "/out.eml", stderr: dir + "/filter.err")
                let out = try Data(contentsOf: URL(fileURLWithPath: dir + "/out.eml"))
                let added = String(decoding: out.prefix(out.count - original.count), as: UTF8.self)
                #expect(filter.status == 0)
                #expect(out.count > original.count && out.suffix(original.count) == original, "the message must come out intact")
                #expect(added.contains("dkim=pass"), "\(added)")
                #expect(added.contains("#BIG\(megabytes)") && !added.contains("(untrusted)"), "\(added)")

                let banner = try ChildProcess.measure(
                    [ReservoirBinary.executable.path, "banner", signed, "--json", "--no-store"] + common,
                    stdout: dir + "/banner.json", stderr: dir + "/banner.err")
                let json = try String(contentsOfFile: dir + "/banner.json", encoding: .utf8)
                #expect(banner.status == 0)
                #expect(json.contains("BIG\(megabytes)") && json.contains("\"pass\""), "\(json.prefix(400))")

                // Through a pipe, a large message is spooled to a temporary file first.
                let piped = try ReservoirBinary.run(["banner", "-", "--json", "--no-store"] + common, stdin: original)
                #expect(
                    piped.status == 0 && piped.text.contains("BIG\(megabytes)") && piped.text.contains("\"pass\""),
                    "\(piped.stderr) \(piped.text.prefix(400))")

                let maildir = dir + "/Maildir-\(megabytes)"
                try FileManager.default.createDirectory(atPath: maildir + "/cur", withIntermediateDirectories: true)
                try FileManager.default.createDirectory(atPath: maildir + "/new", withIntermediateDirectories: true)
                try FileManager.default.copyItem(atPath: signed, toPath: maildir + "/new/1.big")
                let scan = try ChildProcess.measure(
                    [ReservoirBinary.executable.path, "scan", maildir, "--store", "sqlite:" + dir + "/scan-\(megabytes).sqlite3"] + common,
                    stdout: dir + "/scan.out", stderr: dir + "/scan.err")
                let summary = try String(contentsOfFile: dir + "/scan.out", encoding: .utf8)
                #expect(scan.status == 0)
                #expect(summary.contains("1 trusted") && summary.contains("1 created"), "\(summary)")
                peaks["filter", default: []].append(filter.peakKilobytes)
                peaks["banner", default: []].append(banner.peakKilobytes)
                peaks["scan", default: []].append(scan.peakKilobytes)
                try FileManager.default.removeItem(atPath: signed)
            }
            // 54 MB more message; whole-message reading would need at least that much more memory.
            for (command, kilobytes) in peaks {
                #expect(kilobytes.allSatisfy { $0 > 0 })
                #expect(kilobytes[1] - kilobytes[0] < 8 << 10, "\(command): peak \(kilobytes[0]) KB with 10 MB, \(kilobytes[1]) KB with 50 MB")
                #expect(kilobytes[1] < 48 << 10, "\(command): peak \(kilobytes[1]) KB for a 68 MB message")
            }
        }

        @Test("scans killed with SIGKILL at random points, then run again, store exactly what one clean scan stores")
        func killedScans() throws {
            let tmp = try TemporaryDirectory()
            defer { tmp.remove() }
            let clean = "sqlite:\(tmp.path)/clean.sqlite3"
            _ = try ReservoirBinary.run(["scan", ReservoirBinary.samples.path, "--store", clean] + Self.baseOptions)
            let expected = try Self.events(clean)
            #expect(expected.count == 6)
            var generator = SystemRandomNumberGenerator()
            for round in 0..<6 {
                let store = "sqlite:\(tmp.path)/killed-\(round).sqlite3"
                for _ in 0..<3 {
                    // posix_spawn and waitpid, not Process: Foundation reaps its children on its own,
                    // and a SIGKILL sent after that could hit an unrelated process given the same pid.
                    let arguments =
                        [ReservoirBinary.executable.path, "scan", ReservoirBinary.samples.path, "--store", store, "--rescan"]
                        + Self.baseOptions
                    var actions = posix_spawn_file_actions_t()
                    posix_spawn_file_actions_init(&actions)
                    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
                    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
                    var argv = arguments.map { strdup($0) } + [nil]
                    var pid: pid_t = 0
                    let spawned = posix_spawn(&pid, arguments[0], &actions, nil, &argv, environ)
                    posix_spawn_file_actions_destroy(&actions)
                    for pointer in argv { free(pointer) }
                    try #require(spawned == 0)
                    usleep(UInt32.random(in: 1_000...40_000, using: &generator))
                    kill(pid, SIGKILL)  // the child is ours until waitpid: a zombie at worst, never reused
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
