import Testing

@testable import TimeZones

/// The airport table from airportsdata, and the country table from zone.tab.
@Suite("Airport and country zones")
struct AirportTimeZonesTests {
    @Test(
        "an airport code gives its zone",
        arguments: [
            ("SFO", "America/Los_Angeles"), ("ZRH", "Europe/Zurich"), ("DEL", "Asia/Kolkata"), ("KTM", "Asia/Kathmandu"),
            ("JFK", "America/New_York"), ("AAA", "Pacific/Tahiti"), ("YYT", "America/St_Johns"),
        ])
    func known(_ code: String, _ zone: String) {
        #expect(AirportTimeZones.zoneName(iata: code) == zone)
    }

    @Test("unknown and malformed codes give nil", arguments: ["QQQ", "sfo", "SF", "SFOO", "", "S1O", "ZRH ", "ÄRH", "ZZZ"])
    func unknown(_ code: String) {
        #expect(AirportTimeZones.zoneName(iata: code) == nil)
    }

    @Test("every airport in the table names a zone this system can read")
    func everyZoneLoads() throws {
        var missing: [String] = []
        AirportTimeZones.zoneNames.withUTF8Buffer { names in
            for name in names.split(separator: UInt8(ascii: "\n")) {
                let zone = String(decoding: name, as: UTF8.self)
                if (try? TimeZoneRules.load(zone: zone)) == nil { missing.append(zone) }
            }
        }
        #expect(missing == [], "zones of airportsdata \(AirportTimeZones.dataVersion) unknown to the system")
        #expect(AirportTimeZones.records.utf8CodeUnitCount == AirportTimeZones.recordCount * AirportTimeZones.recordBytes)
    }

    @Test("airports near a point, nearest first, with distances: Zurich's main station → ZRH about 10 km away")
    func nearby() throws {
        let found = AirportTimeZones.airports(nearLatitude: 47.378, longitude: 8.540, within: 15, limit: 4)
        let nearest = try #require(found.first)
        #expect(nearest.iata == "ZRH")
        #expect(nearest.zone == "Europe/Zurich")
        #expect(abs(nearest.kilometres - 10) < 2)
        #expect(found.map(\.kilometres) == found.map(\.kilometres).sorted())
        #expect(AirportTimeZones.positions.utf8CodeUnitCount == AirportTimeZones.recordCount * AirportTimeZones.positionBytes)
        // Nothing in mid-ocean; nothing for a point that is not on Earth.
        #expect(AirportTimeZones.airports(nearLatitude: 30, longitude: -40, within: 40, limit: 8).isEmpty)
        #expect(AirportTimeZones.airports(nearLatitude: .nan, longitude: 0, within: 40, limit: 8).isEmpty)
        #expect(AirportTimeZones.airports(nearLatitude: 91, longitude: 0, within: 40, limit: 8).isEmpty)
        // Distances wrap at the date line.
        #expect(AirportTimeZones.greatCircle(0, 179.9, 0, -179.9) < 23)
    }

    @Test("the table is sorted, so binary search finds every code")
    func sorted() {
        AirportTimeZones.records.withUTF8Buffer { table in
            var previous: [UInt8] = []
            for at in stride(from: 0, to: table.count, by: AirportTimeZones.recordBytes) {
                let code = Array(table[at..<(at + 3)])
                #expect(previous.lexicographicallyPrecedes(code))
                #expect(AirportTimeZones.zoneName(iata: String(decoding: code, as: UTF8.self)) != nil)
                previous = code
            }
        }
    }

    @Test(
        "a country with one zone gives it; one with several gives nil",
        arguments: [
            ("CH", "Europe/Zurich"), ("IN", "Asia/Kolkata"), ("NP", "Asia/Kathmandu"), ("FR", "Europe/Paris"), ("JP", "Asia/Tokyo"),
            ("US", nil), ("RU", nil), ("AU", nil), ("CA", nil), ("BR", nil), ("DE", nil), ("XX", nil), ("ch", nil), ("", nil),
        ] as [(String, String?)])
    func countries(_ code: String, _ zone: String?) {
        #expect(CountryTimeZones.singleZone(iso3166: code) == zone)
    }

    @Test("zone.tab lines that do not fit are skipped")
    func zoneTab() {
        let table = CountryTimeZones(
            zoneTab: Array(
                "# comment\nCH\t+4723+00832\tEurope/Zurich\nXY\t+0\t../../etc/passwd\nZ\t+0\tEurope/X\nNZ\t-3652+17446\tPacific/Auckland\tmost\nNZ\t-4357-17633\tPacific/Chatham\tChatham\n"
                    .utf8))
        #expect(table.singleZone(iso3166: "CH") == "Europe/Zurich")
        #expect(table.singleZone(iso3166: "XY") == nil)
        #expect(table.zones(iso3166: "NZ") == ["Pacific/Auckland", "Pacific/Chatham"])
        #expect(table.singleZone(iso3166: "NZ") == nil)
    }
}
