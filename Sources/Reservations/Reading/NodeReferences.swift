import JSON

/// JSON-LD node references (JSON-LD 1.1 §4.5 "Node identifiers" and §4.9 "Named graphs"):
/// senders describe a flight once in `@graph` with an `@id` and let the reservation point at it
/// with `{"@id": "#flight-1"}`; Microdata does the same with `itemid`. A reference is an object
/// holding nothing but `@id` (and perhaps `@type`); it is replaced by the message's description
/// of that node — the first object with the same `@id` and any other property.
///
/// Bounded: at most ``ReservationLimits/itemsVisitedPerMessage`` objects are indexed, and a
/// node is expanded only once on each path (a reference back to an ancestor stays a reference),
/// within ``ReservationLimits/wrapperDepth`` × 8 levels.
struct NodeReferences {
    /// The description of each `@id`, first one wins.
    private(set) var definitions: [String: JSONObject] = [:]
    /// Every `@id` some other object refers to.
    private(set) var referenced: Set<String> = []
    private var visited = 0

    init(_ values: [JSONValue]) {
        for value in values { index(value, depth: 0) }
    }

    /// Whether any reference can be resolved: most messages have none, and are left as they are.
    var isEmpty: Bool { referenced.isEmpty || definitions.isEmpty }

    private mutating func index(_ value: JSONValue, depth: Int) {
        guard depth < ReservationLimits.wrapperDepth * 8, visited < ReservationLimits.itemsVisitedPerMessage else { return }
        switch value {
        case .array(let elements):
            for element in elements { index(element, depth: depth + 1) }
        case .object(let object):
            visited += 1
            if let id = Self.identifier(object) {
                if Self.isReference(object) {
                    referenced.insert(id)
                } else if definitions[id] == nil {
                    definitions[id] = object
                }
            }
            for member in object.members where member.key != "@id" && member.key != "@context" {
                index(member.value, depth: depth + 1)
            }
        default:
            return
        }
    }

    /// The `@id` of an object, trimmed; nil without one.
    static func identifier(_ object: JSONObject) -> String? {
        object["@id"].flatMap(SchemaNode.text(of:))
    }

    /// An object that only names a node: `@id`, perhaps `@type` and `@context`, nothing else.
    static func isReference(_ object: JSONObject) -> Bool {
        object["@id"] != nil && object.members.allSatisfy { ["@id", "@type", "@context"].contains($0.key) }
    }

    /// Whether a top-level value is a node another item refers to: it is read where it is
    /// referenced, not again on its own.
    func isReferencedNode(_ value: JSONValue) -> Bool {
        guard let object = value.objectValue, let id = Self.identifier(object), !Self.isReference(object) else { return false }
        return referenced.contains(id) && definitions[id] == object
    }

    /// JSON-LD keywords whose values hold no nodes (`@graph` does, and is resolved).
    static let keywordsWithoutNodes: Set<String> = ["@id", "@type", "@context", "@value", "@language"]

    /// `value` with every resolvable reference replaced by its description.
    func resolving(_ value: JSONValue) -> JSONValue {
        guard !isEmpty else { return value }
        var budget = ReservationLimits.itemsVisitedPerMessage
        return resolve(value, path: [], depth: 0, budget: &budget)
    }

    private func resolve(_ value: JSONValue, path: Set<String>, depth: Int, budget: inout Int) -> JSONValue {
        guard depth < ReservationLimits.wrapperDepth * 8, budget > 0 else { return value }
        switch value {
        case .array(let elements):
            return .array(elements.map { resolve($0, path: path, depth: depth + 1, budget: &budget) })
        case .object(let object):
            budget -= 1
            var object = object
            var path = path
            if let id = Self.identifier(object) {
                // A reference to a node on the path stays a reference: a cycle.
                guard !path.contains(id) else { return value }
                if Self.isReference(object), let definition = definitions[id] {
                    object = definition
                }
                path.insert(id)
            }
            var members: [JSONObject.Member] = []
            members.reserveCapacity(object.members.count)
            for member in object.members {
                let inner =
                    Self.keywordsWithoutNodes.contains(member.key)
                    ? member.value : resolve(member.value, path: path, depth: depth + 1, budget: &budget)
                members.append(JSONObject.Member(key: member.key, value: inner))
            }
            return .object(JSONObject(uniquing: members))
        default:
            return value
        }
    }
}
