import TimeZones

/// What the markup says of a place's zone, read before any zone file is touched: the country
/// table is read, and a zone's rules loaded, only when a time without offset needs the clue.
struct ZoneClue: Equatable {
    var evidence: TimeZoneEvidence
    /// The zone as the markup names it (a `timeZone` property, the date's text).
    var named: String?
    /// The place's `geo` point, degrees: the zone depends on the airports near it and the time.
    var point: GeoPoint?

    struct GeoPoint: Equatable {
        var latitude: Double
        var longitude: Double
    }

    /// The zone the clue points to, nil when it points to none (an airport the table lacks, a
    /// country with several zones).
    var zone: String? {
        switch evidence {
        case .written, .property: named
        case .airport(let code): AirportTimeZones.zoneName(iata: code)
        case .country(let code): CountryTimeZones.singleZone(iso3166: code)
        case .coordinates: nil
        }
    }

    /// The properties that name a place's zone: schema.org has none on `Place`, so the
    /// spellings senders and other vocabularies use (`timeZone`, as in `Schedule.scheduleTimezone`).
    static let zoneKeys = ["timeZone", "timezone", "scheduleTimezone"]

    /// The clues of one place, strongest first: a zone property, then (for airports) the IATA
    /// code, then the address's country. `path` is the place's path for notes
    /// (`reservationFor.departureAirport.`).
    static func clues(of place: SchemaNode?, path: String, airport: Bool = false) -> [ZoneClue] {
        guard let place else { return [] }
        var clues: [ZoneClue] = []
        for key in zoneKeys {
            if let name = place.text(key), ZoneName.isValid(name) {
                clues.append(ZoneClue(evidence: .property(path + key), named: name))
                break
            }
        }
        if airport, let code = place.text("iataCode")?.uppercased(), code.utf8.count == 3 {
            clues.append(ZoneClue(evidence: .airport(code)))
        }
        if let point = point(of: place) {
            clues.append(ZoneClue(evidence: .coordinates(point.words), point: point))
        }
        if let country = country(of: place) {
            clues.append(ZoneClue(evidence: .country(country)))
        }
        return clues
    }

    /// `geo.latitude` and `geo.longitude` (numbers or numeric text, WGS 84 degrees) within range.
    static func point(of place: SchemaNode) -> GeoPoint? {
        guard let geo = place.node("geo"), let latitude = geo.text("latitude").flatMap(Double.init),
            let longitude = geo.text("longitude").flatMap(Double.init),
            latitude.isFinite, longitude.isFinite, abs(latitude) <= 90, abs(longitude) <= 180
        else { return nil }
        return GeoPoint(latitude: latitude, longitude: longitude)
    }

    /// `address.addressCountry` as an ISO 3166-1 alpha-2 code (`CH`, `ch`, or a Country named
    /// `CH`); names of countries (`Switzerland`) are not read.
    static func country(of place: SchemaNode) -> String? {
        guard let address = place.node("address"), let text = address.name(of: "addressCountry") else { return nil }
        let code = text.uppercased()
        guard code.utf8.count == 2, code.utf8.allSatisfy({ $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) else { return nil }
        return code
    }
}

extension ZoneClue.GeoPoint {
    /// `36.08,-115.15`: two decimals, about a kilometre.
    var words: String { Self.decimal(latitude) + "," + Self.decimal(longitude) }

    static func decimal(_ value: Double) -> String {
        let hundredths = Int((abs(value) * 100).rounded())
        let fraction = hundredths % 100
        return (value < 0 && hundredths > 0 ? "-" : "") + "\(hundredths / 100)." + (fraction < 10 ? "0" : "") + "\(fraction)"
    }
}
