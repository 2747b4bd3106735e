import JSON
public import Markup

/// Reads the reservations a message's structured items describe, following what Apple Mail
/// ("Schema markup in Mail", WWDC 2020) and Gmail (developers.google.com/gmail/markup) accept.
///
/// - An item is a reservation when its `@type` (or one of several) is a reservation type;
///   a generic `Reservation` takes its category from what `reservationFor` is.
/// - Reservations are also found inside wrappers: `EmailMessage.about`, `WebPage.mainEntity`,
///   `Order.orderedItem` / `OrderItem.orderedItem`, `ItemList.itemListElement`, `@graph`, and
///   `ReservationPackage.subReservation` (whose legs inherit the package's booking number,
///   status and guest).
/// - Kept items are keyed by (reservationID, itemID); a repeated key keeps the first
///   (`duplicate-item-reference`), except that another passenger's item adds that passenger's details.
/// - With `now`, reservations whose end (or start, without an end) is before `now` are
///   dropped, or with `keepEnded` kept and marked ``ReservationMark/ended`` (`extract`); a
///   floating time counts as ending at the latest moment it could (UTC−14:00), a date as the
///   end of that day. With `now == nil` nothing is dropped for being past.
/// - A date whose day and month order is ambiguous is decided by the item's other date, then by
///   `messageDate` (the message's `Date:`); undecided, it is unknown, and an item left without a
///   start is kept marked ``ReservationMark/dateAmbiguous`` (`date-ambiguous`) so `extract`
///   shows it; it is never made an event.
///
/// Decisions where the documentation leaves room:
/// - Booking key: `reservationId`, else `reservationNumber`, else `@id`; with none, a key
///   derived from category, title and start date (`derived-<FNV-1a>`) plus a `missing-reservation-id`
///   diagnostic, rather than dropping the booking as Apple Mail does.
/// - A date-time without offset is kept as floating time with `missing-timezone` (Apple Mail
///   drops it); dates without a time are whole days and need no offset.
/// - An item without a start is dropped (`missing-required-property`), except a cancellation, which only
///   needs its key to cancel what is stored.
/// - A missing `reservationStatus` means confirmed; an unknown one too, with `invalid-value`.
///
/// Never throws or traps: what cannot be used is reported in ``ReservationExtraction/diagnostics``.
public enum ReservationReader {
    /// The most any time zone lags UTC (UTC−12:00) plus margin: a floating time read as UTC
    /// plus this is the latest instant it can denote (UTC+14:00 is the earliest).
    static let floatingTimeSlackSeconds: Int64 = 14 * 3600

    public static func read(_ items: [StructuredItem], now: Int64?, messageDate: Int64? = nil, keepEnded: Bool = false)
        -> ReservationExtraction
    {
        read(items, now: now, messageDate: messageDate, keepEnded: keepEnded, zones: .system)
    }

    /// ``read(_:now:messageDate:keepEnded:)`` with the zones' rules from `zones`.
    static func read(_ items: [StructuredItem], now: Int64?, messageDate: Int64?, keepEnded: Bool, zones: TimeZoneBook)
        -> ReservationExtraction
    {
        var finder = CandidateFinder()
        let values = items.map { SchemaKeys.localized($0.value, depth: 0) ?? $0.value }
        let references = NodeReferences(values)
        for (item, value) in zip(items, values) {
            // A node described on its own and referenced by another item is read there.
            if references.isReferencedNode(value) { continue }
            finder.visitTopLevel(references.resolving(value), source: item.source)
        }
        var diagnostics = finder.diagnostics
        var reservations: [Reservation] = []
        var seen: Set<String> = []
        var keptIndex: [String: Int] = [:]
        var sources: [StructuredItem.Source] = []

        for candidate in finder.candidates {
            var interpreter = ReservationInterpreter(candidate, messageDate: messageDate, zones: zones)
            let reservation = interpreter.interpret()
            diagnostics += interpreter.diagnostics
            guard var reservation else { continue }

            let key = reservation.reservationID + "\u{0}" + reservation.itemID
            guard !seen.contains(key) else {
                if let index = keptIndex[key] {
                    if mergePassenger(reservation, into: &reservations[index]) { continue }
                    if sources[index] != candidate.source {
                        diagnostics += mergeDescriptions(
                            &reservations[index], keptSource: &sources[index], reservation, source: candidate.source)
                        continue
                    }
                }
                diagnostics.append(
                    ReservationDiagnostic(
                        code: .duplicateItemReference,
                        message:
                            "\(reservation.schemaType) \(reservation.reservationID) item \(reservation.itemID) appears again (\(reservation.title)); the first is kept"
                    ))
                continue
            }
            seen.insert(key)

            let label = "\(reservation.schemaType) \(reservation.reservationID)"
            guard keepIfNotEnded(&reservation, now: now, keepEnded: keepEnded, label: label, diagnostics: &diagnostics) else { continue }
            guard hasRoom(after: reservations.count, diagnostics: &diagnostics) else { break }
            keptIndex[key] = reservations.count
            reservations.append(reservation)
            sources.append(candidate.source)
        }
        foldUnnumberedCopies(&reservations, sources: &sources, diagnostics: &diagnostics)
        return ReservationExtraction(reservations: reservations, diagnostics: diagnostics)
    }

    /// A Microdata copy that lacks the booking number its JSON-LD twin has gets a derived key,
    /// so the keys cannot pair them: an item with a derived key is the same item as one from the
    /// other syntax with a booking number, the same category and the same start.
    static func foldUnnumberedCopies(
        _ reservations: inout [Reservation], sources: inout [StructuredItem.Source], diagnostics: inout [ReservationDiagnostic]
    ) {
        guard Set(sources).count > 1 else { return }
        var index = 0
        while index < reservations.count {
            let copy = reservations[index]
            guard copy.reservationID.hasPrefix(ReservationInterpreter.derivedKeyPrefix), let start = copy.start,
                let twin = reservations.indices.first(where: {
                    $0 != index && sources[$0] != sources[index] && reservations[$0].category == copy.category
                        && !reservations[$0].reservationID.hasPrefix(ReservationInterpreter.derivedKeyPrefix)
                        && reservations[$0].start?.local == start.local
                })
            else {
                index += 1
                continue
            }
            var kept = reservations[twin]
            var keptSource = sources[twin]
            // The twin's booking number and item key stay: only the description is merged.
            var described = copy
            described.reservationID = kept.reservationID
            described.itemID = kept.itemID
            diagnostics += mergeDescriptions(&kept, keptSource: &keptSource, described, source: sources[index])
            kept.reservationID = reservations[twin].reservationID
            kept.itemID = reservations[twin].itemID
            reservations[twin] = kept
            sources[twin] = keptSource
            reservations.remove(at: index)
            sources.remove(at: index)
            // Its twin has the booking number: nothing is keyed by the derived one.
            diagnostics.removeAll { $0.code == .missingReservationID && $0.detail == copy.reservationID }
        }
    }

    /// False, with an `ended` note, for a reservation that ended (or, without an end, started)
    /// before `now`; with `keepEnded` it is kept instead, marked ``ReservationMark/ended``.
    static func keepIfNotEnded(
        _ reservation: inout Reservation, now: Int64?, keepEnded: Bool, label: String, diagnostics: inout [ReservationDiagnostic]
    ) -> Bool {
        guard let now, let ending = latestInstant(of: reservation), ending < now else { return true }
        let which = reservation.end == nil ? "started" : "ended"
        diagnostics.append(
            ReservationDiagnostic(
                code: .ended,
                message:
                    "\(label) (\(reservation.title)) \(which) \(reservation.end?.text ?? reservation.start?.text ?? ""), before now; \(keepEnded ? "listed as ended, not stored" : "skipped")"
            ))
        guard keepEnded else { return false }
        reservation.marks.append(.ended)
        return true
    }

    /// False, with `limit-exceeded`, once a message holds ``ReservationLimits/reservationsPerMessage``.
    static func hasRoom(after count: Int, diagnostics: inout [ReservationDiagnostic]) -> Bool {
        guard count >= ReservationLimits.reservationsPerMessage else { return true }
        diagnostics.append(
            ReservationDiagnostic(
                code: .limitExceeded,
                message: "more than \(ReservationLimits.reservationsPerMessage) reservations in one message; the rest are ignored"))
        return false
    }

    /// Gmail's markup gives each passenger of a booking their own reservation with the same
    /// booking number and trip: one calendar event carries them all. A second item for the
    /// same key with a guest not yet listed adds its details (guest, seat, ticket) to the
    /// first; the first's times, place and JSON stay. Returns false for a true duplicate.
    static func mergePassenger(_ other: Reservation, into kept: inout Reservation) -> Bool {
        guard let guest = other.details.first(where: { $0.label == "Guest" })?.value,
            !kept.details.contains(where: { ($0.label == "Guest" || $0.label == "Guests") && $0.value == guest })
        else { return false }
        for detail in other.details where !kept.details.contains(detail) {
            kept.details.append(detail)
        }
        return true
    }

    /// One item described both in JSON-LD and in Microdata (European airlines send both, and
    /// they drift apart): one reservation, the JSON-LD description preferred as the typed one
    /// Gmail reads first. What the preferred lacks is taken from the other; a time the other
    /// places in a zone at the same wall-clock reading is taken with its zone; every property
    /// where they disagree is named in the note (`descriptions-merged`, detail: the properties).
    static func mergeDescriptions(
        _ kept: inout Reservation, keptSource: inout StructuredItem.Source, _ other: Reservation, source: StructuredItem.Source
    ) -> [ReservationDiagnostic] {
        var preferred = kept
        var second = other
        if keptSource != .jsonLD, source == .jsonLD {
            swap(&preferred, &second)
            keptSource = source
        }
        var filled: [String] = []
        var disagreeing: [String] = []
        func time(_ name: String, _ mine: inout DateTimeValue?, _ theirs: DateTimeValue?) {
            guard let theirs else { return }
            guard let current = mine else {
                mine = theirs
                filled.append(name)
                return
            }
            if current.epochSeconds == nil, theirs.epochSeconds != nil, current.local == theirs.local {
                mine = theirs
                filled.append("\(name) zone")
            } else if current.local != theirs.local
                || (current.epochSeconds != nil && theirs.epochSeconds != nil && current.epochSeconds != theirs.epochSeconds)
            {
                disagreeing.append(name)
            }
        }
        time("start", &preferred.start, second.start)
        time("end", &preferred.end, second.end)
        if preferred.start != nil { preferred.marks.removeAll { $0 == .dateAmbiguous } }
        func text(_ name: String, _ mine: inout String?, _ theirs: String?) {
            guard let theirs else { return }
            if mine == nil {
                mine = theirs
                filled.append(name)
            } else if mine != theirs {
                disagreeing.append(name)
            }
        }
        text("location", &preferred.location, second.location)
        text("url", &preferred.url, second.url)
        text("checkinUrl", &preferred.checkinURL, second.checkinURL)
        if preferred.modifiedTime == nil, let modified = second.modifiedTime {
            preferred.modifiedTime = modified
            filled.append("modifiedTime")
        }
        if preferred.status != second.status { disagreeing.append("reservationStatus") }
        if preferred.title != second.title { disagreeing.append("title") }
        for detail in second.details where !preferred.details.contains(where: { $0.label == detail.label }) {
            preferred.details.append(detail)
            filled.append(detail.label)
        }
        kept = preferred
        var message =
            "\(kept.schemaType) \(kept.reservationID) item \(kept.itemID) is described in JSON-LD and in Microdata: read as one, the JSON-LD preferred"
        if !disagreeing.isEmpty { message += "; they disagree on \(disagreeing.joined(separator: ", ")) (the JSON-LD kept)" }
        if !filled.isEmpty { message += "; from the Microdata: \(filled.joined(separator: ", "))" }
        let detail = disagreeing.isEmpty ? nil : disagreeing.joined(separator: ",")
        return [ReservationDiagnostic(code: .descriptionsMerged, message: message, detail: detail)]
    }

    /// The last instant the reservation can still be running: its end, else its start.
    static func latestInstant(of reservation: Reservation) -> Int64? {
        guard let time = reservation.end ?? reservation.start else { return nil }
        if let epoch = time.epochSeconds { return epoch }
        return time.localEpochSeconds + (time.isDateOnly ? 86_400 : 0) + floatingTimeSlackSeconds
    }
}

/// Property names written as `schema:name`, `http://schema.org/name` or
/// `https://schema.org/name/` (JSON-LD with a prefix in `@context`, Microdata `itemprop`
/// URLs) are read as `name`, so the interpreter sees one spelling. A name that is there
/// already bare wins over a prefixed duplicate; other vocabularies' keys stay as they are.
enum SchemaKeys {
    /// The value with its keys localized, or nil when nothing had to change (no copy).
    static func localized(_ value: JSONValue, depth: Int) -> JSONValue? {
        guard depth < ReservationLimits.wrapperDepth * 8 else { return nil }
        switch value {
        case .object(let object):
            var changed = false
            var members: [JSONObject.Member] = []
            members.reserveCapacity(object.members.count)
            // The bare names, collected only for an object that has a prefixed one.
            var bare: Set<String>?
            for member in object.members {
                var key = member.key
                if !key.hasPrefix("@"), Self.isQualified(key), let local = SchemaOrg.localName(key) {
                    let known = bare ?? Set(object.members.map(\.key).filter { !Self.isQualified($0) })
                    bare = known
                    if known.contains(local) {
                        changed = true
                        continue
                    }
                    key = local
                    changed = true
                }
                let inner = localized(member.value, depth: depth + 1)
                if inner != nil { changed = true }
                members.append(JSONObject.Member(key: key, value: inner ?? member.value))
            }
            return changed ? .object(JSONObject(members)) : nil
        case .array(let array):
            var changed = false
            let mapped = array.map { element -> JSONValue in
                guard let inner = localized(element, depth: depth + 1) else { return element }
                changed = true
                return inner
            }
            return changed ? .array(mapped) : nil
        default:
            return nil
        }
    }

    /// Whether a key has a prefix or is a URL (holds ":" or "/"); on bytes, for every key.
    static func isQualified(_ key: String) -> Bool {
        key.utf8.contains { $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: "/") }
    }
}
