import Glibc
import Testing

@testable import TimeZones

/// Zone files from the system, whole and damaged: damage is an error with a code, never a crash.
@Suite("TZif files (RFC 8536)")
struct TZifParserTests {
    static func file(_ name: String) throws -> [UInt8] {
        try TZifFixture.bytes(of: name)
    }

    @Test("every zone zone.tab lists reads, and its wall times around each change resolve to themselves")
    func everyZone() throws {
        let table = CountryTimeZones.system
        let zones = Set(table?.allZones ?? [])
        #expect(zones.count > 300)
        for name in zones.sorted() {
            let rules = try TimeZoneRules.load(zone: name)
            #expect(rules.name == name)
            // 2020 to 2040: just before, at and after each change on the clock before it.
            for change in rules.transitions(from: 1_577_836_800, to: 2_208_988_800) {
                let wall = change.atUTC + Int64(change.before.utcOffsetSeconds)
                for delta: Int64 in [-1, 0, 1] {
                    let local = LocalDateTime(localSeconds: wall + delta)
                    let resolution = rules.resolve(local: local)
                    let shown = resolution.utc + Int64(resolution.type.utcOffsetSeconds)
                    if case .nonexistent(_, _, let shifted, let gap) = resolution {
                        #expect(shown == shifted.localSeconds && shown - gap == local.localSeconds, "\(name) \(local)")
                    } else {
                        #expect(shown == local.localSeconds, "\(name) \(local): \(resolution)")
                    }
                }
            }
        }
    }

    @Test("versions 1 to 4 read; the 64-bit block and footer of version 2+ are the ones used")
    func versions() throws {
        let berlin = try Self.file("Europe/Berlin")
        let reference = try TZifParser.parse(berlin)
        let secondHeader = TZifParser.headerBytes + (try TZifParser.header(berlin)).blockBytes(timeBytes: 4)
        for version in [UInt8(ascii: "2"), UInt8(ascii: "3"), UInt8(ascii: "4")] {
            var bytes = berlin
            bytes[4] = version
            bytes[secondHeader + 4] = version
            #expect(try TZifParser.parse(bytes) == reference)
        }
        // Version 1: the 32-bit block alone, no footer, 1901 to 2037 only.
        let v1 = Array(berlin[..<secondHeader])
        var header = v1
        header[4] = 0
        let old = try TZifParser.parse(header)
        #expect(old.footer == nil)
        #expect(old.offset(atUTC: 1_932_598_800).abbreviation == "CEST")
        #expect(reference.footer != nil)
    }

    @Test("a file cut at any byte is refused as truncated or without its footer")
    func truncated() throws {
        let whole = try Self.file("Europe/Berlin")
        for length in 0..<whole.count {
            do {
                _ = try TZifParser.parse(Array(whole[..<length]))
                Issue.record("accepted \(length) of \(whole.count) bytes")
            } catch {
                #expect([.truncated, .invalidFooter, .notTZif].contains(error.code), "\(length): \(error)")
            }
        }
    }

    @Test("each damaged field is refused with its code")
    func damaged() throws {
        let whole = try Self.file("Asia/Kolkata")
        func refused(_ change: (inout [UInt8]) -> Void) -> TimeZoneError.Code? {
            var bytes = whole
            change(&bytes)
            do {
                _ = try TZifParser.parse(bytes)
                return nil
            } catch { return error.code }
        }
        #expect(refused { $0[0] = UInt8(ascii: "X") } == .notTZif)
        #expect(refused { $0[4] = UInt8(ascii: "9") } == .unsupportedVersion)
        // typecnt of the first header set to 0 (RFC 8536 §3.1 requires at least one type).
        #expect(refused { $0[36...39] = [0, 0, 0, 0] } == .invalidCounts)
        // timecnt beyond the cap: refused before anything is allocated.
        #expect(refused { $0[32...35] = [0xFF, 0xFF, 0xFF, 0xFF] } == .invalidCounts)
        #expect(refused { $0[28...31] = [0, 0, 0, 1] } == .leapSecondsUnsupported)
        #expect(refused { $0.append(0x41) } == .trailingData)
        #expect(refused { $0[$0.count - 1] = 0x41 } == .invalidFooter)
        #expect(refused { $0.insert(contentsOf: Array("x".utf8), at: $0.count - 1) } == .invalidRule)
        #expect(refused { $0 += [UInt8](repeating: 0, count: TimeZoneLimits.maximumFileBytes) } == .fileTooLarge)
    }

    @Test("an index into the type or designation table out of range is refused")
    func indices() throws {
        // A version 1 file: one transition naming type 1 of one type.
        var file = Array("TZif".utf8) + [UInt8](repeating: 0, count: 16)
        file += [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 4]
        let transition: [UInt8] = [0, 0, 0, 10]
        let type: [UInt8] = [0, 0, 0x0E, 0x10, 0, 0]
        let designations = Array("ABC".utf8) + [0]
        #expect(throws: TimeZoneError(.invalidData)) { try TZifParser.parse(file + transition + [1] + type + designations) }
        var badIndex = type
        badIndex[5] = 4
        #expect(throws: TimeZoneError(.invalidAbbreviation)) { try TZifParser.parse(file + transition + [0] + badIndex + designations) }
        let unterminated = Array("ABCD".utf8)
        #expect(throws: TimeZoneError(.invalidAbbreviation)) { try TZifParser.parse(file + transition + [0] + type + unterminated) }
        let rules = try TZifParser.parse(file + transition + [0] + type + designations)
        #expect(rules.offset(atUTC: 100) == LocalTimeType(utcOffsetSeconds: 3600, isDST: false, abbreviation: "ABC"))
    }

    @Test(
        "names are checked before the file system is touched",
        arguments: [
            "../etc/passwd", "/etc/passwd", "Europe/../../x", "", "Europe//Berlin", "Europe/Berlin/", "Europe/.hidden", "a b", "Europe/Zürich",
        ])
    func refusedNames(_ name: String) {
        #expect(!ZoneName.isValid(name))
        #expect(throws: TimeZoneError(.invalidZoneName)) { try TimeZoneRules.load(zone: name) }
    }

    @Test("valid names", arguments: ["Europe/Zurich", "America/Argentina/Buenos_Aires", "Etc/GMT+5", "Etc/GMT-14", "UTC", "America/Port-au-Prince"])
    func validNames(_ name: String) { #expect(ZoneName.isValid(name)) }

    @Test("a missing zone is unreadable; the directory is a parameter")
    func directory() throws {
        #expect(throws: TimeZoneError(.unreadable)) { try TimeZoneRules.load(zone: "Mars/Olympus_Mons") }
        #expect(throws: TimeZoneError(.unreadable)) { try TimeZoneRules.load(zone: "Europe/Berlin", directory: "/nonexistent") }
        #expect(try TimeZoneRules.load(zone: "Europe/Berlin", directory: "/usr/share/zoneinfo").name == "Europe/Berlin")
        #expect(TimeZoneRules.directory(tzdir: nil) == "/usr/share/zoneinfo")
        #expect(TimeZoneRules.directory(tzdir: "") == "/usr/share/zoneinfo")
        #expect(TimeZoneRules.directory(tzdir: "/opt/tzdata") == "/opt/tzdata")
    }
}

/// Reads a zone file of the system's tz database.
extension TZifParser {
    /// The first header of a file, for tests that edit the second.
    static func header(_ bytes: [UInt8]) throws -> Header {
        var reader = TZifReader(bytes: bytes)
        return try header(&reader)
    }
}

enum TZifFixture {
    static func bytes(of name: String) throws -> [UInt8] {
        var result: [UInt8] = []
        guard let file = fopen("/usr/share/zoneinfo/" + name, "rb") else { throw TimeZoneError(.unreadable, name) }
        defer { fclose(file) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = fread(&buffer, 1, buffer.count, file)
            if n <= 0 { break }
            result += buffer[..<n]
        }
        return result
    }
}
