/// A boarding pass as its bar code encodes it (IATA Resolution 792, Bar Coded Boarding Pass,
/// format code "M"): the passenger, and one ``BoardingPassLeg`` per flight.
public struct BoardingPass: Sendable, Equatable {
    /// The passenger's name as printed, `SURNAME/GIVEN TITLE`, trailing spaces removed.
    public var passengerName: String
    /// Whether an electronic ticket was issued (`E`).
    public var electronicTicket: Bool
    public var legs: [BoardingPassLeg]
    /// The version of the conditional section (`>` then one digit), when the pass has one.
    public var version: Int?
    /// When the boarding pass was issued: the last digit of the year and the day of the year,
    /// from the first leg's conditional section.
    public var issued: (yearDigit: Int, dayOfYear: Int)?

    /// The printed `SURNAME/GIVEN TITLE` as a person writes it: `DESMARAIS/LUC MR` → `LUC MR DESMARAIS`.
    public static func displayName(_ name: String) -> String {
        let parts = name.split(separator: "/", maxSplits: 1)
        guard parts.count == 2 else { return name }
        return parts[1] + " " + parts[0]
    }

    public static func == (lhs: BoardingPass, rhs: BoardingPass) -> Bool {
        lhs.passengerName == rhs.passengerName && lhs.electronicTicket == rhs.electronicTicket && lhs.legs == rhs.legs
            && lhs.version == rhs.version && lhs.issued?.yearDigit == rhs.issued?.yearDigit
            && lhs.issued?.dayOfYear == rhs.issued?.dayOfYear
    }
}

/// One flight of a boarding pass: the mandatory repeated items of Resolution 792, and what
/// Reservoir reads of the conditional ones.
public struct BoardingPassLeg: Sendable, Equatable {
    /// The operating carrier's booking reference (PNR).
    public var bookingReference: String
    /// IATA airport (or city) codes.
    public var from: String
    public var to: String
    /// The operating carrier's IATA designator (`LX`, `AC`, `U2`).
    public var carrier: String
    /// The flight number without leading zeros, with its operational suffix (`834`, `12A`).
    public var flightNumber: String
    /// The day of the year of the flight (1–366); the year is not in the bar code.
    public var dayOfYear: Int?
    /// The compartment (`Y`, `J`, `F`…).
    public var compartment: String
    /// The seat without leading zeros (`1A`), or what the pass writes (`INF`, `GATE`).
    public var seat: String
    public var checkInSequence: String
    public var passengerStatus: String
    /// From the conditional section, when present.
    public var marketingCarrier: String?
    /// The airline numeric code and document number together (13 digits).
    public var ticketNumber: String?
    /// The frequent flyer programme's airline and number.
    public var frequentFlyer: (airline: String, number: String)?

    public static func == (lhs: BoardingPassLeg, rhs: BoardingPassLeg) -> Bool {
        lhs.bookingReference == rhs.bookingReference && lhs.from == rhs.from && lhs.to == rhs.to && lhs.carrier == rhs.carrier
            && lhs.flightNumber == rhs.flightNumber && lhs.dayOfYear == rhs.dayOfYear && lhs.compartment == rhs.compartment
            && lhs.seat == rhs.seat && lhs.checkInSequence == rhs.checkInSequence && lhs.passengerStatus == rhs.passengerStatus
            && lhs.marketingCarrier == rhs.marketingCarrier && lhs.ticketNumber == rhs.ticketNumber
            && lhs.frequentFlyer?.airline == rhs.frequentFlyer?.airline && lhs.frequentFlyer?.number == rhs.frequentFlyer?.number
    }
}

/// Why a text is not a boarding pass bar code Reservoir reads.
public enum BCBPRefusal: Error, Sendable, Equatable {
    /// Not format `M` (`S`, the retired 1D form, or anything else).
    case notFormatM
    /// The number of legs is not a digit from 1 to ``BCBPLimits/maxLegs``.
    case invalidLegCount
    /// The text ends inside a mandatory item (the offset where it ends).
    case truncated(at: Int)
    /// A mandatory item that must be a code holds something else (the item's name).
    case invalidItem(String)
    /// A conditional section's declared size is not hexadecimal or runs past the text.
    case invalidConditionalSize(at: Int)
    /// Longer than ``BCBPLimits/maxBytes``.
    case tooLong
}

/// What the reader accepts.
public enum BCBPLimits {
    /// The format's number of legs is one digit; Resolution 792 allows up to 4.
    public static let maxLegs = 4
    /// A PDF417 or QR symbol of a boarding pass holds a few hundred characters.
    public static let maxBytes = 4096
}
