import Reservations

/// The text a clock is pinned by (`--now`); the clock itself is ``ReservoirBase/WallClock``.
public enum Clock {
    /// Unix seconds of an ISO 8601 date-time with an offset; nil otherwise.
    public static func parse(_ text: String) -> Int64? {
        DateTimeValue(parsing: text)?.epochSeconds
    }
}
