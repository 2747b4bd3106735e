/// What became of one date or date-time value as a sender wrote it: read (strictly, or with
/// named repairs), ambiguous between day-first and month-first, or refused with a reason.
/// ``DateTimeReading/read(_:)`` tries strict ISO 8601 first (``DateTimeValue/init(parsing:)``)
/// and only on failure the forms of ``SenderDateTimeParser``.
public enum DateTimeReading: Sendable, Equatable {
    /// The value; its ``DateTimeValue/repairs`` say what was not ISO 8601 (empty: nothing).
    case read(DateTimeValue)
    /// `02/03/2031`: both numbers could be the month; the item's other dates or the message's
    /// Date may decide (``DayMonthReadings``).
    case ambiguous(DayMonthReadings)
    /// Not a date Reservoir reads.
    case refused(DateTimeRefusal)

    /// Strict ISO 8601 on the fast path, else the repairs of ``SenderDateTimeParser``.
    public static func read(_ text: String) -> DateTimeReading {
        if let value = DateTimeValue(parsing: text) { return .read(value) }
        return SenderDateTimeParser.parse(text)
    }

    /// The value when it was read, nil when ambiguous or refused.
    public var value: DateTimeValue? {
        if case .read(let value) = self { return value }
        return nil
    }
}

/// The two readings of a numeric date whose day and month are both 12 or less and differ.
public struct DayMonthReadings: Sendable, Equatable {
    /// `02/03/2031` as 2 March 2031 (Europe, most of the world).
    public var dayFirst: DateTimeValue
    /// `02/03/2031` as February 3, 2031 (the United States).
    public var monthFirst: DateTimeValue

    public init(dayFirst: DateTimeValue, monthFirst: DateTimeValue) {
        self.dayFirst = dayFirst
        self.monthFirst = monthFirst
    }
}

/// A form that is not ISO 8601 but is read, each named after the sender habit it serves
/// (docs/USAGE.md, "Dates senders write"). The raw value is the note's detail.
public enum DateTimeRepair: String, Sendable, Equatable, CaseIterable {
    /// `2031-02-02 18:35`: SQL and `strftime("%Y-%m-%d %H:%M")`; RFC 3339 §5.6 NOTE allows it,
    /// ISO 8601 §4.3.2 does not.
    case spaceForT = "space-for-t"
    /// `2031-02-02t18:35z`: RFC 3339 §5.6 NOTE allows lower case; ISO 8601 does not.
    case lowerCase = "lower-case"
    /// `+0100`: `strftime("%z")` beside an extended-format time; ISO 8601 §4.3.2 forbids the mix.
    case offsetWithoutColon = "offset-without-colon"
    /// `+0:00`, `-5:30`: an offset hour written without its leading zero.
    case oneDigitOffsetHour = "one-digit-offset-hour"
    /// `+01:00Z`: a `Z` appended to a formatted offset; the offset is kept.
    case zAfterOffset = "z-after-offset"
    /// `2031-02-02T18:35 +01:00`: white space before the offset.
    case spaceBeforeOffset = "space-before-offset"
    /// `9:30`: an hour without its leading zero.
    case oneDigitHour = "one-digit-hour"
    /// `8:00 PM`, `8:00pm`, `8:00 p.m.`: a 12-hour clock (United States, Canada, Australia,
    /// India, the Philippines); 12 AM is midnight, 12 PM noon.
    case twelveHourClock = "twelve-hour-clock"
    /// `2031-02-02 18:35 UTC`, `GMT`: a zone word that means offset zero.
    case utcName = "utc-name"
    /// `2031/02/02`: year first with slashes (Japan, China, Korea); unambiguous.
    case yearFirstSlashes = "year-first-slashes"
    /// `13/02/2031`, `13-02-2031`: the first number is over 12, so the day comes first.
    case dayFirst = "day-first"
    /// `02/13/2031`: the second number is over 12, so the month comes first.
    case monthFirst = "month-first"
    /// `02.03.2031`: dots are day-first by convention (Germany, Austria, Switzerland, the
    /// Nordic countries, Russia, Poland, Czechia); no country writes month.day.year.
    case dayFirstDots = "day-first-dots"
    /// `02/02/2031`: day and month are the same number, so the order does not matter.
    case dayEqualsMonth = "day-equals-month"
    /// `02/03/2031` decided by the item's other date (checkout after checkin, arrival after
    /// departure, within ``DayMonthEvidence/longestSpanSeconds``).
    case dayMonthByOtherDate = "day-month-by-other-date"
    /// `02/03/2031` decided by a booking or ticket number holding one reading's date year first
    /// (`20310302`, `2031-03-02`), as rail and ticket sellers' numbers do.
    case dayMonthByTicketNumber = "day-month-by-ticket-number"
    /// `02/03/2031` decided by the message's Date: the other reading is in the past or too far ahead.
    case dayMonthByMessageDate = "day-month-by-message-date"
    /// `2031-02-02T18:35 Europe/Berlin`, `…[Europe/Berlin]` (RFC 9557): an IANA zone name; the wall time is kept.
    case zoneName = "zone-name"
    /// `18:35 CET`: an abbreviation (CST is three zones), read as floating time.
    case zoneAbbreviation = "zone-abbreviation"
}

/// Why a value is not read as a date. The raw value is the note's detail.
public enum DateTimeRefusal: String, Sendable, Equatable, CaseIterable {
    /// `tomorrow evening`, `May 12, 2031`, a time without a date: not a numeric date.
    case freeText = "free-text"
    /// `2031-02-30`, `31/04/2031`, `13/13/2031`: no such day.
    case impossibleDate = "impossible-date"
    /// `25:00`, `18:61`, an offset past ±23:59.
    case impossibleTime = "impossible-time"
    /// `02/03/31`: the century is a guess.
    case twoDigitYear = "two-digit-year"
    /// Longer than ``SenderDateTimeParser/maximumLength``.
    case tooLong = "too-long"
}
