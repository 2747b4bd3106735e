import Glibc
import Reservations

/// The clock, read once per run and injected everywhere else.
public enum Clock {
    public static func systemNow() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec)
    }

    /// Unix seconds of an ISO 8601 date-time with an offset; nil otherwise.
    public static func parse(_ text: String) -> Int64? {
        DateTimeValue(parsing: text)?.epochSeconds
    }
}
