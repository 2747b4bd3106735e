/// Something about a pass's content: a stable code, a sentence, and a detail for programs.
public struct PassDiagnostic: Sendable, Equatable {
    /// The stable codes of pass reading (docs/USAGE.md, "Notes and their codes").
    public enum Code: String, Sendable, Equatable, CaseIterable {
        /// No readable pass.json: the pass shows nothing.
        case passUnreadable = "pass-unreadable"
        /// A coupon, store card, generic pass or generic transit pass: not a reservation, ignored.
        case passNotReservation = "pass-not-reservation"
        /// A barcode message in the boarding pass format (`M1…`) that does not read (detail: why).
        case bcbpInvalid = "bcbp-invalid"
        /// The year of a bar code's day of the year and the signed evidence it was taken from
        /// (detail: a ``FlightYearEvidence``, `relevant-date` … `clock`).
        case bcbpYear = "bcbp-year"
    }

    public var code: Code
    public var message: String
    public var detail: String?

    public init(_ code: Code, _ message: String, detail: String? = nil) {
        self.code = code
        self.message = message
        self.detail = detail
    }
}

/// How many passes one message may carry before the rest are not read.
public enum PassLimits {
    /// A booking for a family carries one pass per passenger and leg; past this it is not a booking.
    public static let maxPassesPerMessage = 16
}
