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

/// Runs `reservoir-document`, the program beside this one that links poppler and zxing-cpp, on
/// a document's bytes: the caller's process never loads those libraries, and a hostile document
/// can end only that process, which is killed at the time budget.
public enum DocumentReader {
    /// `reservoir-document` in the directory of the running executable.
    public static func program() -> String { ProgramPath.beside("reservoir-document") }

    public static func read(
        _ bytes: [UInt8], type: DocumentType, budgetMilliseconds: Int = DocumentLimits.timeBudgetMilliseconds, program: String = program()
    ) -> DocumentReading {
        guard access(program, X_OK) == 0 else { return DocumentReading(failure: .readerMissing) }
        guard let output = run(program, argument: type.rawValue, input: bytes, budgetMilliseconds: budgetMilliseconds) else {
            return DocumentReading(failure: .timedOut)
        }
        return parse(output)
    }

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

    /// Runs `program argument` with `input` on its standard input, returning its standard output
    /// (at most ``DocumentLimits/maxOutputBytes``); nil when it outlasts the budget, after which
    /// it is killed. Standard error is discarded. The child starts with an empty signal mask.
    static func run(_ program: String, argument: String, input: [UInt8], budgetMilliseconds: Int) -> [UInt8]? {
        // The document goes over a socket written with MSG_NOSIGNAL: a reader that dies before
        // taking it all (its memory limit) makes the write fail with EPIPE, where a pipe would
        // send SIGPIPE and end the hook with the message undelivered.
        var toChild: [Int32] = [-1, -1]
        var fromChild: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &toChild) == 0 else { return [] }
        guard pipe(&fromChild) == 0 else {
            close(toChild[0])
            close(toChild[1])
            return []
        }
        for descriptor in [toChild[0], toChild[1], fromChild[0], fromChild[1]] { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
        posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let spawned = ChildSpawn.spawn([program, argument], actions: &actions)
        close(toChild[0])
        close(fromChild[1])
        guard let pid = spawned else {
            close(toChild[1])
            close(fromChild[0])
            return []
        }
        // Writing and reading interleaved: a document larger than a pipe's buffer would
        // otherwise block the writer while the child blocks on a full output pipe.
        _ = fcntl(toChild[1], F_SETFL, fcntl(toChild[1], F_GETFL) | O_NONBLOCK)
        var written = 0
        var writing = true
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        let deadline = monotonicMilliseconds() + budgetMilliseconds
        var finished = false
        if input.isEmpty {
            shutdown(toChild[1], Int32(SHUT_WR))
            writing = false
        }
        while true {
            let left = deadline - monotonicMilliseconds()
            if left <= 0 { break }
            var descriptors = [pollfd(fd: fromChild[0], events: Int16(POLLIN), revents: 0)]
            if writing { descriptors.append(pollfd(fd: toChild[1], events: Int16(POLLOUT), revents: 0)) }
            let ready = poll(&descriptors, nfds_t(descriptors.count), Int32(min(left, 1000)))
            if ready < 0 && errno == EINTR { continue }
            if ready <= 0 { continue }
            if writing, descriptors.count > 1, descriptors[1].revents != 0 {
                let count = input.withUnsafeBufferPointer { buffer in
                    send(toChild[1], buffer.baseAddress! + written, buffer.count - written, Int32(MSG_NOSIGNAL))
                }
                if count > 0 { written += count }
                if count < 0 && errno != EAGAIN && errno != EINTR || written == input.count {
                    // The end of the document: the reader's read(2) returns 0.
                    shutdown(toChild[1], Int32(SHUT_WR))
                    writing = false
                }
            }
            if descriptors[0].revents != 0 {
                let count = Glibc.read(fromChild[0], &chunk, chunk.count)
                if count < 0 && errno == EINTR { continue }
                if count <= 0 {
                    finished = true
                    break
                }
                if output.count < DocumentLimits.maxOutputBytes {
                    output += chunk[0..<min(count, DocumentLimits.maxOutputBytes - output.count)]
                }
            }
        }
        close(toChild[1])
        close(fromChild[0])
        if !finished { kill(pid, SIGKILL) }
        _ = ChildSpawn.wait(pid)
        return finished ? output : nil
    }

    public static func monotonicMilliseconds() -> Int {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return time.tv_sec * 1000 + time.tv_nsec / 1_000_000
    }
}
