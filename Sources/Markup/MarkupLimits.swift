/// Every bound the Markup stage enforces. Input beyond a limit is dropped with a diagnostic,
/// never a crash or a hang.
public enum MarkupLimits {
    /// Largest HTML part parsed (bytes). Reservation mails are a few hundred kilobytes; larger
    /// parts are skipped with `html-too-large`.
    public static let maximumHTMLBytes = 16 * 1024 * 1024
    /// Largest JSON-LD script read (bytes); larger scripts are skipped with `json-too-large`.
    public static let maximumJSONBytes = 2 * 1024 * 1024
    /// Deepest nesting of JSON arrays and objects; a deeper value is dropped with `json-too-deep`.
    public static let maximumJSONDepth = 64
    /// How far past an unescaped quotation mark inside a string the reader looks for the real
    /// end of the string (bytes, and never past a line break); beyond it the string ends at that
    /// quotation mark. Keeps hostile quoting from costing quadratic time.
    public static let maximumUnescapedQuoteSpan = 128
    /// Repairs reported per JSON text; further repairs are still made, and counted in one
    /// closing diagnostic.
    public static let maximumRepairDiagnostics = 16
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
