/// The bounds of rail ticket reading (docs/RELIABILITY.md, "Rail tickets"). A bar code holds a
/// few kilobytes at most; everything past these is refused, not truncated.
public enum RailLimits {
    /// An Aztec code holds at most 3,832 bytes; twice that allows a future denser symbol.
    public static let maxPayloadBytes = 8192
    /// Inflated records: real tickets inflate to under 4 KiB. Inflation stops here (a bomb).
    public static let maxInflatedBytes = 65_536
    /// Records in one container (U_HEAD, U_TLAY, 0080BL, U_FLEX, a few proprietary ones).
    public static let maxRecords = 32
    /// Fields of one U_TLAY layout: the RCT2 grid has 15 lines of 72 columns.
    public static let maxLayoutFields = 256
    /// Transport documents of one FCB (one per trip and traveller group in practice).
    public static let maxFCBDocuments = 16
    /// Travellers named in one FCB.
    public static let maxFCBTravelers = 32
    /// Items of any other SEQUENCE OF in an FCB (carriers, places, days, brands).
    public static let maxFCBListItems = 64
    /// Nesting of FCB structures the decoder follows.
    public static let maxFCBDepth = 8
    /// Keys of one key list file (the UIC's list holds a few hundred).
    public static let maxKeys = 4096
    /// The key list file's size.
    public static let maxKeyListBytes = 8 * 1024 * 1024
    /// How far a ticket's signed issuing time may lie after the clock, and outside its key's
    /// validity days, and still count: a day, as for a pass's signing time, since some railways
    /// write `U_HEAD`'s time in local time and the key list's dates carry no zone.
    public static let issuingClockSkewSeconds: Int64 = 86_400
}

/// Something about a rail ticket's reading: a stable code, a sentence, a detail for programs.
public struct RailDiagnostic: Error, Sendable, Equatable {
    /// The stable codes of rail ticket reading.
    public enum Code: String, Sendable, Equatable, CaseIterable {
        /// Not a UIC 918.3 container, or one whose header or lengths do not hold (detail: why).
        case railMalformed = "rail-malformed"
        /// The compressed records do not inflate, or inflate past ``RailLimits/maxInflatedBytes``.
        case railInflate = "rail-inflate"
        /// A record whose header or length does not hold; the records after it are not read.
        case railRecord = "rail-record"
        /// A record skipped because its id or version is not read (detail: id and version).
        case railRecordSkipped = "rail-record-skipped"
        /// The FCB (U_FLEX) does not decode, or its reading stopped early (detail: where).
        case railFCB = "rail-fcb"
        /// The signature did not verify, or there was no key to verify it with (detail: why).
        case railSignature = "rail-signature"
        /// The ticket is marked as a specimen (FCB `specimen`, or U_HEAD's test flag).
        case railSpecimen = "rail-specimen"
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
