extension ReservationInterpreter {
    /// TaxiReservation: `pickupTime`, `pickupLocation`, `partySize`, `reservationFor` a
    /// TaxiService whose `provider` names the company.
    mutating func readTaxi() -> ReservationDraft? {
        let service = node.node("reservationFor")
        let company = service?.name(of: "provider") ?? node.name(of: "provider")
        var title = company.map { "\($0) taxi" } ?? category.displayName
        if let pickup = node.node("pickupLocation")?.text("name") ?? node.text("pickupLocation") {
            title += " from \(pickup)"
        }
        var draft = ReservationDraft(title: title)
        draft.setTimes(span(node, start: ["pickupTime"], end: []))
        draft.location = PlaceLine.line(node, property: "pickupLocation")
        draft.setClues(ZoneClue.clues(of: node.node("pickupLocation"), path: "pickupLocation."))
        draft.add("Party size", node.text("partySize"))
        return draft
    }
}
