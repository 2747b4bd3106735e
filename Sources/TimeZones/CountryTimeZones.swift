internal import ReservoirBase

/// The zone of a country that has only one, from the tz database's `zone.tab` read from the zone
/// directory, so the name returned is always one `TimeZoneRules.load` can read there.
///
/// `zone.tab` rather than `zone1970.tab`: the latter merges countries whose clocks agree since
/// 1970 under one zone of another country (Iceland under `Africa/Abidjan`), which is not the
/// name a calendar should show. A country listed with several zones (US, RU, AU, and DE with
/// `Europe/Busingen`) has no single zone.
public struct CountryTimeZones: Sendable {
    /// The text of `zone.tab`, scanned per question: building a table of all 448 lines took
    /// longer than a filter run should spend on one country.
    let zoneTab: [UInt8]

    /// Reads `zone.tab` of `directory` (at most `TimeZoneLimits.maximumZoneTableBytes`).
    public init(directory: String = TimeZoneRules.defaultDirectory) throws(TimeZoneError) {
        do {
            zoneTab = try FileBytes.read(directory + "/zone.tab", limit: TimeZoneLimits.maximumZoneTableBytes)
        } catch {
            throw TimeZoneError(.unreadable, "zone.tab: \(error.description)")
        }
    }

    /// The text of a `zone.tab`: lines of country code, coordinates and zone name separated by
    /// tabs; `#` lines are comments. Lines that do not fit are skipped.
    public init(zoneTab bytes: [UInt8]) {
        zoneTab = bytes
    }

    /// The one zone of `iso3166` (two uppercase letters, such as `CH`), or nil when the country
    /// has several or is not listed.
    public func singleZone(iso3166 code: String) -> String? {
        let zones = zones(iso3166: code)
        return zones.count == 1 ? zones[0] : nil
    }

    /// Every zone `zone.tab` lists for `iso3166` (two uppercase letters), in its order.
    public func zones(iso3166 code: String) -> [String] {
        let wanted = Array(code.utf8)
        guard wanted.count == 2, wanted.allSatisfy({ $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) else { return [] }
        var zones: [String] = []
        // Line by line without splitting the whole table: only the country's lines are split
        // (splitting all 448 lines cost a filter run a quarter of its instructions).
        var start = zoneTab.startIndex
        while start < zoneTab.endIndex {
            let end = zoneTab[start...].firstIndex(of: UInt8(ascii: "\n")) ?? zoneTab.endIndex
            let line = zoneTab[start..<end]
            start = end < zoneTab.endIndex ? end + 1 : end
            guard line.count > 3, line[line.startIndex] == wanted[0], line[line.startIndex + 1] == wanted[1],
                line[line.startIndex + 2] == UInt8(ascii: "\t")
            else { continue }
            let fields = line.split(separator: UInt8(ascii: "\t"), omittingEmptySubsequences: false)
            guard fields.count >= 3 else { continue }
            let zone = String(decoding: fields[2], as: UTF8.self)
            if ZoneName.isValid(zone) { zones.append(zone) }
        }
        return zones
    }

    /// Every zone `zone.tab` lists, in its order.
    public var allZones: [String] {
        var zones: [String] = []
        for line in zoneTab.split(separator: UInt8(ascii: "\n")) where line.first != UInt8(ascii: "#") {
            let fields = line.split(separator: UInt8(ascii: "\t"), omittingEmptySubsequences: false)
            guard fields.count >= 3 else { continue }
            let zone = String(decoding: fields[2], as: UTF8.self)
            if ZoneName.isValid(zone) { zones.append(zone) }
        }
        return zones
    }

    /// The table of the default directory, read once per process; nil when it cannot be read.
    static let system: CountryTimeZones? = try? CountryTimeZones()

    /// `zones(iso3166:)` on the default directory's `zone.tab`.
    public static func zones(iso3166 code: String) -> [String] { system?.zones(iso3166: code) ?? [] }

    /// `singleZone(iso3166:)` on the default directory's `zone.tab`.
    public static func singleZone(iso3166 code: String) -> String? { system?.singleZone(iso3166: code) }
}
