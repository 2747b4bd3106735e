/// RFC 5545 §3.3.6 DURATION: `[+|-]P` then weeks (`nW`), or days (`nD`) and a time
/// (`T` `nH` `nM` `nS`). Weeks and days are nominal (they follow the wall clock across a
/// change of offset); hours, minutes and seconds are exact.
public struct ICalendarDuration: Sendable, Equatable {
    /// Nominal days (weeks counted as 7), negative for a negative duration.
    public var days: Int
    /// Exact seconds, negative for a negative duration.
    public var seconds: Int64

    public init(days: Int, seconds: Int64) {
        self.days = days
        self.seconds = seconds
    }

    /// Largest number in one field: a duration of a few thousand years is not a booking.
    static let maximumField = 10_000_000

    /// Nil when `text` is not a duration. Lenient: lower case, weeks beside days, and the
    /// time's fields in any order of presence are read.
    public init?(parsing text: String) {
        var b = Array(text.utf8.map { $0 >= 0x61 && $0 <= 0x7A ? $0 - 0x20 : $0 })
        var sign = 1
        if let first = b.first, first == 0x2B || first == 0x2D {
            sign = first == 0x2D ? -1 : 1
            b.removeFirst()
        }
        guard b.first == 0x50 else { return nil }  // "P"
        var i = 1
        var days = 0
        var seconds: Int64 = 0
        var inTime = false
        var any = false
        while i < b.count {
            if b[i] == 0x54 {  // "T"
                guard !inTime else { return nil }
                inTime = true
                i += 1
                continue
            }
            var value = 0
            let start = i
            while i < b.count, b[i] >= 0x30, b[i] <= 0x39 {
                value = value * 10 + Int(b[i] - 0x30)
                guard value <= Self.maximumField else { return nil }
                i += 1
            }
            guard i > start, i < b.count else { return nil }
            switch (b[i], inTime) {
            case (0x57, false): days += value * 7
            case (0x44, false): days += value
            case (0x48, true): seconds += Int64(value) * 3600
            case (0x4D, true): seconds += Int64(value) * 60
            case (0x53, true): seconds += Int64(value)
            default: return nil
            }
            any = true
            i += 1
        }
        // RFC 5545 §3.3.6: "T" is followed by at least one time field.
        guard any, !inTime || seconds != 0 || b.last != 0x54 else { return nil }
        self.days = sign * days
        self.seconds = Int64(sign) * seconds
    }
}
