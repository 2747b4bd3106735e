/// Why a wall-clock time was read in a zone: the markup's own evidence, strongest first
/// (docs/USAGE.md, "Where the time zone comes from").
public enum TimeZoneEvidence: Sendable, Equatable {
    /// The date text names the zone (`2031-06-03T08:15 Europe/Berlin`).
    case written
    /// A property naming the zone (`timeZone`), by its path (`reservationFor.departureAirport.timeZone`).
    case property(String)
    /// The IATA code of the departure airport (a start) or the arrival airport (an end).
    case airport(String)
    /// The place's `geo` coordinates, near airports whose zones all read the time alike: the
    /// point and the nearest airport (`36.08,-115.15 near LAS, 2 km`).
    case coordinates(String)
    /// The ISO 3166 code of the place's `address.addressCountry`, a country with one zone or whose zones agree at that time.
    case country(String)

    /// The word of the note codes and of `--json`: `name`, `property`, `airport`, `coordinates`, `country`.
    public var kind: String {
        switch self {
        case .written: "name"
        case .property: "property"
        case .airport: "airport"
        case .coordinates: "coordinates"
        case .country: "country"
        }
    }

    /// What the evidence was, for people: `airport SFO`, `country CH`, `the date's text`,
    /// `reservationFor.timeZone`.
    public var words: String {
        switch self {
        case .written: "the date's text"
        case .property(let path): path
        case .airport(let code): "airport " + code
        case .coordinates(let point): "coordinates " + point
        case .country(let code): "country " + code
        }
    }
}

/// The IANA zone a wall-clock time was placed in, and the evidence for it. With it, the
/// ``DateTimeValue``'s offset and instant are that zone's at that wall time (RFC 5545 §3.3.5).
public struct TimeZonePlacement: Sendable, Equatable {
    /// The tz database name: `Europe/Zurich`.
    public var zone: String
    public var evidence: TimeZoneEvidence

    public init(zone: String, evidence: TimeZoneEvidence) {
        self.zone = zone
        self.evidence = evidence
    }
}
