import JSON
import Markup
import Reservations
import TimeZones

/// Placing wall-clock times in zones: the airport table, airports near a `geo` point, the
/// country table (`zone.tab` as given), the zone written after a time, the agreement of a
/// country's zones, and the system's zone files behind them. Lines of the input: departure
/// airport, arrival airport, departure time, arrival time, the places' country, their `geo` as
/// `latitude,longitude`, then `zone.tab` text for the country table.
/// Whatever is placed has an instant its wall time and offset agree with, and every zone name
/// returned is one a zone directory could hold.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let lines = bytes.split(separator: UInt8(ascii: "\n"), maxSplits: 6, omittingEmptySubsequences: false)
        .map { String(decoding: $0, as: UTF8.self) }
    func line(_ index: Int) -> String { index < lines.count ? lines[index] : "" }

    for code in [line(0), line(1)] {
        if let zone = AirportTimeZones.zoneName(iata: code) { precondition(ZoneName.isValid(zone)) }
    }
    let table = CountryTimeZones(zoneTab: Array(line(6).utf8))
    let point = line(5).split(separator: ",", maxSplits: 1).map(String.init)
    let latitude = point.first ?? ""
    let longitude = point.count > 1 ? point[1] : ""
    if let lat = Double(latitude), let lon = Double(longitude) {
        let near = AirportTimeZones.airports(nearLatitude: lat, longitude: lon, within: 40, limit: 8)
        precondition(near.count <= 8 && near.allSatisfy { $0.kilometres <= 40 && ZoneName.isValid($0.zone) })
    }
    for zone in table.zones(iso3166: line(4)) + table.allZones.prefix(64) { precondition(ZoneName.isValid(zone)) }

    func place(_ code: String) -> JSONValue {
        .object(
            JSONObject(pairs: [
                ("@type", .string("Airport")), ("iataCode", .string(code)),
                ("address", .object(JSONObject(pairs: [("addressCountry", .string(line(4)))]))),
                ("geo", .object(JSONObject(pairs: [("latitude", .string(latitude)), ("longitude", .string(longitude))]))),
            ]))
    }
    let flight = JSONValue.object(
        JSONObject(pairs: [
            ("@type", .string("Flight")), ("flightNumber", .string("1")),
            ("departureAirport", place(line(0))), ("arrivalAirport", place(line(1))),
            ("departureTime", .string(line(2))), ("arrivalTime", .string(line(3))),
        ]))
    let reservation = JSONValue.object(
        JSONObject(pairs: [
            ("@type", .string("FlightReservation")), ("reservationNumber", .string("FZ1")), ("reservationFor", flight),
        ]))
    let extraction = ReservationReader.read([StructuredItem(value: reservation, source: .jsonLD)], now: nil)
    for r in extraction.reservations {
        for value in [r.start, r.end].compactMap({ $0 }) where value.placement != nil {
            guard let epoch = value.epochSeconds, let offset = value.offsetSeconds else {
                fatalError("\(value.text) placed in \(value.placement!.zone) without an instant")
            }
            precondition(ZoneName.isValid(value.placement!.zone))
            precondition(value.localEpochSeconds - Int64(offset) == epoch, "\(value.text): wall time, offset and instant disagree")
        }
    }
    return 0
}
