/// Where a wall-clock time of a zone falls on the UTC time line (RFC 5545 §3.3.5).
public enum LocalTimeResolution: Equatable, Sendable {
    /// The wall time occurs exactly once.
    case unique(utc: Int64, type: LocalTimeType)
    /// The wall time occurs twice, as clocks go back (RFC 5545 §3.3.5: the first occurrence is
    /// meant). `earlier` is that instant; `later` is the second occurrence.
    case ambiguous(earlier: Int64, earlierType: LocalTimeType, later: Int64, laterType: LocalTimeType)
    /// The wall time does not occur, as clocks go forward. RFC 5545 §3.3.5: it is read with the
    /// offset before the gap, so `utc` is that instant and `shiftedTo` the wall time clocks
    /// show then, `gapSeconds` later than asked.
    case nonexistent(utc: Int64, type: LocalTimeType, shiftedTo: LocalDateTime, gapSeconds: Int64)

    /// The instant RFC 5545 §3.3.5 assigns: the only one, the first of two, or past the gap.
    public var utc: Int64 {
        switch self {
        case .unique(let utc, _): utc
        case .ambiguous(let earlier, _, _, _): earlier
        case .nonexistent(let utc, _, _, _): utc
        }
    }

    /// The local time type in effect at `utc`.
    public var type: LocalTimeType {
        switch self {
        case .unique(_, let type): type
        case .ambiguous(_, let type, _, _): type
        case .nonexistent(_, let type, _, _): type
        }
    }
}
