@testable import TimeZones

/// TZif files (RFC 8536): a file that parses answers offsets, resolves wall times consistently
/// and writes a VTIMEZONE; a file that does not is an error value.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let rules = try? TZifParser.parse(bytes, name: "Fuzz/Zone") else { return 0 }
    let instants: [Int64] = [.min, -1 << 59, -2_208_988_800, 0, 1_932_598_800, 4_118_119_200, 1 << 59, .max]
    for instant in instants { _ = rules.offset(atUTC: instant) }
    let seed = Int(bytes.last ?? 0)
    for year in [1, 1900 + seed, 2031, 2100 + seed, 9999] {
        for (month, hour) in [(1, 0), (3, 2), (10, 2), (12, 23)] {
            guard let wall = LocalDateTime(year: year, month: month, day: 28, hour: hour, minute: 30) else { continue }
            let resolution = rules.resolve(local: wall)
            // The instant chosen shows the wall time asked for, or the one past the gap.
            let shown = resolution.utc + Int64(resolution.type.utcOffsetSeconds)
            switch resolution {
            case .unique, .ambiguous: precondition(shown == wall.localSeconds, "\(wall) resolved to \(resolution)")
            case .nonexistent(_, _, let shifted, let gap):
                precondition(gap > 0 && shifted.localSeconds == shown && shown - gap == wall.localSeconds, "\(wall): \(resolution)")
            }
        }
    }
    _ = VTimezoneWriter.text(for: rules, years: (2020 + seed)...(2023 + seed))
    return 0
}
