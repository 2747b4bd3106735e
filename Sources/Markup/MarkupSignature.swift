/// The byte-level test that decides whether an HTML part is worth parsing.
enum MarkupSignature {
    /// True when `bytes` contain "ld+json" or "itemscope" in any case, or a script and a
    /// character reference (a type attribute may spell "application/ld&#43;json"): without
    /// these, a part can hold neither a JSON-LD script nor a Microdata item.
    static func mayContainMarkup(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            contains(buffer, "ld+json") || contains(buffer, "itemscope")
                || contains(buffer, "<script") && contains(buffer, "&")
        }
    }

    /// ASCII case-insensitive search; `needle` is lowercase.
    static func contains(_ haystack: UnsafeBufferPointer<UInt8>, _ needle: StaticString) -> Bool {
        let count = needle.utf8CodeUnitCount
        guard count > 0, haystack.count >= count else { return false }
        let pattern = UnsafeBufferPointer(start: needle.utf8Start, count: count)
        let first = pattern[0]
        var index = 0
        let last = haystack.count - count
        while index <= last {
            if haystack[index] | 0x20 == first {
                var matched = 1
                while matched < count, lowercased(haystack[index + matched]) == pattern[matched] { matched += 1 }
                if matched == count { return true }
            }
            index += 1
        }
        return false
    }

    static func lowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
    }
}
