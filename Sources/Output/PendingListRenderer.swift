public import EventStore
import JSON
import ReservoirBase

/// `reservoir pending`: the reservations of genuine senders not chosen yet, by sender domain,
/// with the choices already made.
public enum PendingListRenderer {
    /// The pending reservations grouped by domain, the domains in the order their first
    /// reservation arrived.
    static func grouped(_ pending: [PendingReservation]) -> [(domain: String, reservations: [PendingReservation])] {
        var order: [String] = []
        var groups: [String: [PendingReservation]] = [:]
        for reservation in pending {
            if groups[reservation.domain] == nil { order.append(reservation.domain) }
            groups[reservation.domain, default: []].append(reservation)
        }
        return order.map { ($0, groups[$0] ?? []) }
    }

    /// The listing for people: every text from a message or the store escaped (``TerminalText``),
    /// then the choices made, each with when and by whom (`by page:jane@example.org` for a button
    /// on the account's page).
    public static func text(_ pending: [PendingReservation], decisions: [SenderDecision] = []) -> String {
        var choices: TerminalText = ""
        if !decisions.isEmpty {
            choices += "Decided:\n"
            for decision in decisions {
                let word = decision.choice == .allow ? "allowed" : "denied"
                choices += "  \(decision.domain)  \(word)  \(CivilTime.iso8601UTC(decision.decidedAt))  by \(decision.decidedBy)\n"
            }
        }
        guard !pending.isEmpty else { return "No pending senders.\n" + choices.text }
        var out: TerminalText = ""
        for (domain, reservations) in grouped(pending) {
            let count = reservations.count == 1 ? "1 reservation" : "\(reservations.count) reservations"
            out += "\(domain)  \(count)  (reservoir allow \(domain), or reservoir deny \(domain))\n"
            for reservation in reservations {
                let dates = [reservation.start, reservation.end].compactMap { $0 }.joined(separator: " to ")
                out += "  \(reservation.title)  \(dates)  received \(CivilTime.iso8601UTC(reservation.received))\n"
            }
        }
        return out.text + choices.text
    }

    public static func json(_ pending: [PendingReservation], decisions: [SenderDecision]) -> String {
        let senders = grouped(pending).map { domain, reservations in
            JSONBuild.object([
                ("domain", .string(domain)), ("count", .number(Double(reservations.count))),
                (
                    "reservations",
                    .array(
                        reservations.map { reservation in
                            JSONBuild.object([
                                ("title", .string(reservation.title)), ("start", reservation.start.map(JSONValue.string)),
                                ("end", reservation.end.map(JSONValue.string)), ("booking", .string(reservation.container)),
                                ("item", .string(reservation.item)), ("messageId", reservation.messageID.map(JSONValue.string)),
                                ("received", .string(CivilTime.iso8601UTC(reservation.received))),
                            ])
                        })
                ),
            ])
        }
        let decided = decisions.map { decision in
            JSONBuild.object([
                ("domain", .string(decision.domain)), ("decision", .string(decision.choice.rawValue)),
                ("decidedAt", .string(CivilTime.iso8601UTC(decision.decidedAt))), ("decidedBy", .string(decision.decidedBy)),
            ])
        }
        return JSONBuild.object([("pending", .array(senders)), ("decided", .array(decided))]).prettyPrinted()
    }
}
