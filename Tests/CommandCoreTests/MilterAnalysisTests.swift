import CommandCore
import EventStore
import Foundation
import Glibc
import Synchronization
import Testing

/// The milter analyses a message once, whatever the number of its recipient accounts, and
/// decides it for each account under that account's settings (docs/SITE.md).
@Suite("The milter analyses once and decides per account")
struct MilterAnalysisTests {
    /// A nameserver on loopback answering TXT queries from the sample keys, counting the
    /// queries of each name.
    final class CountingNameserver: Sendable {
        let socketFD: Int32
        let port: UInt16
        let queries = Mutex<[String: Int]>([:])

        init(records: [String: [String]]) throws {
            let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
            socketFD = fd
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
            }
            try #require(bound)
            port = UInt16(bigEndian: address.sin_port)
            Thread.detachNewThread { [self] in
                var buffer = [UInt8](repeating: 0, count: 4096)
                while true {
                    var peer = sockaddr_storage()
                    var peerLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
                    let n = withUnsafeMutablePointer(to: &peer) {
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(fd, &buffer, buffer.count, 0, $0, &peerLength) }
                    }
                    if n <= 0 { return }
                    let query = Array(buffer[0..<n])
                    guard let (name, end) = Self.question(query) else { continue }
                    queries.withLock { $0[name, default: 0] += 1 }
                    let answer = Self.answer(query, questionEnd: end, strings: records[name])
                    _ = withUnsafePointer(to: &peer) {
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(fd, answer, answer.count, 0, $0, peerLength) }
                    }
                }
            }
        }

        func stop() {
            shutdown(socketFD, Int32(SHUT_RDWR))
            close(socketFD)
        }

        /// The query's name, lowercased, and where its question ends (after QTYPE and QCLASS).
        static func question(_ query: [UInt8]) -> (String, Int)? {
            var labels: [String] = []
            var index = 12
            while index < query.count, query[index] != 0 {
                let length = Int(query[index])
                guard index + 1 + length <= query.count else { return nil }
                labels.append(String(decoding: query[(index + 1)..<(index + 1 + length)], as: UTF8.self).lowercased())
                index += 1 + length
            }
            guard index + 5 <= query.count else { return nil }
            return (labels.joined(separator: "."), index + 5)
        }

        /// The response: the query's question, and one TXT record of `strings` (NXDOMAIN without).
        static func answer(_ query: [UInt8], questionEnd: Int, strings: [String]?) -> [UInt8] {
            var out = Array(query[0..<questionEnd])
            out[2] = 0x81
            out[3] = strings == nil ? 0x83 : 0x80
            out[4] = 0
            out[5] = 1
            out[6] = 0
            out[7] = strings == nil ? 0 : 1
            for index in 8..<12 { out[index] = 0 }
            guard let strings else { return out }
            var data: [UInt8] = []
            for string in strings {
                data.append(UInt8(string.utf8.count))
                data += Array(string.utf8)
            }
            out += [0xC0, 0x0C, 0, 16, 0, 1, 0, 0, 0, 60, UInt8(data.count >> 8), UInt8(data.count & 0xFF)] + data
            return out
        }

        /// The TXT records of a keys file (`NAME TXT "part" "part"` lines), by lowercase name.
        static func records(_ path: String) throws -> [String: [String]] {
            var records: [String: [String]] = [:]
            for line in try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n") where !line.hasPrefix(";") {
                let fields = line.split(separator: " ", maxSplits: 2)
                guard fields.count == 3, fields[1] == "TXT" else { continue }
                records[fields[0].lowercased()] = fields[2].split(separator: "\"").map(String.init).filter {
                    $0.trimmingCharacters(in: .whitespaces) != ""
                }
            }
            return records
        }
    }

    @Test("a confirmation to three accounts: one key lookup, filed under the account its signed To names, and under no other")
    func threeAccounts() throws {
        let nameserver = try CountingNameserver(records: try CountingNameserver.records(MilterRecordingTests.samples + "/keys.zone"))
        defer { nameserver.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("milter-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = "sqlite:\(directory)/events.sqlite3"
        let site = try #require(
            MilterSessionTests.settings([
                "--socket", "inet:1@h", "--account-domain", "home.example", "--store", store, "--dns-server",
                "127.0.0.1:\(nameserver.port)", "--dns-timeout", "5", "--allowed-domains", MilterRecordingTests.samples + "/allowed-domains",
                "--now", "2026-11-22T12:00:00Z", "--authserv-id", "mx.example", "--retry-spool", directory + "/retry",
            ]))
        let sample = try #require(
            try FileManager.default.contentsOfDirectory(atPath: MilterRecordingTests.samples + "/cur").sorted().first.map {
                MilterRecordingTests.samples + "/cur/" + $0
            })
        let message = MilterMessage(authservID: "mx.example")
        for recipient in ["<jane@home.example>", "<joe@home.example>", "<ann@home.example>"] {
            if let account = site.account(forRecipient: recipient) { message.addAccount(account) }
        }
        #expect(message.accounts.count == 3)
        try MilterRecordingTests.feed(sample, into: message)
        let changes = site.hook.milterChanges(message)
        #expect(changes.insertions.first?.value.contains("dkim=pass") == true, "\(changes.insertions)")
        #expect(nameserver.queries.withLock { $0 } == ["s2026._domainkey.epicsteak.example": 1])
        func events(_ address: String) throws -> Int {
            try CommandRunner.openStore(at: store, use: .read, account: Account(normalizedAddress: address)).events().count
        }
        #expect(try events("jane@home.example") > 0)
        #expect(try events("joe@home.example") == 0)
        #expect(try events("ann@home.example") == 0)
    }
}
