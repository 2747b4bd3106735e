import Glibc
import ReservoirBase
import Synchronization

/// Long-lived `reservoir-document` readers, one per document being read at a time, each fed
/// documents over its socket (`reservoir-document serve`): a scan of a Maildir full of PDFs, the
/// milter and `watch` start poppler, cairo and zxing-cpp once per reader instead of once per
/// document, which is most of a small document's cost. Every bound of the one-shot reader holds
/// for each document: the wall-clock budget (the reader is killed at it), its CPU time (the
/// reader's own RLIMIT_CPU, set again before each document), its address space (the reader's
/// RLIMIT_AS); a reader that failed, timed out or read ``DocumentLimits/documentsPerReader``
/// documents is ended and the next document gets a new one.
public final class DocumentReaderPool: Sendable {
    /// The pool every pipeline of the process reads with, of the reader beside the program.
    public static let shared = DocumentReaderPool(program: DocumentReader.program())

    private struct Reader {
        var pid: pid_t
        /// This side of the reader's socket (its standard input and output).
        var socket: Int32
        var served = 0
    }

    /// What the pool has done, for tests and metrics.
    public struct Counts: Sendable, Equatable {
        /// Readers started.
        public var started = 0
        /// Documents read by a reader.
        public var read = 0
        /// Documents answered from what was read before, byte for byte.
        public var remembered = 0
    }

    /// Readings of documents read before, by their bytes: the same PDF attached to a thousand
    /// messages (terms and conditions, a carrier's standard ticket) is read once. A hit is the
    /// same type and the same bytes, compared whole; only a reading the bytes alone decide is
    /// kept (not a time-out, nor a reader that failed).
    private struct Remembered {
        var readings: [DocumentKey: DocumentReading] = [:]
        /// Oldest first, for eviction.
        var order: [DocumentKey] = []
        var bytes = 0

        mutating func keep(_ document: DocumentKey, _ reading: DocumentReading) {
            guard document.bytes.count <= DocumentLimits.cachedDocumentBytes, readings[document] == nil else { return }
            switch reading.failure {
            case nil, .truncated, .tooLarge, .unreadable: break
            case .timedOut, .readerFailed, .readerMissing: return
            }
            readings[document] = reading
            order.append(document)
            bytes += document.bytes.count
            while bytes > DocumentLimits.cachedBytes, !order.isEmpty {
                let oldest = order.removeFirst()
                readings[oldest] = nil
                bytes -= oldest.bytes.count
            }
        }
    }

    private let program: String
    private let keptIdle: Int
    private let idle = Mutex<[Reader]>([])
    private let counts = Mutex(Counts())
    private let remembered = Mutex(Remembered())

    /// `keptIdle`: readers kept waiting between documents, at most (one per processor by default,
    /// as many as a scan's threads read at once).
    public init(program: String, keptIdle: Int? = nil) {
        self.program = program
        self.keptIdle = keptIdle ?? max(1, min(8, sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }

    deinit {
        idle.withLock { readers in
            for reader in readers { Self.end(reader) }
            readers.removeAll()
        }
    }

    public var statistics: Counts { counts.withLock { $0 } }

    /// The bar codes of one document, as ``DocumentReader/read(_:type:budgetMilliseconds:program:)``
    /// reads them, by a waiting reader or a new one.
    public func read(_ bytes: [UInt8], type: DocumentType, budgetMilliseconds: Int = DocumentLimits.timeBudgetMilliseconds) -> DocumentReading {
        guard access(program, X_OK) == 0 else { return DocumentReading(failure: .readerMissing) }
        // The reader would refuse it unread; it is refused here without being sent.
        guard bytes.count <= DocumentLimits.maxDocumentBytes else { return DocumentReading(failure: .tooLarge) }
        // Bytes that are no document of the type (random data named .pdf): nothing to read.
        guard type.opens(bytes) else { return DocumentReading(failure: .unreadable) }
        let key = DocumentKey(bytes: bytes, type: type)
        if let known = remembered.withLock({ $0.readings[key] }) {
            counts.withLock { $0.remembered += 1 }
            return known
        }
        let reading = readByReader(bytes, type: type, budgetMilliseconds: budgetMilliseconds)
        remembered.withLock { $0.keep(key, reading) }
        return reading
    }

    private func readByReader(_ bytes: [UInt8], type: DocumentType, budgetMilliseconds: Int) -> DocumentReading {
        let deadline = DocumentReader.monotonicMilliseconds() + budgetMilliseconds
        var request = Array("\(type.rawValue) \(bytes.count)\n".utf8)
        request += bytes
        // A waiting reader may have ended since its last document (killed from outside): one
        // that answers nothing at all is replaced once, so the document is not blamed for it.
        for attempt in 0..<2 {
            let waiting = idle.withLock { $0.popLast() }
            guard var reader = waiting ?? start() else { return DocumentReading(failure: .readerFailed) }
            switch exchange(request, with: reader, deadline: deadline) {
            case .answered(let output):
                reader.served += 1
                counts.withLock { $0.read += 1 }
                let reading = DocumentReader.parse(output)
                keep(reader, healthy: reading.failure != .readerFailed)
                return reading
            case .ended(let output) where output.isEmpty && waiting != nil && attempt == 0:
                Self.end(reader)
                continue
            case .ended(let output):
                Self.end(reader)
                return DocumentReader.parse(output)
            case .timedOut:
                Self.end(reader)
                return DocumentReading(failure: .timedOut)
            }
        }
        return DocumentReading(failure: .readerFailed)
    }

    private enum Exchange {
        /// The reader's lines up to and with its `end` line.
        case answered([UInt8])
        /// It closed its socket (exited, crashed, killed by a limit) after these bytes.
        case ended([UInt8])
        case timedOut
    }

    /// Sends the request and reads the answer, both at once (a large document fills the socket's
    /// buffer while the reader may already write), until the `end` line or the deadline.
    private func exchange(_ request: [UInt8], with reader: Reader, deadline: Int) -> Exchange {
        var written = 0
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let left = deadline - DocumentReader.monotonicMilliseconds()
            if left <= 0 { return .timedOut }
            var descriptor = pollfd(fd: reader.socket, events: Int16(POLLIN) | (written < request.count ? Int16(POLLOUT) : 0), revents: 0)
            let ready = poll(&descriptor, 1, Int32(min(left, 1000)))
            if ready < 0 && errno == EINTR { continue }
            if ready <= 0 { continue }
            if written < request.count, descriptor.revents & Int16(POLLOUT) != 0 {
                // MSG_NOSIGNAL: a reader that died makes this fail with EPIPE, not end the caller.
                let count = request.withUnsafeBufferPointer { buffer in
                    send(reader.socket, buffer.baseAddress! + written, buffer.count - written, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
                }
                if count > 0 {
                    written += count
                } else if count < 0 && errno != EAGAIN && errno != EINTR {
                    // It stopped reading: what it said, if anything, follows.
                    written = request.count
                }
            }
            if descriptor.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
                let count = recv(reader.socket, &chunk, chunk.count, Int32(MSG_DONTWAIT))
                if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
                if count <= 0 { return .ended(output) }
                output += chunk[0..<count]
                // More than a reader may say: it is not the reader it should be.
                if output.count > DocumentLimits.maxOutputBytes { return .ended(Array(output.prefix(DocumentLimits.maxOutputBytes))) }
                if Self.endsWithEndLine(output) { return .answered(output) }
            }
        }
    }

    /// Whether the last complete line is the `end STATUS` line.
    static func endsWithEndLine(_ output: [UInt8]) -> Bool {
        guard output.last == UInt8(ascii: "\n") else { return false }
        let body = output.dropLast()
        let start = body.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? body.startIndex
        return body[start...].starts(with: Array("end ".utf8))
    }

    /// Back to waiting, unless it failed, has read its share or enough others wait.
    private func keep(_ reader: Reader, healthy: Bool) {
        guard healthy, reader.served < DocumentLimits.documentsPerReader else { return Self.end(reader) }
        let kept = idle.withLock { readers in
            guard readers.count < keptIdle else { return false }
            readers.append(reader)
            return true
        }
        if !kept { Self.end(reader) }
    }

    /// `reservoir-document serve` on one end of a socket pair, made close-on-exec at once so that
    /// no other child (another reader started by another thread) holds this end open.
    private func start() -> Reader? {
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else { return nil }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pair[1], 0)
        posix_spawn_file_actions_adddup2(&actions, pair[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let spawned = ChildSpawn.spawn([program, "serve"], actions: &actions)
        close(pair[1])
        guard let pid = spawned else {
            close(pair[0])
            return nil
        }
        counts.withLock { $0.started += 1 }
        return Reader(pid: pid, socket: pair[0])
    }

    /// Killed (it may be in the middle of a document, or waiting for the next), its socket
    /// closed and its exit collected.
    private static func end(_ reader: Reader) {
        kill(reader.pid, SIGKILL)
        close(reader.socket)
        _ = ChildSpawn.wait(reader.pid)
    }
}
