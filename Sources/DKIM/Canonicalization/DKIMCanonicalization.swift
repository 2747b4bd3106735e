/// The `c=` tag: header and body canonicalization (RFC 6376 §3.4).
public enum DKIMCanonicalization: Sendable, Equatable {
    case simpleSimple, simpleRelaxed, relaxedSimple, relaxedRelaxed

    /// `header/body`; a lone `header` means `header/simple` (§3.5 c=). Case-insensitive.
    public init?(tag: String) {
        // The spellings signers use, matched before any splitting.
        switch tag {
        case "relaxed/relaxed": self = .relaxedRelaxed; return
        case "relaxed/simple": self = .relaxedSimple; return
        case "simple/simple", "simple": self = .simpleSimple; return
        case "simple/relaxed": self = .simpleRelaxed; return
        default: break
        }
        let parts = tag.lowercased().split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 1 || parts.count == 2 else { return nil }
        let header = String(parts[0])
        let body = parts.count == 2 ? String(parts[1]) : "simple"
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

    var relaxedHeader: Bool { self == .relaxedSimple || self == .relaxedRelaxed }
    var relaxedBody: Bool { self == .simpleRelaxed || self == .relaxedRelaxed }
}
