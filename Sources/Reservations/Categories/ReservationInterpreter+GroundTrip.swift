extension ReservationInterpreter {
    /// The schema.org property names of one kind of trip.
    struct TripVocabulary {
        var companyKeys: [String]
        var nameKeys: [String]
        var numberKeys: [String]
        var departure: String
        var arrival: String
        var platformKeys: [String]
    }

    static func tripVocabulary(_ category: ReservationCategory) -> TripVocabulary {
        switch category {
        case .bus:
            // BusTrip: busCompany (older), provider, busName, busNumber, departureBusStop.
            TripVocabulary(
                companyKeys: ["provider", "busCompany"], nameKeys: ["busName"], numberKeys: ["busNumber"],
                departure: "departureBusStop", arrival: "arrivalBusStop", platformKeys: [])
        case .boat:
            // BoatTrip: provider, departureBoatTerminal, arrivalBoatTerminal.
            TripVocabulary(
                companyKeys: ["provider"], nameKeys: ["name"], numberKeys: [],
                departure: "departureBoatTerminal", arrival: "arrivalBoatTerminal", platformKeys: [])
        default:
            // TrainTrip: provider (trainCompany in older markup), trainName, trainNumber,
            // departureStation, departurePlatform.
            TripVocabulary(
                companyKeys: ["provider", "trainCompany"], nameKeys: ["trainName"], numberKeys: ["trainNumber"],
                departure: "departureStation", arrival: "arrivalStation", platformKeys: ["departurePlatform"])
        }
    }

    /// TrainReservation, BusReservation, BoatReservation: `reservationFor` a TrainTrip,
    /// BusTrip or BoatTrip with company, train/bus name or number, departure and arrival
    /// place and time. One item per leg, keyed by number, departure place and date.
    mutating func readGroundTrip() -> ReservationDraft? {
        guard let trip = requiredReservationFor() else { return nil }
        let words = Self.tripVocabulary(category)
        let reservation = node
        var company: String?
        for key in words.companyKeys where company == nil { company = trip.name(of: key) ?? reservation.name(of: key) }
        let number = trip.text(words.numberKeys)
        let vehicle = trip.text(words.nameKeys) ?? number
        let from = Self.placeCode(trip.node(words.departure)) ?? trip.text(words.departure)
        let to = Self.placeCode(trip.node(words.arrival)) ?? trip.text(words.arrival)

        var title = [company, vehicle].compactMap { $0 }.joined(separator: " ")
        if title.isEmpty || (company != nil && vehicle == nil) {
            title = [company, category.displayName].compactMap { $0 }.joined(separator: " ")
        }
        if let route = Self.route(from, to) { title += " " + route }

        var draft = ReservationDraft(title: title)
        draft.setTimes(span(trip, start: ["departureTime"], end: ["arrivalTime"], path: "reservationFor."))
        draft.location = PlaceLine.line(trip.node(words.departure)) ?? from
        draft.startClues = ZoneClue.clues(of: trip.node(words.departure), path: "reservationFor.\(words.departure).")
        draft.endClues = ZoneClue.clues(of: trip.node(words.arrival), path: "reservationFor.\(words.arrival).")
        draft.itemID = Self.legKey([number ?? vehicle, from, draft.start?.date])
        draft.add("Platform", trip.text(words.platformKeys))
        draft.add("Arrival", PlaceLine.line(trip.node(words.arrival)) ?? to, property: words.arrival)
        return draft
    }
}
