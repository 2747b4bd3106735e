/// The bounds of one calendar object the reader accepts; each reports
/// ``ICalendarDiagnostic/Code/limitExceeded`` when hit, and what was read before it is kept
/// (docs/RELIABILITY.md).
public enum ICalendarLimits {
    /// Bytes of one calendar object (a `text/calendar` part or `.ics` attachment, decoded);
    /// the rest is not read.
    public static let maximumBytes = 1 << 20
    /// Content lines after unfolding (RFC 5545 §3.1); later lines are not read.
    public static let maximumLines = 20_000
    /// Bytes of one unfolded content line; a longer line is skipped.
    public static let maximumLineBytes = 256 << 10
    /// Components (`BEGIN` … `END`) in one object, at any depth; later ones are skipped.
    public static let maximumComponents = 1_000
    /// Properties of one component; later ones are skipped.
    public static let maximumProperties = 500
    /// Parameters of one property; later ones are skipped.
    public static let maximumParameters = 32
    /// Components inside components (VCALENDAR › VEVENT › VALARM is 3); deeper ones are skipped
    /// with everything in them.
    public static let maximumDepth = 8
    /// Events taken from one object; later VEVENTs are not read.
    public static let maximumEvents = 50
    /// Observances (STANDARD, DAYLIGHT) and RDATE values of one VTIMEZONE looked at.
    public static let maximumObservances = 64
}
