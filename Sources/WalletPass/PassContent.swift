public import JSON

/// What pass.json says (Apple's PassKit Package Format Reference), read from the JSON object:
/// the issuer's claims, the style and its fields, the dates and the bar codes.
public struct PassContent: Sendable {
    /// The pass styles (PassKit: "Pass Style Keys"); one of them holds the fields.
    public enum Style: String, Sendable, CaseIterable {
        case boardingPass, eventTicket, coupon, storeCard, generic
    }

    /// A field of the style's dictionaries: `key`, `label` and `value` (a string, number or date).
    public struct Field: Sendable {
        public var key: String
        public var label: String?
        public var value: String
    }

    public var passTypeIdentifier: String?
    public var teamIdentifier: String?
    public var organizationName: String?
    public var serialNumber: String?
    public var description: String?
    public var logoText: String?
    public var style: Style?
    /// `transitType` of a boarding pass (`PKTransitTypeAir`, …Train, …Bus, …Boat, …Generic).
    public var transitType: String?
    /// `relevantDate`, ISO 8601 with an offset.
    public var relevantDate: String?
    public var expirationDate: String?
    public var voided: Bool
    /// Fields in the order header, primary, secondary, auxiliary, back.
    public var fields: [Field]
    /// `barcodes[].message`, then the older `barcode.message`.
    public var barcodeMessages: [String]
    /// `locations[]`: latitude, longitude, relevant text.
    public var locations: [(latitude: Double, longitude: Double, text: String?)]
    /// iOS 15's `semantics` tags, when present.
    public var semantics: JSONObject?

    /// The content of a pass.json object; nil when the value is not an object.
    public init?(_ value: JSONValue) {
        guard let object = value.objectValue else { return nil }
        passTypeIdentifier = object["passTypeIdentifier"]?.stringValue
        teamIdentifier = object["teamIdentifier"]?.stringValue
        organizationName = object["organizationName"]?.stringValue
        serialNumber = object["serialNumber"]?.stringValue
        description = object["description"]?.stringValue
        logoText = object["logoText"]?.stringValue
        relevantDate = object["relevantDate"]?.stringValue
        expirationDate = object["expirationDate"]?.stringValue
        voided = object["voided"] == .bool(true)
        semantics = object["semantics"]?.objectValue
        style = nil
        transitType = nil
        fields = []
        for candidate in Style.allCases {
            guard let dictionary = object[candidate.rawValue]?.objectValue else { continue }
            style = candidate
            transitType = dictionary["transitType"]?.stringValue
            for group in ["headerFields", "primaryFields", "secondaryFields", "auxiliaryFields", "backFields"] {
                for field in dictionary[group]?.listValue ?? [] {
                    guard let field = field.objectValue, let key = field["key"]?.stringValue, let value = field["value"]?.stringValue else {
                        continue
                    }
                    fields.append(Field(key: key, label: field["label"]?.stringValue, value: value))
                }
            }
            break
        }
        barcodeMessages =
            (object["barcodes"]?.listValue ?? []).compactMap { $0.objectValue?["message"]?.stringValue }
            + [object["barcode"]?.objectValue?["message"]?.stringValue].compactMap { $0 }
        locations = (object["locations"]?.listValue ?? []).compactMap { location in
            guard let location = location.objectValue, case .number(let latitude) = location["latitude"],
                case .number(let longitude) = location["longitude"]
            else { return nil }
            return (latitude, longitude, location["relevantText"]?.stringValue)
        }
    }

    /// The value of the first field whose key is one of `keys` (compared without case).
    func field(_ keys: [String]) -> String? {
        for field in fields where keys.contains(field.key.lowercased()) {
            let value = field.value.trimmed
            if !value.isEmpty { return value }
        }
        return nil
    }

    /// The field whose key is one of `keys`, whole.
    func fieldEntry(_ keys: [String]) -> Field? {
        fields.first { keys.contains($0.key.lowercased()) && !$0.value.trimmed.isEmpty }
    }

    /// A semantic tag's text.
    func semantic(_ key: String) -> String? {
        semantics?[key]?.stringValue
    }
}

extension String {
    var trimmed: String {
        var text = Substring(self)
        while let first = text.first, first.isWhitespace { text = text.dropFirst() }
        while let last = text.last, last.isWhitespace { text = text.dropLast() }
        return String(text)
    }
}
