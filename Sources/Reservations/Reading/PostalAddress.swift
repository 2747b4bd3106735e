/// schema.org `PostalAddress` on one line, in the order an envelope reads in most of the
/// world: street, locality, region and postal code, country
/// (`369 The Embarcadero, San Francisco, CA 94105, US`). A plain-text address is kept as is.
struct PostalAddress {
    var street: String?
    var locality: String?
    var region: String?
    var postalCode: String?
    var country: String?
    var plain: String?

    init?(_ node: SchemaNode, key: String = "address") {
        guard let value = node.values(key).first else { return nil }
        if let address = SchemaNode(value) {
            street = address.text("streetAddress")
            locality = address.text("addressLocality")
            region = address.text("addressRegion")
            postalCode = address.text("postalCode")
            // addressCountry is Text or a Country (a Thing with a name).
            country = address.name(of: "addressCountry")
            plain = address.text("name")
        } else {
            plain = SchemaNode.text(of: value)
        }
        if formatted == nil { return nil }
    }

    var formatted: String? {
        var regionLine = [region, postalCode].compactMap { $0 }.joined(separator: " ")
        if regionLine.isEmpty, let locality { regionLine = locality } else if let locality { regionLine = locality + ", " + regionLine }
        let parts = [street, regionLine.isEmpty ? nil : regionLine, country].compactMap { $0 }
        if parts.isEmpty { return plain }
        return parts.joined(separator: ", ")
    }
}

/// A schema.org `Place` (restaurant, hotel, station, airport, venue) for the location line:
/// its name, its IATA code when it has one, and its address.
enum PlaceLine {
    static func line(_ place: SchemaNode?, includeCode: Bool = false) -> String? {
        guard let place else { return nil }
        var name = place.text("name")
        if includeCode, let code = place.text("iataCode") {
            name = name.map { "\($0) (\(code))" } ?? code
        }
        let address = PostalAddress(place)?.formatted
        switch (name, address) {
        case let (name?, address?): return address.hasPrefix(name) ? address : name + ", " + address
        case let (name?, nil): return name
        case let (nil, address?): return address
        default: return nil
        }
    }

    /// A `Place` property that may also be plain text (`"pickupLocation": "SFO Airport"`).
    static func line(_ node: SchemaNode, property key: String, includeCode: Bool = false) -> String? {
        if let place = node.node(key) { return line(place, includeCode: includeCode) }
        return node.text(key)
    }
}
