/// Every bound the Markup stage enforces. Input beyond a limit is dropped with a diagnostic,
/// never a crash or a hang.
public enum MarkupLimits {
    /// Largest HTML part parsed (bytes). Reservation mails are a few hundred kilobytes; larger
    /// parts are skipped with `html-too-large`.
    public static let maximumHTMLBytes = 16 * 1024 * 1024
    // The JSON reader's own bounds (script size, depth, quoting, repairs) are ``JSONLimits``.
    /// Items (JSON-LD and Microdata together) kept per HTML part; the rest are dropped with
    /// `too-many-items`.
    public static let maximumItems = 256
    /// Properties read per Microdata item; the rest are dropped with `too-many-properties`.
    public static let maximumMicrodataProperties = 1024
    /// Deepest nesting of Microdata items converted; deeper items become their text.
    public static let maximumMicrodataDepth = 16
    /// Longest property text kept (Unicode scalars); longer text is cut.
    public static let maximumPropertyTextLength = 64 * 1024
}
