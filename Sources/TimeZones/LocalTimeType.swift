/// One local time type of a zone (RFC 8536 §3.2 `ttinfo`, or a side of a POSIX TZ rule): what
/// clocks show relative to UTC, whether it is daylight saving time, and its designation.
public struct LocalTimeType: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// Seconds to add to UTC for local time (east of Greenwich is positive).
    public let utcOffsetSeconds: Int32
    /// Whether the type is daylight saving time (`tt_isdst`).
    public let isDST: Bool
    /// The designation, such as `CEST`, `+0545` or `-03`.
    public let abbreviation: String

    public init(utcOffsetSeconds: Int32, isDST: Bool, abbreviation: String) {
        self.utcOffsetSeconds = utcOffsetSeconds
        self.isDST = isDST
        self.abbreviation = abbreviation
    }

    public var description: String { "\(abbreviation) \(UTCOffsetText.iso8601(utcOffsetSeconds))\(isDST ? " DST" : "")" }
}

/// A change of local time type at an instant.
public struct TimeZoneTransition: Equatable, Sendable {
    /// Unix time of the change.
    public let atUTC: Int64
    /// The type in effect just before.
    public let before: LocalTimeType
    /// The type in effect from `atUTC` on.
    public let after: LocalTimeType
}

/// UTC offsets as text.
enum UTCOffsetText {
    /// `+05:45`, `-03:30`, `+00:00`; seconds appended when not zero.
    static func iso8601(_ seconds: Int32) -> String {
        let (sign, h, m, s) = parts(seconds)
        return sign + pad(h) + ":" + pad(m) + (s == 0 ? "" : ":" + pad(s))
    }

    /// RFC 5545 §3.3.14 `utc-offset`: `+0545`, `-0330`, seconds appended when not zero.
    static func rfc5545(_ seconds: Int32) -> String {
        let (sign, h, m, s) = parts(seconds)
        return sign + pad(h) + pad(m) + (s == 0 ? "" : pad(s))
    }

    private static func parts(_ seconds: Int32) -> (String, Int, Int, Int) {
        let magnitude = Int(seconds.magnitude)
        // RFC 5545 §3.3.14: "-0000" is not allowed; zero is "+".
        return (seconds < 0 ? "-" : "+", magnitude / 3600, magnitude / 60 % 60, magnitude % 60)
    }

    private static func pad(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
