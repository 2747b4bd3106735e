package import DNS
import Delivery
import EventStore
import Glibc
import MIME
import Mailbox
import Output
import Pipeline

/// What the time-budget signal handler writes: prepared before the analysis starts, in
/// memory allocated for it, so the handler only reads (``FilterHook/armTimeout(_:from:)``).
private struct PreparedOutput {
    /// Triples (kind, start, end): kind 0 a range of the original, 1 a range of `added`.
    var pieces: UnsafeMutableBufferPointer<Int>
    var added: UnsafeMutableBufferPointer<UInt8>
    /// The original in memory, or nil when it is in `spool`.
    var memory: UnsafePointer<UInt8>?
    var spool: Int32
    /// Where the handler reads the spool into.
    var buffer: UnsafeMutableBufferPointer<UInt8>
}
nonisolated(unsafe) private var timeoutOutput: PreparedOutput?

/// The filter's work under one settings value: `reservoir filter` makes it from the parsed
/// options, and `init(arguments:configuration:)` from the plain arguments without the argument
/// parser (`reservoir filter`'s fast path and the `reservoir-filter` executable), each over the
/// configuration file's settings.
package struct FilterHook {
    /// The settings the hook was made from: the milter derives each recipient account's from
    /// them (``EffectiveSettings/scoped(to:)``).
    package let settings: EffectiveSettings
    /// The configuration file is invalid: every message passes through unanalysed, the forged
    /// fields removed, with an `X-Reservoir-Error` field and a line on stderr saying why.
    package var configurationProblem: ConfigurationProblem?

    package var keys: KeySettings { settings.keys }
    package var policy: PolicySettings { settings.policy }
    package var store: String? { settings.store }
    /// `--account`: whose bookings the message's reservations are recorded in.
    package var account: String? { settings.account }
    package var now: String? { settings.text(.now) }
    package var authservID: String? { settings.text(.authservID) }
    package var timeout: Int { settings.timeout }
    package var noStore: Bool { settings.flag(.noStore) }
    /// Store reservations that already ended (`--include-past`).
    package var includePast: Bool { settings.flag(.includePast) }
    /// Days a genuine sender's reservations wait as pending (`--pending-days`).
    package var pendingDays: Int { settings.number(.pendingDays) ?? PendingLimits.defaultDays }
    package var calendars: CalendarSettings { settings.calendars }
    /// `retry-spool`: where a message whose reservations met a passing failure waits for
    /// `reservoir retry`; nil for the default (``RetrySpool/locate(_:environment:)``).
    package var retrySpool: String? { settings.text(.retrySpool) }
    /// Makes the resolver of each message's key lookups instead of the one `keys` names (a
    /// test's); nil for that one.
    package var resolver: (@Sendable () -> any TXTResolver)?
    /// The clock the milter's time budget runs on (``MilterClock``).
    package var milterClock: any MilterClock = SystemMilterClock()

    /// The filter's arguments (those of `reservoir filter`) read without the argument parser,
    /// whose reflection costs a per-message hook about 2 ms of Swift runtime type lookups, over
    /// the configuration file's settings. Only the plain forms are taken (`--name value`,
    /// `--name=value`, the flags); anything else — help, an unknown option, a missing,
    /// malformed or misplaced value (``CommonOption/misuse(of:spelled:)``) — gives nil, for the
    /// argument parser to explain. An invalid configuration file does not: the hook then passes
    /// mail through with the problem in a field (``configurationProblem``).
    package init?(arguments: ArraySlice<String>, configuration: ConfigurationLoad) {
        var given: [CommonOption: SettingValue] = [:]
        var rest = arguments
        while let argument = rest.popFirst() {
            let parts = argument.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let option = CommonOption(flag: parts[0]) else { return nil }
            let inline = parts.count == 2 ? String(parts[1]) : nil
            guard option.valueName != nil else {
                // A flag takes no value.
                guard inline == nil else { return nil }
                given[option] = .flag(true)
                continue
            }
            guard let value = inline ?? rest.popFirst(), inline != nil || !value.hasPrefix("-") || value == "-" else { return nil }
            guard option.misuse(of: value) == nil, let setting = option.commandLineValue(value, after: given[option]) else { return nil }
            given[option] = setting
        }
        self.init(settings: EffectiveSettings(file: configuration.file, commandLine: given), configurationProblem: configuration.problem)
    }

    /// The hook for merged settings; with `configurationProblem` it analyses nothing.
    package init(settings: EffectiveSettings, configurationProblem: ConfigurationProblem?) {
        self.settings = settings
        self.configurationProblem = configurationProblem
    }

    /// Seconds before the message is passed through with a temperror result, unless `--timeout`
    /// says otherwise.
    package static let defaultTimeout = 5

    /// Messages larger than this are passed through unanalyzed, streamed from stdin to stdout
    /// (common MTA size limits are 25–50 MB; a 50 MB attachment is about 68 MB in base64).
    /// Memory does not depend on it: messages over ``Limits/wholeMessageBytes`` are spooled to
    /// a temporary file and analysed in pieces.
    package static let maxAnalyzedBytes = 256 << 20

    /// Every other failure passes the message through; only standard input or output failing
    /// ends the run with `ExitStatus(75)` (EX_TEMPFAIL), after saying why. On every path the
    /// fields a sender may have forged are left out (``ForgedFieldScanner``).
    package func run() throws(ExitStatus) {
        // Calendar pushes end with the time budget, counted from here.
        let budget = Deadline.after(milliseconds: timeout > 0 ? Int64(timeout) * 1000 : CalendarPusher.hookPushMilliseconds)
        guard let original = Self.readInput(limit: Limits.wholeMessageBytes + 1) else {
            Output.error("filter: cannot read standard input: \(String(cString: strerror(errno)))")
            throw ExitStatus(75)
        }
        let problem = settingsProblem
        if original.count > Limits.wholeMessageBytes {
            try runSpooled(first: original, problem: problem, budget: budget)
            return
        }
        let id = resolvedAuthservID
        let forged = ForgedFieldScanner.find(in: original, authservID: id)
        let lineEnding = FilterHeaders.detectLineEnding(original)
        // The original's storage stays put while this closure runs: the time-budget handler
        // writes it from there, and the output is written as pieces of it plus our fields, so
        // the hook holds one copy of the message, not three.
        let written = original.withUnsafeBufferPointer { buffer in
            armTimeout(
                FilterHeaders.plan(length: buffer.count, forged: forged, added: Self.timeoutFields(id, lineEnding)),
                from: .memory(buffer))
            let analysis = planOutput(
                RawMessage(bytes: original, origin: MessageOrigin(path: nil)), length: original.count,
                forged: forged, lineEnding: lineEnding, problem: problem, budget: budget)
            alarm(0)
            return (Self.writeOutput(analysis.output, from: .memory(buffer)), analysis)
        }
        guard written.0 else { throw ExitStatus(75) }
        deliver(written.1, budget: budget)
    }

    /// What the analysis planned to write, and what it recorded.
    struct Analysis {
        var output: [FilterHeaders.Segment]
        /// Events the message created, moved or cancelled, in `store`.
        var changed: [EventKey] = []
        var store: (any EventStore)?
    }

    /// After the message is written: pushes the events it changed to the calendars, within
    /// what is left of the time budget. The message and the exit status do not depend on it;
    /// what is not pushed waits in the store (`reservoir sync`).
    private func deliver(_ analysis: Analysis, budget: Deadline) {
        guard !calendars.calendars.isEmpty, !analysis.changed.isEmpty, let store = analysis.store else { return }
        // The message is complete: whoever reads it need not wait for the push.
        close(STDOUT_FILENO)
        do {
            guard let pusher = try CalendarPusher(calendars, store: store, clock: try CommandRunner.wallClock(now)) else { return }
            pusher.push(analysis.changed, deadline: budget, command: "filter")
        } catch {
            Output.error("filter: calendars: \(error) (events kept in the store; reservoir sync delivers them)")
        }
    }

    /// The authserv-id of our fields, and the one incoming fields are compared with.
    package var resolvedAuthservID: String { authservID ?? AuthenticationResults.defaultAuthservID() }

    /// What goes out when the time budget runs out: our Authentication-Results saying so.
    static func timeoutFields(_ authservID: String, _ lineEnding: String) -> [UInt8] {
        Array(
            AuthenticationResults(authservID: authservID, signatures: [], messageResult: .timeBudgetExceeded)
                .field(lineEnding: lineEnding).utf8)
    }

    /// Why the settings cannot be used, checked before anything is recorded: an invalid
    /// configuration file, or a calendar setting that cannot work (a malformed `--calendar`, a
    /// netrc or CA file that cannot be used; ``CalendarPusher/check(_:)``, no libcurl loaded).
    /// The message then passes through unanalysed, with the problem in a field.
    package var settingsProblem: String? { problem(checkingCalendars: true) }

    /// ``settingsProblem`` for the milter, which pushes to no calendar (`reservoir sync` does):
    /// the calendar settings — a site's template among them, which only an account fills in —
    /// are not its to check.
    package var milterSettingsProblem: String? { problem(checkingCalendars: false) }

    private func problem(checkingCalendars: Bool) -> String? {
        if let configurationProblem { return configurationProblem.description }
        do {
            if checkingCalendars { try CalendarPusher.check(calendars) }
            _ = try AccountAddress.parse(account)
        } catch {
            return "\(error)"
        }
        return nil
    }

    /// Analyses the message, records its trusted reservations, and plans the output: the
    /// original of `length` bytes less the `forged` fields, with ours added. On an error
    /// nothing is added; with a settings `problem` nothing is analysed.
    private func planOutput(
        _ raw: RawMessage, length: Int, forged: ForgedFields, lineEnding: String, problem: String?, budget: Deadline
    ) -> Analysis {
        if let problem {
            Output.error("filter: configuration: \(problem) (message passed through unanalysed, with \(FilterHeaders.errorFieldName))")
            let field = FilterHeaders.errorField("configuration: \(problem)", lineEnding: lineEnding)
            return Analysis(output: FilterHeaders.plan(length: length, forged: forged, added: Array(field.utf8)))
        }
        do {
            let runner = try CommandRunner(
                keys: keys, policy: policy, store: .none, now: now, includePast: includePast, pendingDays: pendingDays,
                resolver: resolver?())
            var report = runner.pipeline.analyze(raw)
            // Most mail carries no trusted reservation: the store is opened only when there is
            // something to record, which keeps SQLite or libpq out of the common hook run.
            var opened: (any EventStore)?
            var storeProblem: String?
            if !noStore, report.hasReservationsToKeep {
                do {
                    let eventStore = try CommandRunner.openStore(
                        at: store, busyTimeoutMilliseconds: storeWait(budget), quiet: true, account: try AccountAddress.parse(account))
                    runner.pipeline.record(&report, into: eventStore)
                    opened = eventStore
                } catch {
                    storeProblem = "\(error)"
                }
            }
            var added = FilterHeaders.fields(report: report, authservID: resolvedAuthservID, lineEnding: lineEnding)
            if !noStore, let transient = TransientFailure.reason(report, storeProblem: storeProblem) {
                added += keepForRetry(raw, because: transient, for: (try? AccountAddress.parse(account)) ?? .implicit, lineEnding: lineEnding)
            }
            return Analysis(
                output: FilterHeaders.plan(length: length, forged: forged, added: Array(added.utf8)),
                changed: CalendarPusher.changedKeys(report), store: opened)
        } catch {
            Output.error("filter: \(error) (message passed through without results)")
            return Analysis(output: FilterHeaders.plan(length: length, forged: forged, added: []))
        }
    }

    /// How long the store may wait for another writer: what the time budget leaves, less a
    /// second to keep the message for a retry and write it out, so a store locked past the
    /// budget ends in a retry record rather than in the time-budget handler, which keeps none.
    func storeWait(_ budget: Deadline) -> Int32 {
        guard timeout > 0, let left = budget.remainingMilliseconds else { return SQLiteEventStore.busyTimeoutMilliseconds }
        return Int32(clamping: max(100, min(Int64(SQLiteEventStore.busyTimeoutMilliseconds), left - 1000)))
    }

    /// Keeps a record of a message whose reservations met a passing failure, for `reservoir
    /// retry`, and says so in one line on stderr. The message goes out as it would have; when
    /// no record can be kept (no spool, the spool full) an `X-Reservoir-Error` field says so
    /// too, and that field is what this returns.
    private func keepForRetry(_ raw: RawMessage, because transient: String, for account: Account, lineEnding: String) -> String {
        guard let spool = RetrySpool.locate(retrySpool)?.forAccount(account) else {
            let why = "retry: not kept (no retry spool without a home directory; set retry-spool)"
            Output.error("filter: \(transient) (message passed through; \(why))")
            return FilterHeaders.errorField(why, lineEnding: lineEnding)
        }
        switch spool.keep(raw) {
        case .kept(let record):
            Output.error("filter: \(transient) (message passed through; kept for reservoir retry as \(record))")
            return ""
        case .refused(let why):
            Output.error("filter: \(transient) (message passed through; not kept for retry: \(why))")
            return FilterHeaders.errorField("retry: not kept: \(why)", lineEnding: lineEnding)
        }
    }

    /// Where the original bytes of an output plan are.
    enum OriginalBytes {
        case memory(UnsafeBufferPointer<UInt8>)
        case spool(FilterSpool)
    }

    /// Writes the planned segments; false (said on stderr) when stdout fails.
    private static func writeOutput(_ output: [FilterHeaders.Segment], from original: OriginalBytes) -> Bool {
        for segment in output {
            let written: Bool
            switch (segment, original) {
            case (.added(let bytes), _): written = Output.bytes(bytes)
            case (.original(let range), .memory(let buffer)): written = Output.bytes(UnsafeBufferPointer(rebasing: buffer[range]))
            case (.original(let range), .spool(let spool)): written = spool.copyOut(range)
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
    /// header is scanned from the spool however long it is, and the output copied from it.
    /// Without a spool (no writable `$TMPDIR`, disk full) or past ``maxAnalyzedBytes`` it is
    /// streamed through unanalysed, the forged fields still left out.
    private func runSpooled(first: [UInt8], problem: String?, budget: Deadline) throws(ExitStatus) {
        guard var spool = FilterSpool(holding: first) else {
            try passThrough(
                "cannot write a spool file in \(TemporaryFile.directory) (\(String(cString: strerror(errno))))",
                spooled: nil, first: first, problem: problem)
            return
        }
        defer { close(spool.fd) }
        switch spool.fill(limit: Self.maxAnalyzedBytes) {
        case .complete:
            break
        case .tooLarge:
            try passThrough("message larger than \(Self.maxAnalyzedBytes >> 20) MB", spooled: spool, first: first, problem: problem)
            return
        case .writeFailed(let pending, let error):
            try passThrough(
                "cannot write the spool file (\(String(cString: strerror(error))))", spooled: spool, first: first, pending: pending,
                problem: problem)
            return
        case .readFailed:
            Output.error("filter: cannot read standard input: \(String(cString: strerror(errno)))")
            throw ExitStatus(75)
        }
        let id = resolvedAuthservID
        guard let forged = spool.forgedFields(first: first, authservID: id) else {
            Output.error("filter: cannot read the spool file: \(String(cString: strerror(errno)))")
            throw ExitStatus(75)
        }
        let lineEnding = FilterHeaders.detectLineEnding(first)
        armTimeout(FilterHeaders.plan(length: spool.size, forged: forged, added: Self.timeoutFields(id, lineEnding)), from: .spool(spool))
        let raw = RawMessage(file: MessageFile(.descriptor(spool.fd), size: spool.size), origin: MessageOrigin(path: nil))
        let analysis = planOutput(raw, length: spool.size, forged: forged, lineEnding: lineEnding, problem: problem, budget: budget)
        alarm(0)
        guard Self.writeOutput(analysis.output, from: .spool(spool)) else { throw ExitStatus(75) }
        deliver(analysis, budget: budget)
    }

    /// Streams the message through unanalysed, less the forged fields: the spool (or `first`
    /// when there is none), `pending`, then the rest of standard input.
    /// With an invalid configuration, the `X-Reservoir-Error` field saying so goes out where the
    /// analysed path puts its fields (after an mbox envelope line, else first), as on every path.
    private func passThrough(
        _ why: String, spooled: FilterSpool?, first: [UInt8], pending: [UInt8] = [], problem: String?
    ) throws(ExitStatus) {
        Output.error("filter: \(why): message passed through without analysis")
        var field: [UInt8] = []
        var insertionPoint = 0
        if let problem {
            Output.error("filter: configuration: \(problem)")
            let start = ForgedFieldScanner.find(in: first, authservID: resolvedAuthservID)
            if start.hasHeaderField {
                insertionPoint = start.insertionPoint
                field = Array(FilterHeaders.errorField("configuration: \(problem)", lineEnding: FilterHeaders.detectLineEnding(first)).utf8)
            }
        }
        var stream = ForgedFieldStream(authservID: resolvedAuthservID)
        // The bytes before the insertion point (an envelope line) are always kept, so the field
        // goes out once that many bytes have.
        var emitted = 0
        let emit: (UnsafeBufferPointer<UInt8>) -> Bool = { piece in
            guard !field.isEmpty else { return Output.bytes(piece) }
            let before = min(piece.count, insertionPoint - emitted)
            guard Output.bytes(UnsafeBufferPointer(rebasing: piece[0..<before])) else { return false }
            emitted += before
            guard emitted == insertionPoint else { return true }
            let added = field
            field = []
            return Output.bytes(added) && Output.bytes(UnsafeBufferPointer(rebasing: piece[before...]))
        }
        var copied =
            spooled.map { spool in spool.forEachPiece(from: 0) { stream.push($0, emit: emit) } }
            ?? first.withUnsafeBufferPointer { stream.push($0, emit: emit) }
        copied = copied && pending.withUnsafeBufferPointer { stream.push($0, emit: emit) }
        copied = copied && Self.copyRest { stream.push($0, emit: emit) } && stream.finish(emit: emit)
        guard copied else {
            Output.error("filter: cannot copy the message to standard output")
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

    /// Hands the rest of standard input to `consume` in pieces; false when reading fails or
    /// `consume` returns false.
    static func copyRest(_ consume: (UnsafeBufferPointer<UInt8>) -> Bool) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
            if n == 0 { return true }
            if n < 0 { if errno == EINTR { continue } else { return false } }
            guard chunk.withUnsafeBufferPointer({ consume(UnsafeBufferPointer(rebasing: $0[0..<n])) }) else { return false }
        }
    }

    /// After `timeout` seconds SIGALRM writes `plan` (the original less the forged fields,
    /// with our Authentication-Results saying the budget ran out) and exits 0. The plan is
    /// copied into memory allocated here, which the handler only reads; `original` must stay
    /// valid until `alarm(0)`.
    func armTimeout(_ plan: [FilterHeaders.Segment], from original: OriginalBytes) {
        guard timeout > 0 else { return }
        let pieces = UnsafeMutableBufferPointer<Int>.allocate(capacity: plan.count * 3)
        let addedCount = plan.reduce(0) { total, segment in
            if case .added(let bytes) = segment { total + bytes.count } else { total }
        }
        let added = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: addedCount)
        var used = 0
        for (index, segment) in plan.enumerated() {
            switch segment {
            case .added(let bytes):
                _ = UnsafeMutableBufferPointer(rebasing: added[used..<(used + bytes.count)]).initialize(from: bytes)
                (pieces[3 * index], pieces[3 * index + 1], pieces[3 * index + 2]) = (1, used, used + bytes.count)
                used += bytes.count
            case .original(let range):
                (pieces[3 * index], pieces[3 * index + 1], pieces[3 * index + 2]) = (0, range.lowerBound, range.upperBound)
            }
        }
        switch original {
        case .memory(let buffer):
            timeoutOutput = PreparedOutput(
                pieces: pieces, added: added, memory: buffer.baseAddress, spool: -1,
                buffer: UnsafeMutableBufferPointer(start: nil, count: 0))
        case .spool(let spool):
            timeoutOutput = PreparedOutput(pieces: pieces, added: added, memory: nil, spool: spool.fd, buffer: .allocate(capacity: 1 << 16))
        }
        startTimer()
    }

    private func startTimer() {
        signal(SIGALRM) { _ in
            // Only async-signal-safe calls here: pread(2), write(2) and _exit(2), on memory
            // prepared before the alarm was set.
            func writeAll(_ base: UnsafePointer<UInt8>, _ count: Int) {
                var offset = 0
                while offset < count {
                    let n = write(STDOUT_FILENO, base + offset, count - offset)
                    if n > 0 { offset += n } else if n < 0, errno == EINTR { continue } else { _exit(75) }
                }
            }
            guard let output = timeoutOutput else { _exit(0) }
            var index = 0
            while index + 2 < output.pieces.count {
                let (kind, start, end) = (output.pieces[index], output.pieces[index + 1], output.pieces[index + 2])
                index += 3
                if kind == 1 {
                    if let base = output.added.baseAddress { writeAll(base + start, end - start) }
                } else if let memory = output.memory {
                    writeAll(memory + start, end - start)
                } else {
                    var position = start
                    while position < end {
                        let n = pread(output.spool, output.buffer.baseAddress, min(output.buffer.count, end - position), off_t(position))
                        if n < 0, errno == EINTR { continue }
                        guard n > 0, let base = output.buffer.baseAddress else { _exit(75) }
                        writeAll(base, n)
                        position += n
                    }
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
