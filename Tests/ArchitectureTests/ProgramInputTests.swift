import Foundation
import Testing

/// What a run reads from its process — the configuration file and the wall clock — is read by
/// the programs and handed down as values (``EffectiveSettings``, `WallClock`), so a library
/// stage can be run under other settings or another time by whoever calls it (the milter's
/// accounts, a test, a replay).
@Suite("The programs read the configuration and the clock; the stages are handed them")
struct ProgramInputTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let programs: Set<String> = [
        "reservoir", "reservoir-filter", "reservoir-serve", "reservoir-milter", "reservoir-bench", "reservoir-document",
    ]

    /// `target/file:line: code` for each line of code (comments left out) under Sources that
    /// contains one of `needles`, in the targets `include` admits.
    static func lines(containing needles: [String], in include: (String) -> Bool) throws -> [String] {
        var found: [String] = []
        let sources = root.appendingPathComponent("Sources")
        for target in try FileManager.default.contentsOfDirectory(atPath: sources.path).sorted() where include(target) {
            let folder = sources.appendingPathComponent(target)
            guard let files = FileManager.default.enumerator(atPath: folder.path) else { continue }
            for case let file as String in files where file.hasSuffix(".swift") {
                let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
                for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    let code = line.trimmingCharacters(in: .whitespaces)
                    guard !code.hasPrefix("//"), needles.contains(where: { code.contains($0) }) else { continue }
                    found.append("\(target)/\(file):\(number + 1): \(code)")
                }
            }
        }
        return found
    }

    @Test("no library target reads the process's configuration file: the programs hand its settings down")
    func configurationFromPrograms() throws {
        let reads = try Self.lines(
            containing: ["ConfigurationLoad.process", "ConfigurationLoad.reread", "ConfigurationLoad.reloadProcess", "EffectiveSettings.process"],
            in: { !Self.programs.contains($0) })
        #expect(reads == [], "read in main and pass the settings: \(reads)")
        // The control: the programs do read it, so the search finds what it looks for.
        #expect(try !Self.lines(containing: ["ConfigurationLoad.process"], in: Self.programs.contains).isEmpty)
    }

    /// The exceptions keep the system's own clock on purpose: a spool file's name and age are
    /// the file system's time, and `sem_timedwait` takes a CLOCK_REALTIME deadline;
    /// the benchmark times stages, it is no stage.
    @Test("the wall clock is read through WallClock alone, so --now pins it for every stage")
    func clockThroughWallClock() throws {
        let allowed = ["ReservoirBase/WallClock.swift", "CommandCore/RetrySpool.swift", "CommandCore/MilterClock.swift", "reservoir-bench/"]
        let reads = try Self.lines(containing: ["CLOCK_REALTIME", "time(nil)", "gettimeofday("], in: { _ in true })
            .filter { line in !allowed.contains { line.hasPrefix($0) } }
        #expect(reads == [], "take a WallClock: \(reads)")
        #expect(try !Self.lines(containing: ["CLOCK_REALTIME"], in: { $0 == "ReservoirBase" }).isEmpty)
    }
}
