import Foundation
import Testing

/// Reservations that already ended: `extract` lists them, flagged `ended`; every command that
/// stores skips them unless given `--include-past`, and then stores them.
@Suite("ended reservations: listed by extract, stored only with --include-past")
struct PastReservationTests {
    /// After the sample hotel stay (sample 5, August 2031) has ended.
    static let later = "2032-01-10T12:00:00Z"

    @Test("extract lists an ended stay, flagged ended in text and in --json")
    func extractFlagsEnded() throws {
        let hotel = try ReservoirBinary.sample(5)
        let text = try ReservoirBinary.run(["extract", hotel, "--now", Self.later])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.text.contains("Hotel: Harborview Hotel Boston"))
        #expect(text.text.contains("· ended"))
        let json = try ReservoirBinary.run(["extract", hotel, "--json", "--now", Self.later])
        let output = try #require(try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any])
        let reservations = try #require(output["reservations"] as? [[String: Any]])
        #expect(reservations.count == 1)
        #expect(reservations.first?["ended"] as? Bool == true)
        let codes = (output["diagnostics"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
        #expect(codes.contains("ended"))
        // Before the stay, nothing is flagged.
        let before = try ReservoirBinary.run(["extract", hotel, "--json", "--now", ReservoirBinary.now])
        let upcoming = try #require(try JSONSerialization.jsonObject(with: before.stdout) as? [String: Any])
        #expect((upcoming["reservations"] as? [[String: Any]])?.first?["ended"] == nil)
    }

    enum Storing: String, CaseIterable, Sendable {
        case ingest
        case filter
        case reservoirFilter = "reservoir-filter"
        case banner
        case scan
    }

    /// Runs the command on the hotel sample with a store of its own; the events it holds after.
    static func stored(by command: Storing, includePast: Bool) throws -> String {
        let tmp = try TemporaryDirectory()
        defer { tmp.remove() }
        let store = "sqlite:\(tmp.path)/events.sqlite3"
        let hotel = try ReservoirBinary.sample(5)
        var common = ["--keys", ReservoirBinary.keys, "--allowed-domains", ReservoirBinary.allowed, "--now", Self.later, "--store", store]
        if includePast { common.append("--include-past") }
        let result: ReservoirBinary.Result
        switch command {
        case .ingest, .banner, .scan:
            result = try ReservoirBinary.run([command.rawValue, hotel] + common)
        case .filter:
            result = try ReservoirBinary.run(["filter"] + common, stdin: try ReservoirBinary.sampleMessage(5))
        case .reservoirFilter:
            result = try ReservoirBinary.run(common, stdin: try ReservoirBinary.sampleMessage(5), executable: ReservoirBinary.filterExecutable)
        }
        #expect(result.status == 0, "\(command.rawValue): \(result.stderr)")
        let events = try ReservoirBinary.run(["events", "--all", "--store", store, "--now", Self.later])
        // The hooks open (and so make) the store only for a trusted reservation to record.
        if events.status == 66, [.ingest, .filter, .reservoirFilter].contains(command), !includePast { return "" }
        #expect(events.status == 0, "\(events.stderr)")
        return events.text
    }

    @Test("every command that stores accepts --include-past and stores the ended stay; without it, nothing", arguments: Storing.allCases)
    func includePast(_ command: Storing) throws {
        #expect(try Self.stored(by: command, includePast: true).contains("Harborview Hotel Boston"))
        #expect(!(try Self.stored(by: command, includePast: false).contains("Harborview Hotel Boston")))
    }
}
