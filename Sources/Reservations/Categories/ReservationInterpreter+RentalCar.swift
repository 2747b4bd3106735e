extension ReservationInterpreter {
    /// RentalCarReservation: `pickupTime`/`dropoffTime` and `pickupLocation`/`dropoffLocation`
    /// on the reservation, `reservationFor` a Car with its `rentalCompany` (or the
    /// reservation's `provider`).
    mutating func readRentalCar() -> ReservationDraft? {
        let car = node.node("reservationFor")
        let company = car?.name(of: "rentalCompany") ?? node.name(of: "provider") ?? car?.name(of: "provider")
        let pickup = node.node("pickupLocation")?.text("name") ?? node.text("pickupLocation")
        var title = company.map { "\($0) car rental" } ?? category.displayName
        if let pickup { title += " at \(pickup)" }
        var draft = ReservationDraft(title: title)
        draft.setTimes(span(node, start: ["pickupTime"], end: ["dropoffTime"]))
        draft.location = PlaceLine.line(node, property: "pickupLocation")
        draft.startClues = ZoneClue.clues(of: node.node("pickupLocation"), path: "pickupLocation.")
        draft.endClues =
            node.node("dropoffLocation").map { ZoneClue.clues(of: $0, path: "dropoffLocation.") } ?? draft.startClues
        if let car {
            let model = [car.name(of: "brand"), car.text("model")].compactMap { $0 }.joined(separator: " ")
            draft.add("Car", car.text("name") ?? (model.isEmpty ? nil : model))
        }
        draft.add("Drop-off", PlaceLine.line(node, property: "dropoffLocation"))
        return draft
    }
}
