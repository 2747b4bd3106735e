import TestRequirements
import Testing

@testable import TimeZones

/// Offsets and wall-time resolution compared with Python's `zoneinfo`, which reads the same TZif
/// files with its own code: a few hundred random instants and wall times per zone.
@Suite("Agreement with Python's zoneinfo")
struct SystemPeerTests {
    static let zones = [
        "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata", "Asia/Kathmandu", "America/St_Johns", "Pacific/Chatham",
        "America/Sao_Paulo", "Europe/London", "Africa/Cairo", "America/Santiago", "Asia/Tehran", "Australia/Adelaide",
    ]
    static let samplesPerZone = 400

    /// SplitMix64: the same samples every run.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let script = """
        import sys
        from datetime import datetime, timezone
        from zoneinfo import ZoneInfo
        for line in sys.stdin:
            f = line.split()
            z = ZoneInfo(f[1])
            if f[0] == "U":
                d = datetime.fromtimestamp(int(f[2]), tz=timezone.utc).astimezone(z)
                print(int(d.utcoffset().total_seconds()), d.tzname())
            else:
                d = datetime(*map(int, f[2:8]), tzinfo=z)
                print(int(d.timestamp()))
        """

    static let available = PythonPeer.available(["zoneinfo"])

    @Test(
        "offsets, designations and wall-time instants agree (1900–2150, the footer rule included)",
        .enabled(if: Requirement.met(available), "no python3 with zoneinfo (apt-get install python3)"))
    func agreement() throws {
        var generator = Generator(state: 2031)
        var lines: [String] = []
        var expected: [(String, String)] = []
        for name in Self.zones {
            let rules = try TimeZoneRules.load(zone: name)
            for _ in 0..<Self.samplesPerZone {
                let instant = Int64.random(in: -2_208_988_800...5_680_281_600, using: &generator)
                let type = rules.offset(atUTC: instant)
                lines.append("U \(name) \(instant)")
                expected.append(("\(type.utcOffsetSeconds) \(type.abbreviation)", "\(name) at \(instant)"))
                let wall = LocalDateTime(localSeconds: instant)
                lines.append("L \(name) \(wall.year) \(wall.month) \(wall.day) \(wall.hour) \(wall.minute) \(wall.second)")
                expected.append(("\(rules.resolve(local: wall).utc)", "\(name) wall \(wall)"))
            }
            // Around every change from 2025 to 2040: the minutes either side.
            for change in rules.transitions(from: 1_735_689_600, to: 2_209_032_000) {
                for delta: Int64 in [-5400, -1800, -1, 0, 1, 1800, 5400] {
                    let wall = LocalDateTime(localSeconds: change.atUTC + Int64(change.before.utcOffsetSeconds) + delta)
                    lines.append("L \(name) \(wall.year) \(wall.month) \(wall.day) \(wall.hour) \(wall.minute) \(wall.second)")
                    expected.append(("\(rules.resolve(local: wall).utc)", "\(name) wall \(wall) near a change"))
                }
            }
        }
        let (output, reason) = PythonPeer.run(Self.script, input: lines.joined(separator: "\n") + "\n", needing: ["zoneinfo"])
        let answers = try #require(output, "\(reason)")
        #expect(answers.count == expected.count)
        var disagreements = 0
        for (answer, (mine, what)) in zip(answers, expected) where answer != mine {
            disagreements += 1
            if disagreements <= 10 { Issue.record("\(what): zoneinfo \(answer), TimeZones \(mine)") }
        }
        #expect(disagreements == 0)
    }
}
