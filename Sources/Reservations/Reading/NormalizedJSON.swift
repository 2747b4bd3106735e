import JSON
import Markup

/// The reservation as schema.org JSON-LD for output: `@context` `https://schema.org` and
/// `@type` first, type names bare (`FlightReservation`, not
/// `http://schema.org/FlightReservation`), nested `@context`s dropped, the status as its
/// canonical schema.org URL.
enum NormalizedJSON {
    static func reservation(_ object: JSONObject, status: ReservationStatus) -> JSONValue {
        var body = normalize(object, depth: 0)
        body["@context"] = nil
        if body["reservationStatus"] != nil {
            body["reservationStatus"] = .string(SchemaVocabulary.statusURL(status))
        }
        var out = JSONObject(pairs: [("@context", .string("https://schema.org"))])
        if let type = body["@type"] { out["@type"] = type }
        for member in body.members { out[member.key] = member.value }
        return .object(out)
    }

    static func normalize(_ object: JSONObject, depth: Int) -> JSONObject {
        var out = JSONObject()
        for member in object.members {
            switch member.key {
            case "@context":
                continue
            case "@type":
                out["@type"] = typeNames(member.value)
            default:
                out[member.key] = normalize(member.value, depth: depth + 1)
            }
        }
        return out
    }

    static func normalize(_ value: JSONValue, depth: Int) -> JSONValue {
        guard depth < ReservationLimits.jsonDepth else { return .null }
        switch value {
        case .object(let o): return .object(normalize(o, depth: depth))
        case .array(let a): return .array(a.map { normalize($0, depth: depth + 1) })
        default: return value
        }
    }

    /// One name stays a string; several stay an array.
    static func typeNames(_ value: JSONValue) -> JSONValue {
        let names = value.listValue.compactMap { $0.stringValue }.map(SchemaVocabulary.name)
        if names.count == 1, let name = names.first { return .string(name) }
        return .array(names.map { .string($0) })
    }
}
