import JSON

extension ReservationInterpreter {
    /// `reservedTicket` (one Ticket or several): per ticket its `ticketNumber`, its
    /// `ticketToken` (``ticketCode(_:)``), its `ticketedSeat` (``seat(_:)``) unless the
    /// category already read a seat (a flight's `airplaneSeat`), and its `underName` when that
    /// is not a guest of the reservation.
    mutating func addTickets(to draft: inout ReservationDraft, guests: [String]) {
        let seatRead = draft.details.contains { $0.label == "Seat" }
        var refused: Set<Int> = []
        for (index, value) in node.values("reservedTicket").enumerated() {
            guard let ticket = SchemaNode(value) else { continue }
            draft.add("Ticket number", ticket.text("ticketNumber"))
            switch ticketCode(ticket.text("ticketToken")) {
            case .code(let code): draft.add("Ticket code", code)
            case .refused: refused.insert(index)
            case .none: break
            }
            if !seatRead {
                draft.add("Seat", Self.seat(ticket.node("ticketedSeat")))
            }
            for value in ticket.values("underName") {
                if let name = SchemaNode(value)?.text("name") ?? SchemaNode.text(of: value), !guests.contains(name) {
                    draft.add("Ticket holder", name)
                }
            }
        }
        if !refused.isEmpty {
            rewriteRepaired("reservedTicket") { index, value in
                guard refused.contains(index), var ticket = value.objectValue else { return value }
                ticket["ticketToken"] = nil
                return .object(ticket)
            }
        }
    }

    /// What a ticket token gives: a detail, nothing, or a refused link.
    enum TicketCode {
        case code(String)
        case refused
    }

    /// Schemes a ticket token must never carry into a calendar, whatever follows them.
    static let scriptSchemes: Set<String> = ["javascript", "vbscript", "data", "file", "blob"]

    /// Google's `ticketToken`: `qrCode:AB34` or `barcode128:AB34` as the value and its kind
    /// (`AB34 (QR code)`), an http(s) image of the ticket as its URL, other short text as it is
    /// (at most ``ReservationLimits/ticketTokenLength`` characters). A longer token is left out;
    /// a URL of another scheme (`data:image/png;base64,…`) is left out with `unsafe-url`.
    mutating func ticketCode(_ token: String?) -> TicketCode? {
        guard let token else { return nil }
        let kinds = [("qrcode:", "QR code"), ("barcode128:", "barcode 128")]
        for (prefix, kind) in kinds where token.lowercased().hasPrefix(prefix) {
            let value = token.dropFirst(prefix.count)
            guard !value.isEmpty, value.count <= ReservationLimits.ticketTokenLength else { return nil }
            return .code("\(value) (\(kind))")
        }
        if Self.isWebURL(token) { return token.hasSuffix("…") ? nil : .code(token) }
        if let scheme = Self.scheme(of: token),
            Self.scriptSchemes.contains(scheme) || token.dropFirst(scheme.count + 1).hasPrefix("//")
        {
            refuseLink(token, property: "reservedTicket.ticketToken")
            return .refused
        }
        return token.count <= ReservationLimits.ticketTokenLength ? .code(token) : nil
    }
}
