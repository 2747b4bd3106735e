/// The evidence that decides whether `02/03/2031` is 2 March or February 3: the item's other
/// date (a checkout after its checkin, an arrival after its departure, and close to it), then
/// the message's `Date:` (a booking confirmed for a day already past, or more than a year
/// ahead, is the other reading). Each rule decides only when it accepts exactly one reading.
enum DayMonthEvidence {
    /// Longest stay, rental or journey a start and end may span to count as one item
    /// (the two readings of a date are at least a day, usually weeks, apart).
    static let longestSpanSeconds: Int64 = 30 * 86_400
    /// How far before the message's Date a reading may be and still count as not past
    /// (time zones, and mail sent on the day).
    static let pastSlackSeconds: Int64 = 86_400
    /// How far after the message's Date a reading may be and still be plausible.
    static let farthestAheadSeconds: Int64 = 366 * 86_400

    /// The value in seconds for comparisons: the instant, or the wall-clock time read as UTC.
    static func seconds(_ value: DateTimeValue) -> Int64 {
        value.epochSeconds ?? value.localEpochSeconds
    }

    /// Whether `end` is not before `start` and within ``longestSpanSeconds`` of it.
    static func fits(start: DateTimeValue, end: DateTimeValue) -> Bool {
        let from = seconds(start)
        let to = seconds(end) + (end.isDateOnly ? 86_399 : 0)
        return from <= to && to - from <= longestSpanSeconds
    }

    /// True for day-first, false for month-first, nil unless exactly one reading's date appears
    /// year first (`20310302` or `2031-03-02`: the forms whose order is not itself in doubt) in
    /// the item's booking or ticket numbers.
    static func byIdentifiers(_ readings: DayMonthReadings, identifiers: [String]) -> Bool? {
        guard !identifiers.isEmpty else { return nil }
        func appears(_ value: DateTimeValue) -> Bool {
            let date = value.date  // YYYY-MM-DD
            let compact = String(date.filter { $0 != "-" })
            return identifiers.contains { $0.contains(date) || $0.contains(compact) }
        }
        let dayFirst = appears(readings.dayFirst)
        let monthFirst = appears(readings.monthFirst)
        return dayFirst == monthFirst ? nil : dayFirst
    }

    /// True for day-first, false for month-first, nil when the message's Date allows both or neither.
    static func byMessageDate(_ readings: DayMonthReadings, messageDate: Int64?) -> Bool? {
        guard let messageDate else { return nil }
        func plausible(_ value: DateTimeValue) -> Bool {
            let at = seconds(value)
            return at + (value.isDateOnly ? 86_399 : 0) >= messageDate - pastSlackSeconds && at <= messageDate + farthestAheadSeconds
        }
        let dayFirst = plausible(readings.dayFirst)
        let monthFirst = plausible(readings.monthFirst)
        return dayFirst == monthFirst ? nil : dayFirst
    }
}
