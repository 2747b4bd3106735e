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

    /// ASCII case-insensitive search; `needle` is lowercase. Candidates for its first byte are
    /// found eight bytes at a time: a byte equals `first` in either case when it ORed with
    /// 0x20 equals it, and a word holds such a byte when the word ORed and XORed has a zero
    /// byte ("determine if a word has a zero byte", Bit Twiddling Hacks). The bytes that
    /// differ only in bit 0x20 from `first` (its uppercase, or a control byte for "<") are
    /// rejected by the comparison that follows.
    static func contains(_ haystack: UnsafeBufferPointer<UInt8>, _ needle: StaticString) -> Bool {
        let count = needle.utf8CodeUnitCount
        guard count > 0, haystack.count >= count, let base = haystack.baseAddress else { return false }
        let pattern = UnsafeBufferPointer(start: needle.utf8Start, count: count)
        let first = pattern[0]
        let last = haystack.count - count
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let folded = ones &* UInt64(first | 0x20)
        @inline(__always) func matches(at index: Int) -> Bool {
            guard lowercased(base[index]) == first else { return false }
            var matched = 1
            while matched < count, lowercased(base[index + matched]) == pattern[matched] { matched += 1 }
            return matched == count
        }
        var index = 0
        while index + 8 <= last + 1 {
            let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
            let x = (word | (ones &* 0x20)) ^ folded
            if (x &- ones) & ~x & highs != 0 {
                for j in index..<index + 8 where matches(at: j) { return true }
            }
            index += 8
        }
        while index <= last {
            if matches(at: index) { return true }
            index += 1
        }
        return false
    }

    static func lowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
    }
}
