/// The `c=` tag: header and body canonicalization (RFC 6376 §3.4).
public enum DKIMCanonicalization: Sendable, Equatable {
    case simpleSimple, simpleRelaxed, relaxedSimple, relaxedRelaxed

    /// `header/body`; a lone `header` means `header/simple` (§3.5 c=). Case-insensitive.
    public init?(tag: String) {
        // Split at the one "/" without `split`: this runs for every signature.
        let text = tag.lowercased()
        let header: Substring
        let body: Substring
        if let slash = text.utf8.firstIndex(of: UInt8(ascii: "/")) {
            header = text[..<slash]
            body = text[text.utf8.index(after: slash)...]
            guard !body.utf8.contains(UInt8(ascii: "/")) else { return nil }
        } else {
            header = text[...]
            body = "simple"
        }
        switch (header, body) {
        case ("simple", "simple"): self = .simpleSimple
        case ("simple", "relaxed"): self = .simpleRelaxed
        case ("relaxed", "simple"): self = .relaxedSimple
        case ("relaxed", "relaxed"): self = .relaxedRelaxed
        default: return nil
        }
    }

    /// The tag value as a signer writes it.
    public var tag: String {
        switch self {
        case .simpleSimple: "simple/simple"
        case .simpleRelaxed: "simple/relaxed"
        case .relaxedSimple: "relaxed/simple"
        case .relaxedRelaxed: "relaxed/relaxed"
        }
    }

    public var relaxedHeader: Bool { self == .relaxedSimple || self == .relaxedRelaxed }
    public var relaxedBody: Bool { self == .simpleRelaxed || self == .relaxedRelaxed }

    /// `bytes[range]` as the body canonicalization hashes it (RFC 6376 §3.4.3, §3.4.4): what
    /// the signature vouches for, for a reader that must see the body the way it does.
    public static func canonicalBody(_ bytes: [UInt8], in range: Range<Int>, relaxed: Bool) -> [UInt8] {
        var canonicalizer = BodyCanonicalizer(relaxed: relaxed)
        bytes.withUnsafeBufferPointer { canonicalizer.feed(buffer: UnsafeBufferPointer(rebasing: $0[range])) }
        canonicalizer.finish()
        return canonicalizer.output
    }
}
