extension ReservationInterpreter {
    /// FlightReservation: `reservationFor` a Flight with `airline` (name, `iataCode`),
    /// `flightNumber`, `departureAirport`/`arrivalAirport` (name, `iataCode`),
    /// `departureTime`/`arrivalTime`; seat in `airplaneSeat`, class in `airplaneSeatClass`.
    /// One item per leg; the leg key is airline + number, departure airport and date.
    mutating func readFlight() -> ReservationDraft? {
        guard let flight = requiredReservationFor() else { return nil }
        let airline = flight.node("airline")
        let airlineName =
            airline?.text("name") ?? (airline == nil ? flight.text("airline") : nil)
            ?? flight.name(of: "provider") ?? node.name(of: "provider")
        let airlineCode = airline?.text("iataCode")
        let number = Self.flightDesignator(code: airlineCode, number: flight.text("flightNumber"))
        let from = Self.placeCode(flight.node("departureAirport")) ?? flight.text("departureAirport")
        let to = Self.placeCode(flight.node("arrivalAirport")) ?? flight.text("arrivalAirport")

        var title = [airlineName ?? (number == nil ? nil : category.displayName), number.map(\.spaced)]
            .compactMap { $0 }.joined(separator: " ")
        if title.isEmpty { title = category.displayName }
        if let route = Self.route(from, to) { title += " " + route }

        var draft = ReservationDraft(title: title)
        draft.setTimes(span(flight, start: ["departureTime"], end: ["arrivalTime"], path: "reservationFor."))
        draft.location = PlaceLine.line(flight.node("departureAirport"), includeCode: true) ?? from
        // Flight times are the airports' wall-clock times: the departure's for the start, the arrival's for the end.
        draft.startClues = ZoneClue.clues(of: flight.node("departureAirport"), path: "reservationFor.departureAirport.", airport: true)
        draft.endClues = ZoneClue.clues(of: flight.node("arrivalAirport"), path: "reservationFor.arrivalAirport.", airport: true)
        draft.itemID = Self.legKey([number?.compact, from, draft.start?.date])

        if let seat = node.text("airplaneSeat") {
            draft.add("Seat", seat, property: "airplaneSeat")
        }
        draft.add("Class", node.name(of: "airplaneSeatClass"))
        draft.add("Boarding group", node.text("boardingGroup"))
        draft.add("Terminal", flight.text("departureTerminal"))
        draft.add("Gate", flight.text("departureGate"))
        if let boarding = flight.text("boardingTime").flatMap(DateTimeValue.init(parsing:)), !boarding.isDateOnly {
            draft.add("Boarding time", String(boarding.local.dropFirst(11).prefix(5)))
        }
        draft.add("Operated by", flight.name(of: "operatedBy"))
        draft.add("Arrival", PlaceLine.line(flight.node("arrivalAirport"), includeCode: true) ?? to)
        return draft
    }

    struct FlightDesignator {
        var spaced: String
        var compact: String
    }

    /// `C7` + `412` → `C7 412` / `C7412`; a number already carrying the code is not doubled.
    static func flightDesignator(code: String?, number: String?) -> FlightDesignator? {
        guard let number else { return code.map { FlightDesignator(spaced: $0, compact: $0) } }
        let digits = number.filter { $0 != " " }
        guard let code, !digits.uppercased().hasPrefix(code.uppercased()) else {
            return FlightDesignator(spaced: number, compact: digits)
        }
        return FlightDesignator(spaced: "\(code) \(number)", compact: code + digits)
    }

    /// An airport's or station's short name for titles: its IATA code, else its name.
    static func placeCode(_ place: SchemaNode?) -> String? {
        place?.text("iataCode") ?? place?.text("name")
    }

    static func route(_ from: String?, _ to: String?) -> String? {
        switch (from, to) {
        case (let from?, let to?): "\(from) → \(to)"
        case (let from?, nil): "from \(from)"
        case (nil, let to?): "to \(to)"
        default: nil
        }
    }

    /// A stable per-leg key from the parts present (spaces removed), `1` when none is.
    static func legKey(_ parts: [String?]) -> String {
        let present = parts.compactMap { $0?.filter { !$0.isWhitespace } }.filter { !$0.isEmpty }
        return present.isEmpty ? "1" : present.joined(separator: "-")
    }
}
