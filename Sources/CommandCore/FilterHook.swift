import Glibc
import Mailbox
import MIME
import Pipeline

/// The original message, kept where the time-budget signal handler can reach it: on a
/// timeout it is written out unchanged and the process exits 0 (fail-open).
nonisolated(unsafe) private var passThroughBytes: UnsafeBufferPointer<UInt8>?
/// The same for a message spooled to a file: its descriptor, size, and a buffer allocated beforehand.
nonisolated(unsafe) private var passThroughSpool: (fd: Int32, size: Int, buffer: UnsafeMutableBufferPointer<UInt8>)?

/// The filter's work, on plain values: `reservoir filter` fills it from the parsed options, and
/// `init(arguments:)` from the plain arguments without the argument parser (`reservoir filter`'s
/// fast path and the `reservoir-filter` executable).
package struct FilterHook {
    package var keys: KeySettings
    package var policy: PolicySettings
    package var store: String?
    package var now: String?
    package var authservID: String?
    package var timeout = Self.defaultTimeout
    package var noStore = false

    package init(keys: KeySettings, policy: PolicySettings, store: String? = nil, now: String? = nil,
                 authservID: String? = nil, timeout: Int = Self.defaultTimeout, noStore: Bool = false) {
        self.keys = keys
        self.policy = policy
        self.store = store
        self.now = now
        self.authservID = authservID
        self.timeout = timeout
        self.noStore = noStore
    }

    /// The filter's arguments (those of `reservoir filter`) read without the argument parser,
    /// whose reflection costs a per-message hook about 2 ms of Swift runtime type lookups. Only
    /// the plain forms are taken (`--name value`, `--name=value`, the flags); anything else —
    /// help, an unknown option, a missing or malformed value — gives nil, for the argument
    /// parser to explain.
    package init?(arguments: ArraySlice<String>) {
        var hook = FilterHook(keys: KeySettings(), policy: PolicySettings())
        var rest = arguments
        while let argument = rest.popFirst() {
            let parts = argument.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = parts[0], inline = parts.count == 2 ? String(parts[1]) : nil
            switch name {
            case "--allow-any-domain": hook.policy.allowAnyDomain = true
            case "--allow-unverified": hook.policy.allowUnverified = true
            case "--no-store": hook.noStore = true
            default:
                guard let value = inline ?? rest.popFirst(), inline != nil || !value.hasPrefix("-") || value == "-" else { return nil }
                switch name {
                case "--keys": hook.keys.keysFile = value
                case "--dns-server": hook.keys.dnsServer = value
                case "--dns-timeout": guard let n = Int(value) else { return nil }; hook.keys.dnsTimeout = n
                case "--allow-domain": hook.policy.allowDomain.append(value)
                case "--allowed-domains": hook.policy.allowedDomainsFile = value
                case "--me": hook.policy.me.append(value)
                case "--store": hook.store = value
                case "--now": hook.now = value
                case "--authserv-id": hook.authservID = value
                case "--timeout": guard let n = Int(value) else { return nil }; hook.timeout = n
                default: return nil
                }
                continue
            }
            // A flag takes no value.
            guard inline == nil else { return nil }
        }
        self = hook
    }

    /// Seconds before the message is passed through unchanged, unless `--timeout` says otherwise.
    package static let defaultTimeout = 5

    /// Messages larger than this are passed through unanalyzed, streamed from stdin to stdout
    /// (common MTA size limits are 25–50 MB; a 50 MB attachment is about 68 MB in base64).
    /// Memory does not depend on it: messages over ``Limits/wholeMessageBytes`` are spooled to
    /// a temporary file and analysed in pieces.
    static let maxAnalyzedBytes = 256 << 20

    /// Every other failure passes the message through; only standard input or output failing
    /// ends the run with `ExitStatus(75)` (EX_TEMPFAIL), after saying why.
    package func run() throws(ExitStatus) {
        guard let original = Self.readInput(limit: Limits.wholeMessageBytes + 1) else {
            Output.error("filter: cannot read standard input: \(String(cString: strerror(errno)))")
            throw ExitStatus(75)
        }
        if original.count > Limits.wholeMessageBytes {
            try runSpooled(first: original)
            return
        }
        // The original's storage stays put while this closure runs: the time-budget handler
        // writes it from there, and the output is written as pieces of it plus our fields, so
        // the hook holds one copy of the message, not three.
        let written = original.withUnsafeBufferPointer { buffer in
            armTimeout(buffer)
            let output = planOutput(RawMessage(bytes: original, origin: MessageOrigin(path: nil)), header: original)
            alarm(0)
            return Self.writeOutput(output, from: buffer)
        }
        guard written else { throw ExitStatus(75) }
    }

    /// Analyses the message, records its trusted reservations, and plans the output on
    /// `header` (the message, or its first part when it was spooled). On an error the plan is
    /// `header` unchanged.
    private func planOutput(_ raw: RawMessage, header: [UInt8]) -> [FilterHeaders.Segment] {
        do {
            let runner = try CommandRunner(keys: keys, policy: policy, store: nil, now: now, includePast: false)
            var report = runner.pipeline.analyze(raw)
            // Most mail carries no trusted reservation: the store is opened only when there is
            // something to record, which keeps SQLite or libpq out of the common hook run.
            if !noStore, report.hasTrustedReservations {
                runner.pipeline.record(&report, into: try CommandRunner.openStore(at: store))
            }
            for diagnostic in report.diagnostics where diagnostic.stage == .store {
                Output.error("filter: \(diagnostic.message) (message passed through)")
            }
            return FilterHeaders.plan(header, report: report, authservID: authservID ?? AuthenticationResults.defaultAuthservID())
        } catch {
            Output.error("filter: \(error) (message passed through unchanged)")
            return [.original(0..<header.count)]
        }
    }

    /// Writes the planned segments, the original ones from `original`; false (said on stderr)
    /// when stdout fails.
    private static func writeOutput(_ output: [FilterHeaders.Segment], from original: UnsafeBufferPointer<UInt8>) -> Bool {
        for segment in output {
            let written: Bool
            switch segment {
            case .added(let bytes): written = Output.bytes(bytes)
            case .original(let range): written = Output.bytes(UnsafeBufferPointer(rebasing: original[range]))
            }
            guard written else {
                Output.error("filter: cannot write standard output")
                return false
            }
        }
        return true
    }

    /// A message larger than ``Limits/wholeMessageBytes``: the first bytes are in `first`, the
    /// rest still on stdin. It is copied to a spool file and analysed from there in pieces; the
    /// output is our fields, the header as planned on `first`, then the spool after `first`.
    /// Without a spool (no writable `$TMPDIR`, disk full) it passes through unanalysed.
    private func runSpooled(first: [UInt8]) throws(ExitStatus) {
        func passThrough(_ why: String, spooled: FilterSpool?, pending: [UInt8] = []) throws(ExitStatus) {
            Output.error("filter: \(why): message passed through without analysis")
            let copied = spooled.map { $0.copyOut(from: 0) } ?? Output.bytes(first)
            guard copied, Output.bytes(pending), Self.copyRest() else {
                Output.error("filter: cannot copy the message to standard output")
                throw ExitStatus(75)
            }
        }
        guard var spool = FilterSpool(holding: first) else {
            try passThrough("cannot write a spool file in \(TemporaryFile.directory) (\(String(cString: strerror(errno))))", spooled: nil)
            return
        }
        defer { close(spool.fd) }
        switch spool.fill(limit: Self.maxAnalyzedBytes) {
        case .complete:
            break
        case .tooLarge:
            try passThrough("message larger than \(Self.maxAnalyzedBytes >> 20) MB", spooled: spool)
            return
        case .writeFailed(let pending, let error):
            try passThrough("cannot write the spool file (\(String(cString: strerror(error))))", spooled: spool, pending: pending)
            return
        case .readFailed:
            Output.error("filter: cannot read standard input: \(String(cString: strerror(errno)))")
            throw ExitStatus(75)
        }
        armTimeout(spool: spool)
        // The header is within `first` (a header section longer than that is planned on its
        // first part); what the plan leaves after it comes from the spool.
        let raw = RawMessage(file: MessageFile(.descriptor(spool.fd), size: spool.size), origin: MessageOrigin(path: nil))
        let output = planOutput(raw, header: first)
        alarm(0)
        guard first.withUnsafeBufferPointer({ Self.writeOutput(output, from: $0) }) else { throw ExitStatus(75) }
        guard spool.copyOut(from: first.count) else {
            Output.error("filter: cannot write standard output")
            throw ExitStatus(75)
        }
    }

    /// Standard input up to `limit` bytes (fewer at end of file); nil when read(2) fails.
    /// Read in chunks that double up to 8 MB and joined once at the exact size, releasing each
    /// chunk as it is copied: the peak is the message plus one chunk, where a growing array
    /// would briefly hold one and a half to two times the message.
    static func readInput(limit: Int) -> [UInt8]? {
        var chunks: [[UInt8]] = []
        var total = 0
        var chunkSize = 1 << 16
        var atEnd = false
        while total < limit, !atEnd {
            let want = min(chunkSize, limit - total)
            guard let chunk = try? FileSystem.readUpTo(STDIN_FILENO, want, path: "standard input") else { return nil }
            atEnd = chunk.count < want
            total += chunk.count
            chunks.append(chunk)
            chunkSize = min(chunkSize * 2, 8 << 20)
        }
        if chunks.count == 1 { return chunks[0] }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(total)
        for index in chunks.indices {
            bytes += chunks[index]
            chunks[index] = []
        }
        return bytes
    }

    /// Copies the rest of standard input to standard output.
    static func copyRest() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
            if n == 0 { return true }
            if n < 0 { if errno == EINTR { continue } else { return false } }
            guard Output.bytes(Array(chunk[0..<n])) else { return false }
        }
    }

    /// After `timeout` seconds SIGALRM writes the original message and exits 0. `original`
    /// must stay valid until `alarm(0)`.
    func armTimeout(_ original: UnsafeBufferPointer<UInt8>) {
        guard timeout > 0 else { return }
        passThroughBytes = original
        startTimer()
    }

    /// The same for a spooled message: the handler copies the spool file.
    func armTimeout(spool: FilterSpool) {
        guard timeout > 0 else { return }
        passThroughSpool = (spool.fd, spool.size, .allocate(capacity: 1 << 16))
        startTimer()
    }

    private func startTimer() {
        signal(SIGALRM) { _ in
            // Only async-signal-safe calls here: pread(2), write(2) and _exit(2).
            func writeAll(_ base: UnsafePointer<UInt8>, _ count: Int) {
                var offset = 0
                while offset < count {
                    let n = write(STDOUT_FILENO, base + offset, count - offset)
                    if n > 0 { offset += n } else if n < 0, errno == EINTR { continue } else { _exit(75) }
                }
            }
            if let bytes = passThroughBytes, let base = bytes.baseAddress {
                writeAll(base, bytes.count)
            } else if let (fd, size, buffer) = passThroughSpool {
                var position = 0
                while position < size {
                    let n = pread(fd, buffer.baseAddress, min(buffer.count, size - position), off_t(position))
                    if n < 0, errno == EINTR { continue }
                    guard n > 0, let base = buffer.baseAddress else { _exit(75) }
                    writeAll(base, n)
                    position += n
                }
            }
            _exit(0)
        }
        // The mask is inherited from whoever started us: an MTA or a supervisor that runs its
        // children with SIGALRM blocked would otherwise turn the time budget off.
        var alarmOnly = sigset_t()
        sigemptyset(&alarmOnly)
        sigaddset(&alarmOnly, SIGALRM)
        pthread_sigmask(SIG_UNBLOCK, &alarmOnly, nil)
        alarm(UInt32(timeout))
    }
}
