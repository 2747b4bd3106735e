/// Caps on what a zone file or table may cost (docs/RELIABILITY.md). RFC 8536 sets none beyond
/// the type count; the largest file of tzdata 2025b is under 4 KB with a few hundred transitions,
/// so each cap leaves a wide margin and still bounds memory and time.
public enum TimeZoneLimits {
    /// Largest TZif file read; a larger one is refused with `file-too-large` unread.
    public static let maximumFileBytes = 256 * 1024
    /// Transitions per data block (`timecnt`).
    public static let maximumTransitions = 8_192
    /// Local time types per data block (`typecnt`); RFC 8536 §3.1 requires at most 256.
    public static let maximumTypes = 256
    /// Bytes of time zone designations (`charcnt`).
    public static let maximumAbbreviationBytes = 2_048
    /// Bytes of the footer's POSIX TZ string, newlines excluded.
    public static let maximumFooterBytes = 255
    /// Bytes of a zone name such as `America/Argentina/Buenos_Aires`.
    public static let maximumZoneNameBytes = 255
    /// Largest `zone.tab` read by `CountryTimeZones`; the rest is not read.
    public static let maximumZoneTableBytes = 1024 * 1024
    /// Largest magnitude of a transition time (about 36 billion years; tzdata's earliest is
    /// -2^59, zic's "big bang"), so arithmetic on instants and offsets cannot overflow.
    public static let maximumTransitionMagnitude: Int64 = 1 << 60
    /// Years of footer-rule changes one `TimeZoneRules.transitions(from:to:)` call produces.
    public static let maximumRuleYears = 1_000
    /// Years of observances one VTIMEZONE may list explicitly (the range is cut to this).
    public static let maximumVTimezoneYears = 400
}
