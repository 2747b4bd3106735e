import JSON
import Markup

/// Walks structured items for reservation items, through the wrappers senders use, within
/// ``ReservationLimits/wrapperDepth`` and ``ReservationLimits/itemsVisitedPerMessage``.
struct CandidateFinder {
    var candidates: [ReservationCandidate] = []
    var diagnostics: [ReservationDiagnostic] = []
    private var visited = 0
    private var reportedLimit = false
    /// Where the item being visited came from: merged descriptions prefer JSON-LD.
    private var source: StructuredItem.Source = .jsonLD
    /// The `@id`s of reservations already taken: a node reached twice (referenced from a
    /// wrapper and listed in `@graph`) is one reservation, not a duplicate.
    private var takenNodes: Set<String> = []

    /// Properties that hold the item a wrapper is about, by wrapper type. Other types are
    /// searched through all of them, so an unexpected wrapper still works.
    static let wrapperProperties: [String: [String]] = [
        "EmailMessage": ["about", "mainEntity"],
        "WebPage": ["mainEntity", "about"],
        "Order": ["orderedItem", "acceptedOffer"],
        "OrderItem": ["orderedItem"],
        "Offer": ["itemOffered"],
        "ItemList": ["itemListElement"],
        "ListItem": ["item"],
    ]
    static let anyWrapperProperties = [
        "about", "mainEntity", "orderedItem", "acceptedOffer", "itemOffered",
        "itemListElement", "item", "subjectOf",
    ]

    /// Booking-wide properties a `ReservationPackage` leg takes from its package when it lacks them.
    static let packageInherited = [
        "reservationId", "reservationNumber", "reservationStatus", "underName",
        "modifyReservationUrl", "url", "checkinUrl", "provider", "broker",
        "bookingTime", "totalPrice", "priceCurrency",
    ]

    /// One item of the message; an item that holds no reservation gets `unsupported-type`.
    mutating func visitTopLevel(_ value: JSONValue, source: StructuredItem.Source = .jsonLD) {
        self.source = source
        let before = candidates.count
        visit(value, depth: 0, inherited: nil)
        guard candidates.count == before, !reportedLimit else { return }
        let names = Self.typeList(value)
        let what = names.isEmpty ? "an item without @type" : "an item of type \(names.joined(separator: ", "))"
        diagnostics.append(
            ReservationDiagnostic(
                code: .unsupportedType,
                message:
                    "\(what) is not a reservation kind Reservoir reads (FoodEstablishmentReservation, LodgingReservation, RentalCarReservation, FlightReservation, TrainReservation, BusReservation, BoatReservation, EventReservation, TaxiReservation); ignored"
            ))
    }

    /// The types of an item, or of the objects of a top-level array (one level only).
    static func typeList(_ value: JSONValue) -> [String] {
        value.listValue.flatMap { SchemaNode($0)?.types ?? [] }
    }

    private mutating func visit(_ value: JSONValue, depth: Int, inherited: JSONObject?) {
        guard depth <= ReservationLimits.wrapperDepth else { return }
        visited += 1
        guard visited <= ReservationLimits.itemsVisitedPerMessage else {
            if !reportedLimit {
                reportedLimit = true
                diagnostics.append(
                    ReservationDiagnostic(
                        code: .limitExceeded,
                        message: "more than \(ReservationLimits.itemsVisitedPerMessage) items in one message; the rest are ignored"))
            }
            return
        }
        switch value {
        case .array(let items):
            for item in items { visit(item, depth: depth + 1, inherited: inherited) }
        case .object(var object):
            if let graph = object["@graph"] {
                visit(graph, depth: depth + 1, inherited: inherited)
            }
            if let inherited {
                for key in Self.packageInherited where object[key] == nil {
                    if let value = inherited[key] { object[key] = value }
                }
            }
            visitObject(SchemaNode(object), depth: depth)
        default:
            return
        }
    }

    /// One candidate per element of `reservationFor` (one reservation for several flights or
    /// trips: each is an item of the same booking), else the reservation itself. At most
    /// ``ReservationLimits/reservationsPerMessage`` elements are taken, with `limit-exceeded`.
    private mutating func addCandidates(
        _ node: SchemaNode, schemaType: String, category: (SchemaNode) -> ReservationCategory?
    ) {
        if let id = NodeReferences.identifier(node.object) {
            guard takenNodes.insert(id).inserted else { return }
        }
        let things = node.values("reservationFor")
        guard things.count > 1 else {
            if let found = category(node) {
                candidates.append(ReservationCandidate(node: node, category: found, schemaType: schemaType, source: source))
            }
            return
        }
        if things.count > ReservationLimits.reservationsPerMessage {
            diagnostics.append(
                ReservationDiagnostic(
                    code: .limitExceeded,
                    message:
                        "\(schemaType) with \(things.count) things in reservationFor; the first \(ReservationLimits.reservationsPerMessage) are read"
                ))
        }
        for thing in things.prefix(ReservationLimits.reservationsPerMessage) {
            var object = node.object
            object["reservationFor"] = thing
            let element = SchemaNode(object)
            if let found = category(element) {
                candidates.append(
                    ReservationCandidate(node: element, category: found, schemaType: schemaType, source: source, isReservationForElement: true))
            }
        }
    }

    private mutating func visitObject(_ node: SchemaNode, depth: Int) {
        let types = node.types
        for type in types {
            if let category = SchemaVocabulary.reservationTypes[type] {
                addCandidates(node, schemaType: type) { _ in category }
                return
            }
        }
        if types.contains("ReservationPackage") {
            for leg in node.values("subReservation") {
                visit(leg, depth: depth + 1, inherited: node.object)
            }
            return
        }
        if types.contains("Reservation") {
            // A generic Reservation: the category is what is booked.
            addCandidates(node, schemaType: "Reservation") { reservation in
                let thing = reservation.node("reservationFor")?.types ?? []
                return thing.lazy.compactMap({ SchemaVocabulary.reservedThings[$0] }).first
            }
            return
        }
        var properties = Self.anyWrapperProperties
        for type in types {
            if let known = Self.wrapperProperties[type] {
                properties = known
                break
            }
        }
        for key in properties {
            guard let inner = node.object[key] else { continue }
            visit(key == "subjectOf" ? Self.reservingThing(inner, node) : inner, depth: depth + 1, inherited: nil)
        }
    }

    /// A Thing that names its reservation in `subjectOf` (an event or a flight with its booking
    /// nested inside): a reservation there without `reservationFor` is for that Thing.
    static func reservingThing(_ value: JSONValue, _ thing: SchemaNode) -> JSONValue {
        var reserved = thing.object
        reserved["subjectOf"] = nil
        func adopt(_ element: JSONValue) -> JSONValue {
            guard var object = element.objectValue, object["reservationFor"] == nil,
                SchemaNode(object).types.contains(where: { SchemaVocabulary.reservationTypes[$0] != nil || $0 == "Reservation" })
            else { return element }
            object["reservationFor"] = .object(reserved)
            return .object(object)
        }
        if case .array(let elements) = value { return .array(elements.map(adopt)) }
        return adopt(value)
    }
}
