/// Something the calendar reader skipped, repaired or doubts: a stable code, a sentence, and
/// the unfolded content line it concerns (1-based; nil for the whole object).
public struct ICalendarDiagnostic: Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// One of ``ICalendarLimits`` was hit; what follows is not read.
        case limitExceeded = "calendar-limit-exceeded"
        /// A content line that is not `name *(";" param) ":" value` (RFC 5545 §3.1); skipped.
        case malformedLine = "calendar-malformed-line"
        /// `BEGIN` without its `END`, or an `END` that closes nothing (RFC 5545 §3.4, §3.6).
        case unbalancedComponent = "calendar-unbalanced-component"
        /// A value its type does not allow (a date, a duration, SEQUENCE); the property is ignored.
        case invalidValue = "calendar-invalid-value"
        /// A VEVENT without UID or DTSTART: it cannot become an event.
        case missingProperty = "calendar-missing-property"
        /// A `TZID` that is neither an IANA zone nor described by a VTIMEZONE of the object:
        /// the time is read as floating (wall-clock).
        case unknownTimeZone = "calendar-unknown-timezone"
        /// A `TZID` that is not an IANA zone, read from its VTIMEZONE's observances.
        case timeZoneFromVTimezone = "calendar-timezone-from-vtimezone"
        /// An event with RRULE or RDATE: only its first instance (DTSTART) is taken.
        case recurring = "calendar-recurring"
        /// A recurring event whose DTSTART is excluded (EXDATE): no first instance is known; skipped.
        case recurrenceNotExpanded = "calendar-recurrence-not-expanded"
        /// An iTIP METHOD other than PUBLISH, REQUEST and CANCEL (REPLY, COUNTER, …): nothing
        /// in it is an event.
        case methodIgnored = "calendar-method-ignored"
        /// Structured data (`X-APPLE-STRUCTURED-DATA`, RFC 9073 `STRUCTURED-DATA`) that is not
        /// JSON or not decodable; ignored.
        case structuredDataIgnored = "calendar-structured-data-ignored"
    }

    public var code: Code
    public var message: String
    /// The unfolded content line (1-based) the note is about.
    public var line: Int?

    public init(_ code: Code, _ message: String, line: Int? = nil) {
        self.code = code
        self.message = message
        self.line = line
    }

    public var description: String { line.map { "\(code.rawValue) (line \($0)): \(message)" } ?? "\(code.rawValue): \(message)" }
}
