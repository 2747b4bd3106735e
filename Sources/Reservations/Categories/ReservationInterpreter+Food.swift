import JSON
import Markup

extension ReservationInterpreter {
    /// FoodEstablishmentReservation: `startTime` (required by Apple and Google), `endTime`,
    /// `partySize`, `reservationFor` a FoodEstablishment (Restaurant, …) with name and address.
    mutating func readFood() -> ReservationDraft? {
        guard let restaurant = requiredReservationFor() else { return nil }
        var draft = ReservationDraft(title: restaurant.text("name") ?? category.displayName)
        draft.setTimes(span(node, start: ["startTime"], end: ["endTime"]))
        if draft.start == nil, !draft.startUndecided {
            // A recovered time is moved to where schema.org puts it (`recoverTime`).
            draft.start =
                recoverTime(from: restaurant, ownerPath: "reservationFor.", keys: ["startDate", "startTime"], into: "startTime")
                ?? recoverTime(from: node, ownerPath: "", keys: ["startDate"], into: "startTime")
            if draft.start != nil { draft.startProperty = "startTime" }
            if draft.end == nil {
                draft.end =
                    recoverTime(from: restaurant, ownerPath: "reservationFor.", keys: ["endDate", "endTime"], into: "endTime")
                    ?? recoverTime(from: node, ownerPath: "", keys: ["endDate"], into: "endTime")
                if draft.end != nil { draft.endProperty = "endTime" }
            }
        }
        draft.location = PlaceLine.line(restaurant)
        draft.setClues(ZoneClue.clues(of: restaurant, path: "reservationFor."))
        if let size = node.text("partySize") ?? node.node("partySize")?.text("value") {
            draft.add("Party size", size)
        }
        draft.add("Phone", restaurant.text("telephone"))
        return draft
    }

    /// Apple's WWDC 2020 example puts the time on the restaurant (`reservationFor.startDate`)
    /// rather than the reservation's `startTime`: take it from there, move it in the
    /// normalized JSON, and record a `repaired` diagnostic.
    mutating func recoverTime(from owner: SchemaNode, ownerPath: String, keys: [String], into target: String) -> DateTimeValue? {
        for key in keys {
            guard let raw = owner.text(key), owner.object[key] != nil else { continue }
            guard let value = time(owner, [key], path: ownerPath) else { continue }
            note(.repaired, "\(target) taken from \(ownerPath)\(key) (\(raw)); schema.org puts it on the reservation")
            repaired[target] = .string(raw)
            if ownerPath.isEmpty {
                repaired[key] = nil
            } else if var thing = repaired["reservationFor"]?.objectValue {
                thing[key] = nil
                repaired["reservationFor"] = .object(thing)
            }
            return value
        }
        return nil
    }
}
