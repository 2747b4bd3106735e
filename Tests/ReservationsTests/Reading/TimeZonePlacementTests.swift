import Foundation
import Markup
import Synchronization
import Testing
import TimeZones

@testable import Reservations

/// Times written without an offset, placed in the zone the markup gives evidence of
/// (docs/USAGE.md, "Where the time zone comes from").
@Suite("times without offset, placed in their zones")
struct TimeZonePlacementTests {
    static func flight(from: String, departs: String, to: String, arrives: String) -> String {
        """
        {"@context": "https://schema.org", "@type": "FlightReservation", "reservationNumber": "TZ1",
         "reservationStatus": "https://schema.org/ReservationConfirmed",
         "reservationFor": {"@type": "Flight", "flightNumber": "7", "airline": {"@type": "Airline", "name": "Zone Air", "iataCode": "ZA"},
           "departureAirport": {"@type": "Airport", "iataCode": "\(from)"}, "departureTime": "\(departs)",
           "arrivalAirport": {"@type": "Airport", "iataCode": "\(to)"}, "arrivalTime": "\(arrives)"}}
        """
    }

    static func instant(_ text: String) throws -> Int64 {
        try #require(DateTimeValue(parsing: text)?.epochSeconds)
    }

    static func details(_ extraction: ReservationExtraction, _ code: ReservationDiagnostic.Code) -> [String?] {
        extraction.diagnostics.filter { $0.code == code }.map(\.detail)
    }

    @Test("a flight SFO → JFK with the airports' local times lands at the right instants")
    func sfoToJFK() throws {
        let extraction = try JSONFixture.read(
            Self.flight(from: "SFO", departs: "2031-06-03T08:15:00", to: "JFK", arrives: "2031-06-03T16:45:00"))
        let r = try #require(extraction.reservations.first)
        #expect(r.start?.epochSeconds == (try Self.instant("2031-06-03T15:15:00Z")))
        #expect(r.start?.offsetSeconds == -7 * 3600)
        #expect(r.start?.placement == TimeZonePlacement(zone: "America/Los_Angeles", evidence: .airport("SFO")))
        #expect(r.end?.epochSeconds == (try Self.instant("2031-06-03T20:45:00Z")))
        #expect(r.end?.placement == TimeZonePlacement(zone: "America/New_York", evidence: .airport("JFK")))
        #expect(r.start?.local == "2031-06-03T08:15:00")
        #expect(Self.details(extraction, .timeZoneFromAirport) == ["America/Los_Angeles", "America/New_York"])
        #expect(!extraction.codes.contains("missing-timezone"))
    }

    @Test("a departure in the night's spring-forward gap is read past the gap and noted")
    func springForwardGap() throws {
        // 2031-03-30: clocks in Germany go from 02:00 to 03:00; 02:30 does not exist.
        let extraction = try JSONFixture.read(
            Self.flight(from: "FRA", departs: "2031-03-30T02:30:00", to: "LHR", arrives: "2031-03-30T03:45:00"))
        let r = try #require(extraction.reservations.first)
        #expect(r.start?.epochSeconds == (try Self.instant("2031-03-30T01:30:00Z")))
        #expect(r.start?.offsetSeconds == 2 * 3600)
        #expect(r.start?.local == "2031-03-30T03:30:00")
        #expect(r.start?.text == "2031-03-30T02:30:00")
        #expect(Self.details(extraction, .timeInDSTGap) == ["Europe/Berlin"])
        // London springs forward at 01:00 UTC too: 03:45 BST is 02:45Z.
        #expect(r.end?.epochSeconds == (try Self.instant("2031-03-30T02:45:00Z")))
    }

    @Test("an arrival in the autumn overlap is the first occurrence, noted")
    func autumnOverlap() throws {
        // 2031-10-26: clocks in Germany go back from 03:00 to 02:00; 02:30 happens twice.
        let extraction = try JSONFixture.read(
            Self.flight(from: "LHR", departs: "2031-10-26T00:05:00", to: "FRA", arrives: "2031-10-26T02:30:00"))
        let r = try #require(extraction.reservations.first)
        #expect(r.end?.epochSeconds == (try Self.instant("2031-10-26T02:30:00+02:00")))
        #expect(r.end?.offsetSeconds == 2 * 3600)
        #expect(Self.details(extraction, .timeAmbiguous) == ["Europe/Berlin"])
        #expect(!extraction.codes.contains("time-in-dst-gap"))
    }

    @Test("half-hour and 45-minute zones: DEL (Asia/Kolkata) to KTM (Asia/Kathmandu)")
    func oddOffsets() throws {
        let extraction = try JSONFixture.read(
            Self.flight(from: "DEL", departs: "2031-06-03T10:00:00", to: "KTM", arrives: "2031-06-03T12:15:00"))
        let r = try #require(extraction.reservations.first)
        #expect(r.start?.offsetSeconds == 5 * 3600 + 1800)
        #expect(r.start?.epochSeconds == (try Self.instant("2031-06-03T04:30:00Z")))
        #expect(r.end?.offsetSeconds == 5 * 3600 + 2700)
        #expect(r.end?.epochSeconds == (try Self.instant("2031-06-03T06:30:00Z")))
        #expect(r.end?.placement?.zone == "Asia/Kathmandu")
    }

    static let train = """
        {"@context": "https://schema.org", "@type": "TrainReservation", "reservationNumber": "SBB1",
         "reservationStatus": "https://schema.org/ReservationConfirmed",
         "reservationFor": {"@type": "TrainTrip", "trainNumber": "EC 15",
           "departureStation": {"@type": "TrainStation", "name": "Zürich HB", "address": {"@type": "PostalAddress", "addressCountry": "CH"}},
           "departureTime": "2031-07-14T09:33:00",
           "arrivalStation": {"@type": "TrainStation", "name": "Milano Centrale", "address": {"@type": "PostalAddress", "addressCountry": {"@type": "Country", "name": "IT"}}},
           "arrivalTime": "2031-07-14T13:50:00"}}
        """

    @Test("a train whose stations give only their countries: CH → Europe/Zurich, IT → Europe/Rome")
    func trainByCountry() throws {
        let extraction = try JSONFixture.read(Self.train)
        let r = try #require(extraction.reservations.first)
        #expect(r.start?.placement == TimeZonePlacement(zone: "Europe/Zurich", evidence: .country("CH")))
        #expect(r.start?.epochSeconds == (try Self.instant("2031-07-14T07:33:00Z")))
        #expect(r.end?.placement == TimeZonePlacement(zone: "Europe/Rome", evidence: .country("IT")))
        #expect(Self.details(extraction, .timeZoneFromCountry) == ["Europe/Zurich", "Europe/Rome"])
    }

    static func hotel(country: String, checkin: String = "2031-06-03T15:00:00") -> String {
        """
        {"@context": "https://schema.org", "@type": "LodgingReservation", "reservationNumber": "H1",
         "reservationStatus": "https://schema.org/ReservationConfirmed",
         "checkinDate": "\(checkin)", "checkoutDate": "2031-06-05T11:00:00",
         "reservationFor": {"@type": "Hotel", "name": "Harborview", "address": {"@type": "PostalAddress", "addressLocality": "Boston", "addressCountry": "\(country)"}}}
        """
    }

    @Test("a hotel in a country of several zones (US) stays floating, with missing-timezone")
    func multiZoneCountry() throws {
        let extraction = try JSONFixture.read(Self.hotel(country: "US"))
        let r = try #require(extraction.reservations.first)
        #expect(r.start?.offsetSeconds == nil)
        #expect(r.start?.epochSeconds == nil)
        #expect(r.start?.placement == nil)
        #expect(extraction.codes.filter { $0 == "missing-timezone" }.count == 2)
    }

    static func hotel(latitude: String, longitude: String, country: String = "US") -> String {
        """
        {"@context": "https://schema.org", "@type": "LodgingReservation", "reservationNumber": "H2",
         "reservationStatus": "https://schema.org/ReservationConfirmed",
         "checkinDate": "2031-06-03T15:00:00", "checkoutDate": "2031-06-05T11:00:00",
         "reservationFor": {"@type": "Hotel", "name": "Plains Lodge", "geo": {"@type": "GeoCoordinates", "latitude": \(latitude), "longitude": \(longitude)},
           "address": {"@type": "PostalAddress", "addressCountry": "\(country)"}}}
        """
    }

    @Test("geo coordinates whose nearby airports agree name the zone: downtown Denver → America/Denver")
    func coordinatesDecide() throws {
        let extraction = try JSONFixture.read(Self.hotel(latitude: "39.74", longitude: "\"-104.99\""))
        let r = try #require(extraction.reservations.first)
        #expect(r.start?.placement?.zone == "America/Denver")
        #expect(r.start?.placement?.evidence.kind == "coordinates")
        #expect(r.start?.epochSeconds == (try Self.instant("2031-06-03T15:00:00-06:00")))
        #expect(Self.details(extraction, .timeZoneFromCoordinates) == ["America/Denver", "America/Denver"])
    }

    @Test("coordinates between airports whose clocks differ (Laredo and Nuevo Laredo), or far from any, are no evidence")
    func coordinatesUndecided() throws {
        let border = try JSONFixture.read(Self.hotel(latitude: "27.52", longitude: "-99.49"))
        #expect(border.reservations.first?.start?.epochSeconds == nil)
        #expect(border.codes.filter { $0 == "missing-timezone" }.count == 2)
        let ocean = try JSONFixture.read(Self.hotel(latitude: "30.0", longitude: "-40.0"))
        #expect(ocean.reservations.first?.start?.epochSeconds == nil)
        let nonsense = try JSONFixture.read(Self.hotel(latitude: "123.0", longitude: "-40.0"))
        #expect(nonsense.reservations.first?.start?.epochSeconds == nil)
    }

    @Test("a country whose zones agree at that time settles it: DE (Europe/Berlin, Europe/Busingen) → Europe/Berlin")
    func agreeingCountryZones() throws {
        let extraction = try JSONFixture.read(Self.hotel(country: "DE"))
        let r = try #require(extraction.reservations.first)
        #expect(r.start?.placement == TimeZonePlacement(zone: "Europe/Berlin", evidence: .country("DE")))
        #expect(r.start?.epochSeconds == (try Self.instant("2031-06-03T15:00:00+02:00")))
        #expect(Self.details(extraction, .timeZoneFromCountry) == ["Europe/Berlin", "Europe/Berlin"])
    }

    @Test("a country whose zones read the time differently does not: ES (Madrid, Canary Islands) stays floating")
    func disagreeingCountryZones() throws {
        let extraction = try JSONFixture.read(Self.hotel(country: "ES"))
        #expect(extraction.reservations.first?.start?.epochSeconds == nil)
        #expect(extraction.codes.filter { $0 == "missing-timezone" }.count == 2)
    }

    @Test("an explicit offset the departure airport's zone does not show is kept, and noted")
    func disagreeingOffset() throws {
        let extraction = try JSONFixture.read(
            Self.flight(from: "SFO", departs: "2031-06-03T08:15:00+02:00", to: "JFK", arrives: "2031-06-03T16:45:00-04:00"))
        let r = try #require(extraction.reservations.first)
        #expect(r.start?.offsetSeconds == 2 * 3600)
        #expect(r.start?.placement == nil)
        #expect(r.start?.epochSeconds == (try Self.instant("2031-06-03T06:15:00Z")))
        #expect(r.start?.agreeingZone == nil, "a zone showing another offset is not the time's zone")
        #expect(r.end?.agreeingZone == "America/New_York")
    }

    @Test("a time with its own offset keeps it and learns the zone of its place when that zone shows the offset then")
    func offsetWithAgreeingZone() throws {
        let extraction = try JSONFixture.read(
            Self.flight(from: "SFO", departs: "2031-06-03T08:15:00-07:00", to: "JFK", arrives: "2031-06-03T16:45:00-04:00"))
        let r = try #require(extraction.reservations.first)
        #expect(r.start?.offsetSeconds == -7 * 3600)
        #expect(r.start?.placement == nil)
        #expect(r.start?.agreeingZone == "America/Los_Angeles")
        #expect(r.end?.agreeingZone == "America/New_York")
        #expect(r.start?.epochSeconds == (try Self.instant("2031-06-03T15:15:00Z")))
        #expect(extraction.codes.filter { $0.hasPrefix("timezone-") || $0.hasPrefix("offset-") }.isEmpty)
        // A country whose zones all show the offset at that instant: its principal zone.
        let hotel = try JSONFixture.read(Self.hotel(country: "DE", checkin: "2031-06-03T15:00:00+02:00"))
        #expect(hotel.reservations.first?.start?.agreeingZone == "Europe/Berlin")
    }

    @Test("a timeZone property of the venue names the zone")
    func zoneProperty() throws {
        let extraction = try JSONFixture.read(
            """
            {"@context": "https://schema.org", "@type": "EventReservation", "reservationNumber": "E1",
             "reservationStatus": "https://schema.org/ReservationConfirmed",
             "reservationFor": {"@type": "MusicEvent", "name": "Concert", "startDate": "2031-06-03T20:00:00",
               "location": {"@type": "Place", "name": "Olympia", "timeZone": "Europe/Paris", "address": {"@type": "PostalAddress", "addressCountry": "US"}}}}
            """)
        let r = try #require(extraction.reservations.first)
        #expect(r.start?.placement == TimeZonePlacement(zone: "Europe/Paris", evidence: .property("reservationFor.location.timeZone")))
        #expect(Self.details(extraction, .timeZoneFromProperty) == ["Europe/Paris"])
    }

    @Test("a zone written after the time wins over the airport; a zone the system lacks falls back to the next evidence")
    func writtenZoneFirst() throws {
        let written = try JSONFixture.read(
            Self.flight(from: "SFO", departs: "2031-06-03T08:15 America/Denver", to: "JFK", arrives: "2031-06-03T16:45:00"))
        #expect(written.reservations.first?.start?.placement == TimeZonePlacement(zone: "America/Denver", evidence: .written))
        let unknown = try JSONFixture.read(
            Self.flight(from: "SFO", departs: "2031-06-03T08:15 Europe/Atlantis", to: "JFK", arrives: "2031-06-03T16:45:00"))
        #expect(unknown.reservations.first?.start?.placement?.zone == "America/Los_Angeles")
        #expect(Self.details(unknown, .timeZoneName) == ["Europe/Atlantis"])
    }

    /// Counts the zones asked for.
    final class Recorder: Sendable {
        let asked = Mutex<[String]>([])
        var book: TimeZoneBook {
            TimeZoneBook { name in
                self.asked.withLock { $0.append(name) }
                return TimeZoneBook.system.rules(name)
            }
        }
    }

    static func read(_ text: String, recorder: Recorder) throws -> ReservationExtraction {
        ReservationReader.read(try JSONFixture.items(text), now: nil, messageDate: nil, keepEnded: false, zones: recorder.book)
    }

    @Test("a message whose times have no evidence reads no zone file; times with an offset read only their place's zone")
    func noZoneFileWithoutLocalTimes() throws {
        let recorder = Recorder()
        _ = try Self.read(
            Self.hotel(country: "CH", checkin: "2031-06-03T15:00:00+02:00").replacingOccurrences(of: "11:00:00", with: "11:00:00+02:00"),
            recorder: recorder)
        // The offset is kept; the zone is read to learn whether the hotel's clocks show it.
        #expect(Set(recorder.asked.withLock { $0 }) == ["Europe/Zurich"])
        recorder.asked.withLock { $0 = [] }
        _ = try Self.read(Self.hotel(country: "US"), recorder: recorder)
        _ = try Self.read(Self.flight(from: "XQZ", departs: "2031-06-03T08:15:00", to: "QQX", arrives: "2031-06-03T16:45:00"), recorder: recorder)
        _ = try Self.read(Self.hotel(country: "XX", checkin: "2031-06-03T15:00:00+02:00"), recorder: recorder)
        #expect(recorder.asked.withLock { $0 } == [])
        _ = try Self.read(Self.train, recorder: recorder)
        #expect(recorder.asked.withLock { $0 } == ["Europe/Zurich", "Europe/Rome"])
    }
}
