/// An entity tag (RFC 7232 §2.3): an opaque quoted string, strong unless prefixed `W/`.
public struct EntityTag: Sendable, Equatable {
    /// The characters between the quotes.
    public let opaque: String
    public let isWeak: Bool

    public init(opaque: String, isWeak: Bool = false) {
        self.opaque = opaque
        self.isWeak = isWeak
    }

    /// The strong tag of a representation: the SHA-256 of its exact bytes in hexadecimal, so
    /// byte-identical bodies always carry the same tag and any change gives a new one.
    public init(strongFor body: [UInt8]) {
        self.init(opaque: SHA256Digest.hex(body))
    }

    /// The field value: `"opaque"` or `W/"opaque"`.
    public var headerValue: String { (isWeak ? "W/" : "") + "\"" + opaque + "\"" }

    /// RFC 7232 §2.3.2: the weak comparison (the one If-None-Match uses, §3.2) matches the
    /// opaque tags whatever either tag's weakness.
    public func weaklyMatches(_ other: EntityTag) -> Bool { opaque == other.opaque }

    /// RFC 7232 §2.3.2: the strong comparison matches only two strong tags with equal opaque tags.
    public func stronglyMatches(_ other: EntityTag) -> Bool { !isWeak && !other.isWeak && opaque == other.opaque }
}

/// The value of an If-None-Match field (RFC 7232 §3.2): `*`, or a list of entity tags.
public enum EntityTagCondition: Sendable, Equatable {
    /// `*`: any current representation.
    case any
    /// The tags read from the list; members that are not entity tags are dropped.
    case tags([EntityTag])

    /// Reads `If-None-Match = "*" / 1#entity-tag` (RFC 7232 §3.2). The `#` list rule (RFC 7230
    /// §7) allows empty members and optional whitespace; `etagc` excludes `"` (§2.3), so a
    /// comma inside quotes belongs to the tag.
    public init(fieldValue: String) {
        let bytes = Array(fieldValue.utf8)
        let trimmed = bytes.drop { $0 == 0x20 || $0 == 0x09 }.reversed().drop { $0 == 0x20 || $0 == 0x09 }.reversed()
        if Array(trimmed) == [UInt8(ascii: "*")] {
            self = .any
            return
        }
        var tags: [EntityTag] = []
        var index = 0
        while index < bytes.count {
            while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 || bytes[index] == UInt8(ascii: ",") { index += 1 }
            guard index < bytes.count else { break }
            var weak = false
            if index + 1 < bytes.count, bytes[index] == UInt8(ascii: "W"), bytes[index + 1] == UInt8(ascii: "/") {
                weak = true
                index += 2
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
                let start = index + 1
                var end = start
                while end < bytes.count, bytes[end] != UInt8(ascii: "\"") { end += 1 }
                if end < bytes.count {
                    tags.append(EntityTag(opaque: String(decoding: bytes[start..<end], as: UTF8.self), isWeak: weak))
                    index = end + 1
                    continue
                }
                index = end
                break
            }
            // Not an entity tag: skip to the next member.
            while index < bytes.count, bytes[index] != UInt8(ascii: ",") { index += 1 }
        }
        self = .tags(tags)
    }
}
