import Glibc
import ReservoirBase

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

    /// ASCII case-insensitive search; `needle` is lowercase. Candidates are found eight
    /// positions at a time: a byte equals a letter of the needle in either case when, ORed with
    /// 0x20, it equals the lowercase letter, so a word ORed and XORed with the needle's first
    /// byte has a zero byte where that byte may start; ORing the same for the next three bytes
    /// (words loaded one, two and three bytes on) leaves a zero byte only where all four match
    /// ("determine if a word has a zero byte", Bit Twiddling Hacks). Letters are common in
    /// text, four in a row of the needle are not. Every candidate is then compared in full, which
    /// also rejects the bytes that differ from the needle only in bit 0x20.
    static func contains(_ haystack: UnsafeBufferPointer<UInt8>, _ needle: StaticString) -> Bool {
        contains(haystack, needle, or: nil)
    }

    /// Either needle, in one pass: both must begin with the same four bytes (they share the
    /// search for candidates).
    static func contains(_ haystack: UnsafeBufferPointer<UInt8>, _ needle: StaticString, or other: StaticString?) -> Bool {
        let count = needle.utf8CodeUnitCount
        let pattern = UnsafeBufferPointer(start: needle.utf8Start, count: count)
        let alternative = other.map { UnsafeBufferPointer(start: $0.utf8Start, count: $0.utf8CodeUnitCount) }
        if let alternative {
            precondition(count >= 4 && alternative.count >= 4 && alternative.prefix(4).elementsEqual(pattern.prefix(4)))
        }
        let shortest = min(count, alternative?.count ?? count)
        guard count > 0, haystack.count >= shortest, let base = haystack.baseAddress else { return false }
        let last = haystack.count - shortest
        @inline(__always) func matches(_ pattern: UnsafeBufferPointer<UInt8>, at index: Int) -> Bool {
            let count = pattern.count
            guard index + count <= haystack.count else { return false }
            var matched = 0
            while matched < count, ASCII.lowercased(base[index + matched]) == pattern[matched] { matched += 1 }
            return matched == count
        }
        @inline(__always) func matches(at index: Int) -> Bool {
            matches(pattern, at: index) || alternative.map { matches($0, at: index) } ?? false
        }
        if count == 1, !(UInt8(ascii: "a")...UInt8(ascii: "z")).contains(pattern[0]) {
            return memchr(base, Int32(pattern[0]), haystack.count) != nil
        }
        var index = 0
        if count >= 4 {
            let ones: UInt64 = 0x0101_0101_0101_0101
            let highs: UInt64 = 0x8080_8080_8080_8080
            let fold = ones &* 0x20
            let p0 = ones &* UInt64(pattern[0] | 0x20)
            let p1 = ones &* UInt64(pattern[1] | 0x20)
            let p2 = ones &* UInt64(pattern[2] | 0x20)
            let p3 = ones &* UInt64(pattern[3] | 0x20)
            @inline(__always) func word(_ at: Int, _ lane: UInt64) -> UInt64 {
                (UnsafeRawPointer(base + at).loadUnaligned(as: UInt64.self) | fold) ^ lane
            }
            // Positions index...index+7 need bytes up to index+10, and may start no later than `last`.
            while index + 8 <= last + 1, index + 11 <= haystack.count {
                let x = word(index, p0) | word(index + 1, p1) | word(index + 2, p2) | word(index + 3, p3)
                if (x &- ones) & ~x & highs != 0 {
                    for j in index..<index + 8 where matches(at: j) { return true }
                }
                index += 8
            }
        }
        while index <= last {
            if matches(at: index) { return true }
            index += 1
        }
        return false
    }
}
