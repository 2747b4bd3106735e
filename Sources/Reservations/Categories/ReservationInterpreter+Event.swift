extension ReservationInterpreter {
    /// EventReservation: `reservationFor` an Event (MusicEvent, ScreeningEvent, SportsEvent, …)
    /// with `name`, `startDate`, `endDate`, `location`; a ScreeningEvent names its movie in
    /// `workPresented`. Seats from `reservedTicket` or `numSeats`.
    mutating func readEvent() -> ReservationDraft? {
        guard let event = requiredReservationFor() else { return nil }
        let movie = event.name(of: "workPresented")
        var draft = ReservationDraft(title: event.text("name") ?? movie ?? category.displayName)
        draft.setTimes(span(event, start: ["startDate"], end: ["endDate"], path: "reservationFor."))
        if draft.start == nil, !draft.startUndecided {
            let own = span(start: reading(node, ["startDate", "startTime"]), end: .absent)
            if let start = own.start {
                note(.repaired, "start taken from the reservation's own startDate; schema.org puts it on reservationFor")
                draft.start = start
                draft.startProperty = own.startProperty
            }
        }
        draft.location =
            PlaceLine.line(event, property: "location")
            ?? event.node("location")?.text("url")
        draft.setClues(ZoneClue.clues(of: event.node("location"), path: "reservationFor.location."))
        if let movie, movie != draft.title { draft.add("Movie", movie) }
        draft.add("Performer", event.name(of: "performer"))
        draft.add("Seats", node.text("numSeats"))
        return draft
    }
}
