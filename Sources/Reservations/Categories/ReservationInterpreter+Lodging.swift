extension ReservationInterpreter {
    /// LodgingReservation: `checkinDate`/`checkoutDate` (older markup: `checkinTime`/
    /// `checkoutTime`), `reservationFor` a LodgingBusiness (Hotel, …), room and guest counts.
    mutating func readLodging() -> ReservationDraft? {
        guard let hotel = requiredReservationFor() else { return nil }
        var draft = ReservationDraft(title: hotel.text("name") ?? category.displayName)
        draft.setTimes(span(node, start: ["checkinDate", "checkinTime"], end: ["checkoutDate", "checkoutTime"]))
        draft.location = PlaceLine.line(hotel)
        draft.setClues(ZoneClue.clues(of: hotel, path: "reservationFor."))
        draft.add("Room", node.text("lodgingUnitDescription") ?? node.name(of: "lodgingUnitType"))
        var guests: [String] = []
        if let adults = node.text("numAdults") ?? node.node("numAdults")?.text("value") {
            guests.append("\(adults) adult\(adults == "1" ? "" : "s")")
        }
        if let children = node.text("numChildren") ?? node.node("numChildren")?.text("value"), children != "0" {
            guests.append("\(children) child\(children == "1" ? "" : "ren")")
        }
        draft.add("Guests", guests.isEmpty ? nil : guests.joined(separator: ", "))
        draft.add("Phone", hotel.text("telephone"))
        return draft
    }
}
