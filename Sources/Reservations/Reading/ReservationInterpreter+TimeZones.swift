import ReservoirBase
import TimeZones

extension ReservationInterpreter {
    /// Puts the start and end written without an offset at their instants, with the first
    /// evidence that names a zone the system knows: the zone written after the time, then the
    /// places' clues (``ReservationDraft/startClues``). Without one the time stays floating
    /// with `missing-timezone`. A time with an offset keeps it; an airport whose zone shows
    /// another offset then is noted (`offset-disagrees-with-zone`).
    mutating func placeInZones(_ draft: inout ReservationDraft) {
        if let start = draft.start {
            draft.start = placed(start, clues: draft.startClues, property: draft.startProperty ?? startProperty)
        }
        if let end = draft.end {
            draft.end = placed(end, clues: draft.endClues, property: draft.endProperty ?? "end")
        }
    }

    private mutating func placed(_ value: DateTimeValue, clues: [ZoneClue], property: String) -> DateTimeValue {
        guard !value.isDateOnly else { return value }
        let written = value.repairs.contains(.zoneName) ? value.zoneName : nil
        if value.offsetSeconds != nil {
            if let written {
                note(
                    .timeZoneName, detail: written,
                    "\(property) \(value.text) names the zone \(written) beside an offset; the offset is kept")
            }
            checkOffset(value, clues: clues, property: property)
            var result = value
            result.agreeingZone = zoneShowingOffset(value, clues: clues, written: written)
            return result
        }
        var candidates = clues
        if let written { candidates.insert(ZoneClue(evidence: .written, named: written), at: 0) }
        for var clue in candidates {
            if let point = clue.point {
                guard let found = coordinatesZone(point, value) else { continue }
                clue = ZoneClue(evidence: .coordinates(found.words), named: found.zone)
            }
            guard let zone = clue.zone ?? clue.named ?? agreeingCountryZone(clue, value) else { continue }
            guard let rules = zones.rules(zone) else {
                if clue.evidence == .written {
                    note(
                        .timeZoneName, detail: zone,
                        "\(property) \(value.text) names the zone \(zone), which this system's time zone data does not have")
                }
                continue
            }
            return placed(value, in: rules, placement: TimeZonePlacement(zone: zone, evidence: clue.evidence), property: property)
        }
        if value.zoneName == nil {
            note(.missingTimeZone, "\(property) \(value.text) has no UTC offset and nothing names its zone; kept as wall-clock (floating) time")
        }
        return value
    }

    /// The most zones of one country compared for ``agreeingCountryZone(_:_:)``: past it, the
    /// country is too spread out for its zones to agree anyway (Russia, the United States).
    static let maximumCountryZonesCompared = 8

    /// A country with several zones settles a wall time when every zone it lists reads that time
    /// at one offset (Germany's Europe/Berlin and Europe/Busingen, Spain's mainland zones in
    /// winter do not: Canary Islands differ): then the first zone `zone.tab` lists, the country's
    /// principal one. Nil for other clues, or when any zone differs or skips or repeats the time.
    private func agreeingCountryZone(_ clue: ZoneClue, _ value: DateTimeValue) -> String? {
        guard case .country(let code) = clue.evidence else { return nil }
        let candidates = CountryTimeZones.zones(iso3166: code)
        guard candidates.count > 1, candidates.count <= Self.maximumCountryZonesCompared,
            let wall = Self.localDateTime(value.local)
        else { return nil }
        var agreed: Int32?
        for zone in candidates {
            guard let rules = zones.rules(zone), case .unique(_, let type) = rules.resolve(local: wall) else { return nil }
            if let agreed, agreed != type.utcOffsetSeconds { return nil }
            agreed = type.utcOffsetSeconds
        }
        return candidates[0]
    }

    /// How far from a `geo` point airports count as its neighbours: near enough to share its
    /// clocks in nearly every case, far enough to find one near most towns with an airline.
    static let coordinatesRadiusKilometres = 40.0
    /// The most airports near a point compared for ``coordinatesZone(_:_:)``.
    static let maximumNearbyAirportsCompared = 8

    /// The zone of a `geo` point: the nearest airport's, when every airport of the table within
    /// ``coordinatesRadiusKilometres`` reads the wall time at one offset (none near: no
    /// evidence; neighbours that disagree, as across the Rio Grande at Laredo: none either). A
    /// point does not name a zone by itself: without the zones' boundaries, the airports
    /// around it are the evidence.
    private func coordinatesZone(_ point: ZoneClue.GeoPoint, _ value: DateTimeValue) -> (zone: String, words: String)? {
        let nearby = AirportTimeZones.airports(
            nearLatitude: point.latitude, longitude: point.longitude, within: Self.coordinatesRadiusKilometres,
            limit: Self.maximumNearbyAirportsCompared)
        guard let nearest = nearby.first, let wall = Self.localDateTime(value.local) else { return nil }
        var agreed: Int32?
        for airport in nearby {
            guard let rules = zones.rules(airport.zone), case .unique(_, let type) = rules.resolve(local: wall) else { return nil }
            if let agreed, agreed != type.utcOffsetSeconds { return nil }
            agreed = type.utcOffsetSeconds
        }
        let distance = Int(nearest.kilometres.rounded())
        return (nearest.zone, "\(point.words) near \(nearest.iata), \(distance) km")
    }

    /// The value at its instant in `rules`' zone (RFC 5545 §3.3.5), with a note of the zone and
    /// why, and one more when clocks skip the wall time or show it twice.
    private mutating func placed(
        _ value: DateTimeValue, in rules: TimeZoneRules, placement: TimeZonePlacement, property: String
    ) -> DateTimeValue {
        guard let wall = Self.localDateTime(value.local) else { return value }
        let resolution = rules.resolve(local: wall)
        var result = value
        let offset = Int(resolution.type.utcOffsetSeconds)
        result.offsetSeconds = offset
        result.epochSeconds = resolution.utc
        result.placement = placement
        if case .nonexistent(_, _, let shifted, _) = resolution {
            result.local = shifted.description
        }
        note(
            Self.code(placement.evidence), detail: placement.zone,
            "\(property) \(value.text) is read in \(placement.zone) (from \(placement.evidence.words)): \(Self.written(result))")
        switch resolution {
        case .unique: break
        case .nonexistent(_, _, let shifted, let gap):
            note(
                .timeInDSTGap, detail: placement.zone,
                "\(property) \(value.text) does not exist in \(placement.zone): clocks skip \(Self.duration(gap)) there; read as \(shifted.description) (RFC 5545 §3.3.5)"
            )
        case .ambiguous(_, let earlierType, _, let laterType):
            note(
                .timeAmbiguous, detail: placement.zone,
                "\(property) \(value.text) occurs twice in \(placement.zone) (\(Self.offsetWords(Int(earlierType.utcOffsetSeconds))), then \(Self.offsetWords(Int(laterType.utcOffsetSeconds)))); the first is taken (RFC 5545 §3.3.5)"
            )
        }
        return result
    }

    /// The zone of the first clue (the zone written after the time first) whose clocks show the
    /// value's written offset at its instant: a time written with an offset stays at that
    /// offset, and the zone only says where it is on the clock. A clue whose zone shows another
    /// offset, or a country whose zones do not all show it, is passed over.
    private func zoneShowingOffset(_ value: DateTimeValue, clues: [ZoneClue], written: String?) -> String? {
        guard let offset = value.offsetSeconds, let instant = value.epochSeconds else { return nil }
        func shows(_ zone: String) -> Bool {
            guard let rules = zones.rules(zone) else { return false }
            return Int(rules.offset(atUTC: instant).utcOffsetSeconds) == offset
        }
        if let written, ZoneName.isValid(written), shows(written) { return written }
        for clue in clues {
            if let point = clue.point {
                if let found = coordinatesZone(point, value), shows(found.zone) { return found.zone }
                continue
            }
            if let zone = clue.zone ?? clue.named {
                if shows(zone) { return zone }
                continue
            }
            if case .country(let code) = clue.evidence {
                let candidates = CountryTimeZones.zones(iso3166: code)
                if candidates.count > 1, candidates.count <= Self.maximumCountryZonesCompared, candidates.allSatisfy(shows) {
                    return candidates[0]
                }
            }
        }
        return nil
    }

    /// An airport's zone that shows another offset at the time's instant than the one written.
    private mutating func checkOffset(_ value: DateTimeValue, clues: [ZoneClue], property: String) {
        guard let offset = value.offsetSeconds, let instant = value.epochSeconds,
            let clue = clues.first(where: { if case .airport = $0.evidence { true } else { false } }),
            let zone = clue.zone, let rules = zones.rules(zone)
        else { return }
        let expected = Int(rules.offset(atUTC: instant).utcOffsetSeconds)
        guard expected != offset else { return }
        note(
            .offsetDisagreesWithZone, detail: zone,
            "\(property) \(value.text) gives \(Self.offsetWords(offset)), but at \(clue.evidence.words) (\(zone)) clocks then show \(Self.offsetWords(expected)); the written offset is kept"
        )
    }

    static func code(_ evidence: TimeZoneEvidence) -> ReservationDiagnostic.Code {
        switch evidence {
        case .written: .timeZoneFromName
        case .property: .timeZoneFromProperty
        case .airport: .timeZoneFromAirport
        case .coordinates: .timeZoneFromCoordinates
        case .country: .timeZoneFromCountry
        }
    }

    /// `YYYY-MM-DDTHH:MM:SS` as a wall time.
    static func localDateTime(_ local: String) -> LocalDateTime? {
        let b = Array(local.utf8)
        guard b.count >= 19, let year = ASCII.decimal(b, from: 0, count: 4), let month = ASCII.decimal(b, from: 5, count: 2),
            let day = ASCII.decimal(b, from: 8, count: 2), let hour = ASCII.decimal(b, from: 11, count: 2),
            let minute = ASCII.decimal(b, from: 14, count: 2), let second = ASCII.decimal(b, from: 17, count: 2)
        else { return nil }
        return LocalDateTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    }

    /// `UTC+02:00`, `UTC-07:00`.
    static func offsetWords(_ seconds: Int) -> String {
        let magnitude = abs(seconds)
        return "UTC" + (seconds < 0 ? "-" : "+") + CivilTime.pad(magnitude / 3600, 2) + ":" + CivilTime.pad(magnitude % 3600 / 60, 2)
    }

    /// `1 h`, `30 min`, `1 h 30 min`.
    static func duration(_ seconds: Int64) -> String {
        let minutes = Int(seconds / 60)
        switch (minutes / 60, minutes % 60) {
        case (0, let m): return "\(m) min"
        case (let h, 0): return "\(h) h"
        case (let h, let m): return "\(h) h \(m) min"
        }
    }
}
