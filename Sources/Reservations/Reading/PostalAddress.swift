/// schema.org `PostalAddress` on one line: street, locality with region and postal code,
/// country (`369 The Embarcadero, San Francisco, CA 94105, US`;
/// `Bahnhofplatz 1, 8001 Zürich, CH`). A plain-text address is kept as is.
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

    /// With a region, the North American order `Locality, Region Postcode`; without one, the
    /// continental European `Postcode Locality`.
    var formatted: String? {
        let regionLine: String?
        if let region {
            regionLine = [locality, [region, postalCode].compactMap { $0 }.joined(separator: " ")]
                .compactMap { $0 }.joined(separator: ", ")
        } else {
            let line = [postalCode, locality].compactMap { $0 }.joined(separator: " ")
            regionLine = line.isEmpty ? nil : line
        }
        let parts = [street, regionLine, country].compactMap { $0 }
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
        case (let name?, let address?): return address.hasPrefix(name) ? address : name + ", " + address
        case (let name?, nil): return name
        case (nil, let address?): return address
        default: return nil
        }
    }

    /// A `Place` property that may also be plain text (`"pickupLocation": "SFO Airport"`).
    static func line(_ node: SchemaNode, property key: String, includeCode: Bool = false) -> String? {
        if let place = node.node(key) { return line(place, includeCode: includeCode) }
        return node.text(key)
    }
}
