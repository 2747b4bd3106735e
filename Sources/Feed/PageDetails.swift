import EventStore

/// What a traveller needs of one booking beyond its title, time and place, read from what the
/// store keeps: the reservation's details, one `Label: value` line each in the event's notes
/// (`Seat: 14A`, `Gate: B12`, `Boarding time: …`, `Check-in URL: …`, `Phone: …`), and its
/// link (``CalendarEvent/url``: `modifyReservationUrl`, else `url`, else `checkinUrl`).
/// Details come first as rows (those checked at a gate first, then the rest as written), web
/// links become buttons, a phone number a `tel:` link.
struct PageDetails: Sendable, Equatable {
    struct Row: Sendable, Equatable {
        var label: String
        var value: String
        /// The `tel:` URI of a `Phone` row whose value is a number to dial (``PageLinks/telephone(_:)``).
        var telephone: String?
    }

    struct Link: Sendable, Equatable {
        /// The button's words (`Check in`, `Manage booking`).
        var label: String
        /// An http(s) URL (``PageLinks/web(_:)``).
        var url: String
    }

    var rows: [Row] = []
    var links: [Link] = []

    /// Details read at the gate or the door, shown first and in bold, in this order.
    static let keyLabels = ["Boarding time", "Gate", "Terminal", "Platform", "Seat", "Seats", "Boarding group"]

    /// The detail labels whose value is a link (the reader's labels for `checkinUrl`,
    /// `modifyReservationUrl` and the schema.org actions), with the words of their button.
    static let linkLabels: [(label: String, button: String)] = [
        ("Check-in URL", "Check in"), ("Manage booking", "Manage booking"), ("View", "View booking"),
        ("Confirm booking", "Confirm booking"), ("Cancel booking", "Cancel booking"),
    ]

    /// The label of the detail holding a telephone number.
    static let phoneLabel = "Phone"

    init(_ event: CalendarEvent) {
        var rows: [Row] = []
        for line in event.notes.split(separator: "\n", omittingEmptySubsequences: true) {
            // `Label: value`: the label ends at the first ": " (labels hold no colon).
            guard let colon = line.indices.first(where: { line[$0] == ":" && line[line.index(after: $0)...].first == " " }) else {
                rows.append(Row(label: "Note", value: String(line)))
                continue
            }
            let label = String(line[..<colon])
            let value = String(line[line.index(colon, offsetBy: 2)...])
            if let button = Self.linkLabels.first(where: { $0.label == label })?.button {
                // Only an http(s) address is a link; anything else is shown, as text.
                if let url = PageLinks.web(value) {
                    if !links.contains(where: { $0.url == url }) { links.append(Link(label: button, url: url)) }
                    continue
                }
            }
            let telephone = label == Self.phoneLabel ? PageLinks.telephone(value) : nil
            rows.append(Row(label: label, value: value, telephone: telephone))
        }
        // The event's own link, when no detail gave the same address.
        if let text = event.url, let url = PageLinks.web(text), !links.contains(where: { $0.url == url }) {
            links.append(Link(label: "Booking page", url: url))
        } else if let text = event.url, PageLinks.web(text) == nil, !text.isEmpty {
            rows.append(Row(label: "Link", value: text))
        }
        let key = Self.keyLabels.flatMap { label in rows.filter { $0.label == label } }
        self.rows = key + rows.filter { !Self.keyLabels.contains($0.label) }
    }
}
