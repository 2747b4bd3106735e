import MIME

/// Picks the header fields an `h=` list names (RFC 6376 §5.4.2).
enum HeaderSelection {
    /// For each name in order, the bottom-most instance not picked yet; a name with no instance
    /// left (absent, or oversigned) contributes nothing (§5.4: "nonexistent header field").
    static func select(_ names: [String], from fields: [HeaderField], excluding excluded: Int?) -> [HeaderField] {
        // A flag per field (no Set: its hashing needs a runtime conformance lookup, and a
        // header has tens of fields).
        var used = [Bool](repeating: false, count: fields.count)
        if let excluded, used.indices.contains(excluded) { used[excluded] = true }
        var picked: [HeaderField] = []
        for name in names {
            var index = fields.count - 1
            while index >= 0 {
                if !used[index], fields[index].hasName(name) {
                    used[index] = true
                    picked.append(fields[index])
                    break
                }
                index -= 1
            }
        }
        return picked
    }
}
