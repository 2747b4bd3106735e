/// Why an archive or one of its entries could not be read: a stable code and a sentence.
public struct ZipDiagnostic: Error, Sendable, Equatable, CustomStringConvertible {
    /// The stable codes of the zip reader (docs/USAGE.md, "Notes and their codes").
    public enum Code: String, Sendable, Equatable, CaseIterable {
        /// No end of central directory record, or a central directory that does not fit the
        /// bytes (a truncated file): nothing is read.
        case zipNoDirectory = "zip-no-directory"
        /// More entries than ``ZipLimits/maxEntries``: nothing is read.
        case zipTooManyEntries = "zip-too-many-entries"
        /// An entry larger than ``ZipLimits/maxEntryBytes``, or past ``ZipLimits/maxTotalBytes``
        /// in all: not inflated.
        case zipTooLarge = "zip-too-large"
        /// An entry inflating past ``ZipLimits/maxCompressionRatio``: not inflated further.
        case zipBomb = "zip-bomb"
        /// An encrypted entry, a compression method other than stored and deflate, ZIP64 or a
        /// multi-disk archive.
        case zipUnsupported = "zip-unsupported"
        /// An entry whose data does not inflate, whose CRC-32 or size differs from the
        /// directory's, or whose local header disagrees with the directory.
        case zipCorrupt = "zip-corrupt"
        /// Two entries with one name: which one a reader takes is not decided, so none is read.
        case zipDuplicateName = "zip-duplicate-name"
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }

    public static func == (lhs: ZipDiagnostic, rhs: ZipDiagnostic) -> Bool { lhs.code == rhs.code }
}
