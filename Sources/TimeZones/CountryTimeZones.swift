internal import ReservoirBase

/// The zone of a country that has only one, from the tz database's `zone.tab` read from the zone
/// directory, so the name returned is always one `TimeZoneRules.load` can read there.
///
/// `zone.tab` rather than `zone1970.tab`: the latter merges countries whose clocks agree since
/// 1970 under one zone of another country (Iceland under `Africa/Abidjan`), which is not the
/// name a calendar should show. A country listed with several zones (US, RU, AU, and DE with
/// `Europe/Busingen`) has no single zone.
public struct CountryTimeZones: Sendable {
    /// Zones by ISO 3166-1 alpha-2 code, for every country `zone.tab` lists.
    let zonesByCountry: [String: [String]]

    /// Reads `zone.tab` of `directory` (at most `TimeZoneLimits.maximumZoneTableBytes`).
    public init(directory: String = TimeZoneRules.defaultDirectory) throws(TimeZoneError) {
        let bytes: [UInt8]
        do {
            bytes = try FileBytes.read(directory + "/zone.tab", limit: TimeZoneLimits.maximumZoneTableBytes)
        } catch {
            throw TimeZoneError(.unreadable, "zone.tab: \(error.description)")
        }
        self.init(zoneTab: bytes)
    }

    /// Reads the text of a `zone.tab`: lines of country code, coordinates and zone name separated
    /// by tabs; `#` lines are comments. Lines that do not fit are skipped.
    public init(zoneTab bytes: [UInt8]) {
        var table: [String: [String]] = [:]
        for line in bytes.split(separator: UInt8(ascii: "\n")) where line.first != UInt8(ascii: "#") {
            let fields = line.split(separator: UInt8(ascii: "\t"), omittingEmptySubsequences: false)
            guard fields.count >= 3, fields[0].count == 2, fields[0].allSatisfy({ $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") })
            else { continue }
            let zone = String(decoding: fields[2], as: UTF8.self)
            guard ZoneName.isValid(zone) else { continue }
            table[String(decoding: fields[0], as: UTF8.self), default: []].append(zone)
        }
        zonesByCountry = table
    }

    /// The one zone of `iso3166` (two uppercase letters, such as `CH`), or nil when the country
    /// has several or is not listed.
    public func singleZone(iso3166 code: String) -> String? {
        guard let zones = zonesByCountry[code], zones.count == 1 else { return nil }
        return zones[0]
    }

    /// Every zone `zone.tab` lists for `iso3166`, in its order.
    public func zones(iso3166 code: String) -> [String] { zonesByCountry[code] ?? [] }

    /// The table of the default directory, read once per process; nil when it cannot be read.
    static let system: CountryTimeZones? = try? CountryTimeZones()

    /// `singleZone(iso3166:)` on the default directory's `zone.tab`.
    public static func singleZone(iso3166 code: String) -> String? { system?.singleZone(iso3166: code) }
}
