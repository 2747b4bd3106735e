import Glibc
import ReservoirBase

/// A document attached to a message or handed to `reservoir add`, by what its media type says.
public enum DocumentType: String, Sendable, CaseIterable {
    case pdf, png, jpeg, gif

    /// `application/pdf`, `image/png`, `image/jpeg`, `image/gif`; an `application/octet-stream`
    /// part named `*.pdf` is a PDF (senders label their tickets that way).
    public init?(mediaType: String, fileName: String?) {
        switch mediaType {
        case "application/pdf", "application/x-pdf": self = .pdf
        case "image/png": self = .png
        case "image/jpeg", "image/jpg", "image/pjpeg": self = .jpeg
        case "image/gif": self = .gif
        case "application/octet-stream":
            guard let name = fileName?.lowercased(), name.hasSuffix(".pdf") else { return nil }
            self = .pdf
        default: return nil
        }
    }
}

extension DocumentType {
    /// Whether `bytes` open as a document of this type does: the PDF header within its first
    /// 1,024 bytes (ISO 32000-1 §7.5.2; readers accept that much before it), PNG's eight-byte
    /// signature (PNG §5.2), JPEG's start of image and first marker (ITU T.81 B.1.1.2), GIF's
    /// `GIF87a` or `GIF89a`. What does not is no document of its type and is not handed to a
    /// reader: a part labelled PDF that holds anything else is unreadable at no cost.
    public func opens(_ bytes: [UInt8]) -> Bool {
        switch self {
        case .pdf:
            let head = bytes.prefix(1024)
            let marker = Array("%PDF-".utf8)
            guard head.count >= marker.count else { return false }
            return (head.startIndex...(head.endIndex - marker.count)).contains { head[$0..<$0 + marker.count].elementsEqual(marker) }
        case .png: return bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        case .jpeg: return bytes.starts(with: [0xFF, 0xD8, 0xFF])
        case .gif: return bytes.starts(with: Array("GIF87a".utf8)) || bytes.starts(with: Array("GIF89a".utf8))
        }
    }
}

/// A document by its type and bytes, for the tables that keep a reading per document (a
/// message's analysis, ``DocumentReaderPool``'s memory): equal when the bytes are, compared
/// whole, and hashed as one buffer (an array's own hashing feeds them a byte at a time, which
/// cost the milter a sixth of its time on messages with attachments).
public struct DocumentKey: Hashable, Sendable {
    public var bytes: [UInt8]
    public var type: DocumentType

    public init(bytes: [UInt8], type: DocumentType) {
        self.bytes = bytes
        self.type = type
    }

    public func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
        hasher.combine(type)
    }
}

/// One bar code a document holds: its symbology (`Aztec`, `PDF417`, `QRCode`, `DataMatrix`), the
/// page it is on, and its raw bytes.
public struct DocumentBarcode: Sendable, Equatable {
    public var format: String
    public var page: Int
    public var bytes: [UInt8]

    public init(format: String, page: Int, bytes: [UInt8]) {
        self.format = format
        self.page = page
        self.bytes = bytes
    }
}

/// Why a document's bar codes were not all read.
public enum DocumentReadFailure: String, Sendable, Equatable, CaseIterable {
    /// `reservoir-document` is not installed beside this program.
    case readerMissing = "document-reader-missing"
    /// It did not finish within the time budget and was killed.
    case timedOut = "document-timeout"
    /// It ended without its last line: killed by its own limits (memory, CPU) or crashed.
    case readerFailed = "document-reader-failed"
    /// Not a document of its kind, or damaged.
    case unreadable = "document-unreadable"
    /// An image or page over the pixel limit, or a file over the byte limit.
    case tooLarge = "document-too-large"
    /// Read, but pages or codes past the limits were left.
    case truncated = "document-truncated"
}

/// What reading one document gave.
public struct DocumentReading: Sendable, Equatable {
    public var barcodes: [DocumentBarcode] = []
    public var failure: DocumentReadFailure?

    public init(barcodes: [DocumentBarcode] = [], failure: DocumentReadFailure? = nil) {
        self.barcodes = barcodes
        self.failure = failure
    }
}

/// The bounds of reading documents from the caller's side (docs/RELIABILITY.md, "Documents").
public enum DocumentLimits {
    /// Documents read per message: a confirmation carries a ticket or a boarding pass per
    /// traveller, rarely more.
    public static let maxDocumentsPerMessage = 4
    /// The wall-clock time one document may take, its program's start included.
    public static let timeBudgetMilliseconds = 3000
    /// The time all the documents of one message may take together: within the hook's own
    /// budget (`--timeout`, 5 s), with room for the rest of the analysis.
    public static let messageBudgetMilliseconds = 3000
    /// The most of the program's output read: 32 codes of a few kilobytes each.
    public static let maxOutputBytes = 512 * 1024
    /// The largest document read: an attachment of a message read whole (2 MB) fits. The reader
    /// refuses a larger one as too large, unread.
    public static let maxDocumentBytes = 4 << 20
    /// Documents one long-lived reader reads before it is replaced (``DocumentReaderPool``):
    /// whatever poppler or the allocator keeps from one document does not pile up.
    public static let documentsPerReader = 64
    /// The largest document whose reading is remembered by its bytes (``DocumentReaderPool``):
    /// boarding passes and tickets are a few kilobytes to a few hundred.
    public static let cachedDocumentBytes = 1 << 20
    /// The bytes of remembered documents a process keeps at most, the oldest let go first.
    public static let cachedBytes = 16 << 20
}

/// `reservoir-document`, the program beside this one that links poppler and zxing-cpp: the
/// caller's process never loads those libraries, and a hostile document can end only that
/// process (``DocumentReaderPool`` runs it, and kills it at the time budget).
public enum DocumentReader {
    /// `reservoir-document` in the directory of the running executable.
    public static func program() -> String { ProgramPath.beside("reservoir-document") }

    /// The program's lines: `FORMAT PAGE BASE64` per code, then `end STATUS`. Anything else, or
    /// no `end` line, is a failure of the program.
    public static func parse(_ output: [UInt8]) -> DocumentReading {
        var reading = DocumentReading()
        var ended = false
        for line in output.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
            let fields = line.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
            let first = String(decoding: fields.first ?? [], as: UTF8.self)
            if first == "end", fields.count == 2 {
                ended = true
                switch String(decoding: fields[1], as: UTF8.self) {
                case "ok": break
                case "truncated": reading.failure = .truncated
                case "too-large": reading.failure = .tooLarge
                default: reading.failure = .unreadable
                }
                break
            }
            guard fields.count == 3, !first.isEmpty, first.utf8.allSatisfy({ $0 >= 0x21 && $0 <= 0x7E }),
                let page = Int(String(decoding: fields[1], as: UTF8.self)), page >= 1, let bytes = Base64Text.decode(fields[2]),
                reading.barcodes.count < 64
            else { return DocumentReading(barcodes: reading.barcodes, failure: .readerFailed) }
            reading.barcodes.append(DocumentBarcode(format: first, page: page, bytes: bytes))
        }
        if !ended { reading.failure = .readerFailed }
        return reading
    }

    public static func monotonicMilliseconds() -> Int {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return time.tv_sec * 1000 + time.tv_nsec / 1_000_000
    }
}
