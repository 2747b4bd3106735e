/// Who owns a booking: the proof that vouched for the message that booked it, the boundary of
/// docs/SECURITY.md's "Ownership of a booking" (a store looks a booking up only under its
/// owner). The cases are distinct values, so no comparison can take a pass type or a railway
/// for a domain; stores keep the owner as one text (``storedText``), read back by
/// ``init(storedText:)`` and by nothing else.
public enum BookingOwner: Hashable, Sendable, Comparable {
    /// A vouching domain: the `d=` domain of an aligned DKIM signature (or of the ARC path
    /// that stands for one), the registered domain of a page fetched over verified https, or
    /// the domain an `--allow-pass-type TYPE=DOMAIN` entry links a pass type to. A host name,
    /// lowercased in A-labels as the trust stage checked it: it has no colon.
    case domain(String)
    /// A Wallet pass type identifier (`pass.com.example.boarding`) no entry links to a domain.
    case walletPass(passType: String)
    /// A railway by its RICS code (`1080`), whose signed rail ticket vouched for the booking.
    case railway(rics: String)
    /// Nothing vouched: a booking trusted without a proof (`--allow-unverified`, for testing).
    case unproven

    /// The text stores keep in their `owner` columns: the domain as it is, `pass:TYPE`,
    /// `rail:RICS`, or empty for ``unproven``. A domain has no colon, so it never reads as
    /// either of the others.
    public var storedText: String {
        switch self {
        case .domain(let domain): domain
        case .walletPass(let passType): Self.passPrefix + passType
        case .railway(let rics): Self.railPrefix + rics
        case .unproven: ""
        }
    }

    /// The owner a stored text names; nil for a text that names none (a colon with another
    /// word before it, or nothing after it), which a store reports as an invalid row rather
    /// than read as a domain.
    public init?(storedText text: String) {
        if text.isEmpty {
            self = .unproven
        } else if !text.contains(":") {
            self = .domain(text)
        } else if text.hasPrefix(Self.passPrefix), text.count > Self.passPrefix.count {
            self = .walletPass(passType: String(text.dropFirst(Self.passPrefix.count)))
        } else if text.hasPrefix(Self.railPrefix), text.count > Self.railPrefix.count {
            self = .railway(rics: String(text.dropFirst(Self.railPrefix.count)))
        } else {
            return nil
        }
    }

    /// The vouching domain, nil for an owner that is not one.
    public var domain: String? {
        if case .domain(let domain) = self { domain } else { nil }
    }

    /// Whether a proof vouched (every case but ``unproven``).
    public var isProven: Bool { self != .unproven }

    /// Ordered by ``storedText``, as stores order their rows by the `owner` column.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.storedText < rhs.storedText }

    private static let passPrefix = "pass:"
    private static let railPrefix = "rail:"
}
