import CommandCore
import DNSTestSupport
import EventStore
import Foundation
import Synchronization
import Testing

/// The milter analyses a message once, whatever the number of its recipient accounts, and
/// decides it for each account under that account's settings (docs/SITE.md).
@Suite("The milter analyses once and decides per account")
struct MilterAnalysisTests {
    /// The sample keys served by a loopback nameserver, counting the queries of each name.
    final class CountingKeys: Sendable {
        let queries = Mutex<[String: Int]>([:])
        let records: [String: [String]]

        init(_ path: String) throws {
            var records: [String: [String]] = [:]
            // The keys file's `NAME TXT "part" "part"` lines, by lowercase name.
            for line in try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n") where !line.hasPrefix(";") {
                let fields = line.split(separator: " ", maxSplits: 2)
                guard fields.count == 3, fields[1] == "TXT" else { continue }
                records[fields[0].lowercased()] = fields[2].split(separator: "\"").map(String.init).filter {
                    $0.trimmingCharacters(in: .whitespaces) != ""
                }
            }
            self.records = records
        }

        /// The answer to `query`: its TXT record, NXDOMAIN for a name without one.
        func answer(_ query: [UInt8]) -> [UInt8]? {
            var labels: [String] = []
            var index = 12
            while index < query.count, query[index] != 0 {
                let length = Int(query[index])
                guard index + 1 + length <= query.count else { return nil }
                labels.append(String(decoding: query[(index + 1)..<(index + 1 + length)], as: UTF8.self).lowercased())
                index += 1 + length
            }
            let name = labels.joined(separator: ".")
            queries.withLock { $0[name, default: 0] += 1 }
            guard let strings = records[name] else { return LoopbackNameserver.response(to: query, flags: 0x8183, answers: 0) }
            var data: [UInt8] = []
            for string in strings { data += [UInt8(string.utf8.count)] + Array(string.utf8) }
            return LoopbackNameserver.response(to: query, flags: 0x8180, answers: 1)
                + [0xC0, 0x0C, 0, 16, 0, 1, 0, 0, 0, 60, UInt8(data.count >> 8), UInt8(data.count & 0xFF)] + data
        }
    }

    @Test("a confirmation to three accounts: one key lookup, filed under the account its signed To names, and under no other")
    func threeAccounts() throws {
        let keys = try CountingKeys(MilterRecordingTests.samples + "/keys.zone")
        let nameserver = LoopbackNameserver { keys.answer($0) }
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
        #expect(keys.queries.withLock { $0 } == ["s2026._domainkey.epicsteak.example": 1])
        func events(_ address: String) throws -> Int {
            try CommandRunner.openStore(at: store, use: .read, account: Account(normalizedAddress: address)).events().count
        }
        #expect(try events("jane@home.example") > 0)
        #expect(try events("joe@home.example") == 0)
        #expect(try events("ann@home.example") == 0)
    }
}
