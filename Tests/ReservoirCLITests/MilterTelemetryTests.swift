import Foundation
import Glibc
import Testing

/// The MTA's side of the milter protocol (libmilter's, version 6: a packet is a 4-byte
/// big-endian length, a command byte, its data), enough to hand the real `reservoir milter`
/// one message as Postfix does: negotiation, connect, MAIL, RCPT, each field, end of header,
/// body, the `{i}` queue id macro and end of message.
struct MilterClient {
    let fd: Int32

    init(unixSocket path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else { throw MilterClientError(what: "connect: \(String(cString: strerror(errno)))") }
        var wait = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
    }

    func close() { Glibc.close(fd) }

    func send(_ command: Character, _ data: [UInt8] = []) throws {
        let length = UInt32(data.count + 1)
        let packet = withUnsafeBytes(of: length.bigEndian, Array.init) + [UInt8(ascii: command.unicodeScalars.first!)] + data
        guard packet.withUnsafeBytes({ Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == packet.count else {
            throw MilterClientError(what: "send")
        }
    }

    func receive() throws -> (command: Character, data: [UInt8]) {
        func exactly(_ count: Int) throws -> [UInt8] {
            var bytes = [UInt8](repeating: 0, count: count)
            var got = 0
            while got < count {
                let n = bytes.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + got, count - got, 0) }
                guard n > 0 else { throw MilterClientError(what: "receive") }
                got += n
            }
            return bytes
        }
        let head = try exactly(4)
        let length = Int(head.reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        let body = try exactly(length)
        return (Character(Unicode.Scalar(body[0])), Array(body.dropFirst()))
    }

    /// Sends a command that the milter answers with `c` (continue).
    func step(_ command: Character, _ data: [UInt8] = []) throws {
        try send(command, data)
        let reply = try receive()
        guard reply.command == "c" else { throw MilterClientError(what: "\(command) answered \(reply.command)") }
    }

    static func strings(_ values: String...) -> [UInt8] { values.flatMap { Array($0.utf8) + [0] } }

    /// One message: `fields` and `body` as a Maildir file holds them; returns the changes'
    /// commands before the final answer.
    func deliver(queueID: String, from: String, to: [String], message: String) throws -> [Character] {
        func word(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.bigEndian, Array.init) }
        // Version 6, the actions to add and change fields, no protocol steps left out.
        try send("O", word(6) + word(0x1FF) + word(0))
        guard try receive().command == "O" else { throw MilterClientError(what: "negotiation") }
        try step("C", Self.strings("mx.example") + [UInt8(ascii: "4")] + word(25).suffix(2) + Self.strings("127.0.0.1"))
        try step("M", Self.strings(from))
        for recipient in to { try step("R", Self.strings(recipient)) }
        let parts = message.components(separatedBy: "\n\n")
        var fields: [(String, String)] = []
        for line in parts[0].split(separator: "\n", omittingEmptySubsequences: false) {
            if line.first == " " || line.first == "\t", !fields.isEmpty {
                fields[fields.count - 1].1 += "\n" + line
            } else if let colon = line.firstIndex(of: ":") {
                // Without SMFIP_HDR_LEADSPC the MTA drops the space after the colon.
                fields.append((String(line[..<colon]), String(line[line.index(after: colon)...].drop { $0 == " " })))
            }
        }
        for (name, value) in fields { try step("L", Self.strings(name, value)) }
        try step("N")
        let body = Array(parts.dropFirst().joined(separator: "\n\n").replacingOccurrences(of: "\n", with: "\r\n").utf8)
        var offset = 0
        while offset < body.count {
            let end = min(offset + 65535, body.count)
            try step("B", Array(body[offset..<end]))
            offset = end
        }
        // Postfix's milter_end_of_data_macros: {i}, the queue id.
        try send("D", [UInt8(ascii: "E")] + Self.strings("i", queueID))
        try send("E")
        var changes: [Character] = []
        while true {
            let reply = try receive()
            if "cat".contains(reply.command) { break }
            changes.append(reply.command)
        }
        try send("Q")
        return changes
    }
}

struct MilterClientError: Error {
    var what: String
}

/// `reservoir milter --metrics`, run as the service runs: one line per message on standard
/// error in the journal's form, the counters on `/metrics`, `/healthz` following the store.
@Suite("reservoir milter tells what happens", .serialized)
struct MilterTelemetryTests {
    static let milter = ReservoirBinary.executable.deletingLastPathComponent().appendingPathComponent("reservoir-milter").path

    static func get(_ port: Int, _ path: String) -> (status: Int, body: String) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = LoopbackPort.address(port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return (0, "") }
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var answer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { break }
            answer += chunk[..<n]
        }
        let text = String(decoding: answer, as: UTF8.self)
        let status = text.split(separator: " ", maxSplits: 2).dropFirst().first.flatMap { Int($0) } ?? 0
        return (status, text.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n"))
    }

    @Test(
        "a message's line on stderr with <6>, queue id, account, DKIM and counts; /metrics counts it; /healthz is 503 once the store is unreadable",
        .enabled(if: FileManager.default.isExecutableFile(atPath: milter), "needs reservoir-milter built beside reservoir"))
    func lineMetricsHealth() throws {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let store = tmp.path + "/events.sqlite3"
        let errors = tmp.path + "/milter.err"
        _ = FileManager.default.createFile(atPath: errors, contents: nil)
        let handle = try #require(FileHandle(forWritingAtPath: errors))
        // systemd's $JOURNAL_STREAM: the device and inode of the stream that is standard error.
        var info = stat()
        try #require(fstat(handle.fileDescriptor, &info) == 0)
        let port = try LoopbackPort.free()
        let socketPath = tmp.path + "/milter.sock"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.milter)
        process.arguments = [
            "--socket", "unix:\(socketPath)", "--account", "jane@home.example", "--store", "sqlite:\(store)", "--keys", ReservoirBinary.keys,
            "--allowed-domains", ReservoirBinary.allowed, "--now", ReservoirBinary.now, "--authserv-id", "mx.example",
            "--retry-spool", tmp.path + "/retry", "--metrics", String(port), "--log-level", "info",
        ]
        process.environment = ProcessInfo.processInfo.environment.merging(["JOURNAL_STREAM": "\(info.st_dev):\(info.st_ino)"]) { _, new in new }
        process.standardError = handle
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        func log() -> String { (try? String(contentsOfFile: errors, encoding: .utf8)) ?? "" }
        let deadline = Date().addingTimeInterval(60)
        while !log().contains("listening"), Date() < deadline, process.isRunning { usleep(50_000) }
        try #require(log().contains("<6>listening on unix:"), "\(log())")
        #expect(Self.get(port, "/healthz") == (200, "ok\n"))

        let sample = try #require(
            try FileManager.default.contentsOfDirectory(atPath: ReservoirBinary.samples.path + "/cur").sorted().first.map {
                ReservoirBinary.samples.path + "/cur/" + $0
            })
        let client = try MilterClient(unixSocket: socketPath)
        defer { client.close() }
        let changes = try client.deliver(
            queueID: "4XyZ1Q", from: "<booking@airline.example>", to: ["<jane@home.example>", "<other@elsewhere.example>"],
            message: try String(contentsOfFile: sample, encoding: .utf8))
        #expect(changes.contains("i"), "fields inserted: \(changes)")
        while !log().contains("queue=4XyZ1Q"), Date() < deadline { usleep(50_000) }
        let line = try #require(log().split(separator: "\n").first { $0.contains("queue=4XyZ1Q") }.map(String.init), "\(log())")
        #expect(line.hasPrefix("<6>queue=4XyZ1Q accounts=jane@home.example dkim=pass domain="), "\(line)")
        func field(_ name: String) -> Int? {
            line.split(separator: " ").first { $0.hasPrefix(name + "=") }.flatMap { Int($0.dropFirst(name.count + 1)) }
        }
        let found = try #require(field("found"), "\(line)")
        #expect(found > 0 && field("trusted") == found && field("stored") == found, "\(line)")
        #expect(line.contains(" retry=- outcome=stored ms="), "\(line)")
        #expect(!line.contains("other@elsewhere.example"), "not an account: \(line)")

        let metrics = Self.get(port, "/metrics")
        #expect(metrics.status == 200)
        #expect(metrics.body.contains("# TYPE reservoir_messages_total counter"), "\(metrics.body)")
        #expect(metrics.body.contains("reservoir_messages_total{outcome=\"stored\"} 1\n"), "\(metrics.body)")
        #expect(metrics.body.contains("reservoir_messages_total{outcome=\"untrusted\"} 0\n"), "\(metrics.body)")
        #expect(metrics.body.contains("reservoir_reservations_total{verdict=\"trusted\"} "), "\(metrics.body)")
        #expect(metrics.body.contains("reservoir_store_seconds_count 1\n"), "\(metrics.body)")
        #expect(metrics.body.contains("reservoir_retry_spool_messages 0"), "\(metrics.body)")
        #expect(Self.get(port, "/other").status == 404)

        // The store made unreadable: its file is no database any more.
        try Data("this is not an SQLite database, it was overwritten".utf8).write(to: URL(fileURLWithPath: store))
        let sick = Self.get(port, "/healthz")
        #expect(sick.status == 503 && sick.body.contains("store"), "\(sick)")
        // A message then: its recording fails, an error line says so at <3>, the message waits
        // in the retry spool, and its line and the counters say it.
        let second = try MilterClient(unixSocket: socketPath)
        defer { second.close() }
        _ = try second.deliver(
            queueID: "5AbC2R", from: "<booking@airline.example>", to: ["<jane@home.example>"],
            message: try String(contentsOfFile: sample, encoding: .utf8))
        while !log().contains("queue=5AbC2R"), Date() < deadline { usleep(50_000) }
        let retried = try #require(log().split(separator: "\n").first { $0.contains("queue=5AbC2R") }.map(String.init), "\(log())")
        #expect(retried.contains(" retry=jane@home.example outcome=retry "), "\(retried)")
        #expect(
            log().split(separator: "\n").contains { $0.hasPrefix("<3>jane@home.example: ") && $0.contains("kept for reservoir retry") }, "\(log())")
        let after = Self.get(port, "/metrics").body
        #expect(after.contains("reservoir_messages_total{outcome=\"retry\"} 1\n"), "\(after)")
        #expect(after.contains("reservoir_retry_spool_messages 1"), "\(after)")

        process.terminate()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(log())")
        #expect(!log().contains("reservoir milter:"), "the journal's form names no program: \(log())")
    }

    @Test(
        "a bad --log-level or --metrics is a usage error (64); a --metrics port in use stops the start (69)",
        .enabled(if: FileManager.default.isExecutableFile(atPath: milter), "needs reservoir-milter built beside reservoir"))
    func refusals() throws {
        let level = try ReservoirBinary.run(["milter", "--socket", "inet:8894@127.0.0.1", "--account", "j@example.org", "--log-level", "loud"])
        #expect(level.status == 64 && level.stderr.contains("--log-level"), "\(level.stderr)")
        let address = try ReservoirBinary.run(["milter", "--socket", "inet:8894@127.0.0.1", "--account", "j@example.org", "--metrics", "host:1"])
        #expect(address.status == 64 && address.stderr.contains("--metrics"), "\(address.stderr)")
        let (fd, port) = try LoopbackPort.bound()
        defer { close(fd) }
        listen(fd, 1)
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let busy = try ReservoirBinary.run([
            "milter", "--socket", "unix:\(tmp.path)/m.sock", "--account", "j@example.org", "--no-store", "--metrics", String(port),
        ])
        #expect(busy.status == 69 && busy.stderr.contains("--metrics"), "\(busy.stderr)")
    }
}
