import Glibc
public import Mailbox

/// Scans many messages on every core, reporting them in their source order.
///
/// The calling thread lists messages into a queue that the workers take them from one at a
/// time, each worker reading a message the source deferred (``RawMessage/readingDeferred()``)
/// and analyzing it with a pipeline of its own (own resolver cache, no store). The
/// calling thread records the reports in source order as they come back, a group at a time
/// (one commit each), so the store sees the same sequence of changes as a one-core scan
/// would. Reading, analysis and recording overlap, and no worker waits for another at a
/// batch boundary.
public struct MessageScanner {
    /// Messages queued but not yet recorded, per worker: bounds the reports held, and the
    /// memory of a source that does not defer reading (a deferring one queues placeholders,
    /// and each worker holds only the message it analyses). Enough for the workers to go on
    /// while the calling thread is held up: a commit that checkpoints the store's WAL takes
    /// it 10–15 ms (two fdatasyncs), the time two workers analyse a hundred messages; with 32
    /// per worker they ran dry at every checkpoint.
    public static let messagesInFlightPerWorker = 256

    public let workers: [ReservationPipeline]
    public let recorder: ReservationPipeline

    /// - Parameter workers: one analyzer pipeline per thread to use (at least one).
    public init(workers: [ReservationPipeline], recorder: ReservationPipeline) {
        self.workers = workers.isEmpty ? [recorder] : workers
        self.recorder = recorder
    }

    /// Online processors, as the scan's default number of workers.
    public static func availableCores() -> Int {
        max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }

    /// Reports recorded with one commit (`ReservationPipeline/record(group:)`): at most this
    /// many, and none older than ``recordDelay`` when the next one arrives. The store's write
    /// lock is held only while a group is applied, not while messages are analysed, so a
    /// delivery running at the same time waits milliseconds.
    public static let recordGroup = 64
    /// Reports the calling thread waits for before it wakes, when it waits.
    static let reportsPerWakeUp = 16
    public static let recordDelay = Duration.milliseconds(100)

    /// CLOCK_MONOTONIC as a `Duration` since an arbitrary start (`ContinuousClock` would link
    /// the concurrency runtime, and with it libdispatch, into every program using the pipeline).
    static func monotonicNow() -> Duration {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
    }

    /// Analyses and records `messages`, calling `each` with every report in source order and
    /// `groupEnd` after the reports of each group recorded with one commit (a caller can write
    /// a group's output at once).
    public func scan<Messages: Sequence, Failure: Error>(
        _ messages: Messages, each: (MessageReport) throws(Failure) -> Void,
        groupEnd: () throws(Failure) -> Void = {}
    ) throws(Failure)
    where Messages.Element == RawMessage {
        var pending: [MessageReport] = []
        var oldest = Self.monotonicNow()
        func flush() throws(Failure) {
            guard !pending.isEmpty else { return }
            recorder.record(group: &pending)
            let reports = pending
            pending.removeAll(keepingCapacity: true)
            for report in reports { try each(report) }
            try groupEnd()
        }
        func add(_ report: MessageReport) throws(Failure) {
            if pending.isEmpty { oldest = Self.monotonicNow() }
            pending.append(report)
            if pending.count >= Self.recordGroup || Self.monotonicNow() - oldest >= Self.recordDelay { try flush() }
        }
        var iterator = messages.makeIterator()
        let queue = ScanQueue()
        let pipelines = UncheckedBox(workers)
        // Threads that cannot be created (EAGAIN) leave their share to the others.
        let threads =
            workers.count == 1
            ? []
            : workers.indices.compactMap { worker in
                WorkerThread {
                    while let (index, raw) = queue.take() {
                        queue.finish(index, raw.readingDeferred().map { pipelines.value[worker].analyze($0) })
                    }
                }
            }
        guard !threads.isEmpty else {
            while let raw = iterator.next() {
                if let raw = raw.readingDeferred() { try add(workers[0].analyze(raw)) }
            }
            try flush()
            return
        }
        // However the loop ends (also when `each` throws), the workers stop and are joined.
        defer {
            queue.cancel()
            for thread in threads { thread.join() }
        }
        let window = workers.count * Self.messagesInFlightPerWorker
        var read = 0
        var taken = 0
        var exhausted = false
        while true {
            while !exhausted, read - taken < window {
                guard let raw = iterator.next() else {
                    exhausted = true
                    queue.close()
                    break
                }
                queue.push(read, raw)
                read += 1
            }
            if exhausted, taken == read { break }
            // The next report in source order, then any others already done; reports waiting
            // for their group are shown before waiting long for a slow message.
            let next = queue.result(taken)
            if next == nil, !pending.isEmpty, Self.monotonicNow() - oldest >= Self.recordDelay { try flush() }
            // Waiting, it waits for a few reports at once: each wake-up of this thread is a
            // context switch on a core a worker needs (one per message made 5,000 voluntary and
            // 2,500 forced switches in a scan of 5,000 messages on two cores).
            var report = next ?? queue.waitForResult(taken, alongWith: min(taken + Self.reportsPerWakeUp - 1, read - 1))
            while true {
                // nil: a file gone before its worker read it, skipped as the source skips it.
                if let report { try add(report) }
                taken += 1
                guard taken < read, let ready = queue.result(taken) else { break }
                report = ready
            }
        }
        try flush()
    }
}

/// The messages waiting for a worker and the reports waiting to be recorded, behind one lock.
/// Each side is woken only when there is something for it: a new message wakes one idle
/// worker, a finished report wakes the calling thread only if it waits for that one (waking
/// every thread at every change made ten futex calls per message; now two).
final class ScanQueue: @unchecked Sendable {
    // Every field is guarded by `lock`. Workers wait on `workReady`, the calling thread on
    // `resultReady`.
    private var lock = pthread_mutex_t()
    private var workReady = pthread_cond_t()
    private var resultReady = pthread_cond_t()
    private var waiting: [(Int, RawMessage)] = []
    private var head = 0
    /// nil for a message that could not be read.
    private var done: [Int: MessageReport?] = [:]
    private var closed = false
    private var idleWorkers = 0
    /// The report the calling thread waits for, if it waits.
    private var awaited: Int?

    init() {
        pthread_mutex_init(&lock, nil)
        pthread_cond_init(&workReady, nil)
        pthread_cond_init(&resultReady, nil)
    }

    deinit {
        pthread_cond_destroy(&resultReady)
        pthread_cond_destroy(&workReady)
        pthread_mutex_destroy(&lock)
    }

    func push(_ index: Int, _ raw: RawMessage) {
        pthread_mutex_lock(&lock)
        if head > 64, head * 2 > waiting.count {
            waiting.removeFirst(head)
            head = 0
        }
        waiting.append((index, raw))
        if idleWorkers > 0 { pthread_cond_signal(&workReady) }
        pthread_mutex_unlock(&lock)
    }

    /// No more messages: workers finish what is queued and stop.
    func close() {
        pthread_mutex_lock(&lock)
        closed = true
        pthread_cond_broadcast(&workReady)
        pthread_mutex_unlock(&lock)
    }

    /// Closes the queue and drops the messages no worker took yet.
    func cancel() {
        pthread_mutex_lock(&lock)
        closed = true
        waiting.removeAll()
        head = 0
        pthread_cond_broadcast(&workReady)
        pthread_mutex_unlock(&lock)
    }

    /// The next message for a worker; nil once the queue is closed and empty.
    func take() -> (Int, RawMessage)? {
        pthread_mutex_lock(&lock)
        defer { pthread_mutex_unlock(&lock) }
        while head == waiting.count {
            if closed { return nil }
            idleWorkers += 1
            pthread_cond_wait(&workReady, &lock)
            idleWorkers -= 1
        }
        let item = waiting[head]
        waiting[head].1 = RawMessage(bytes: [], origin: item.1.origin)  // the bytes go with the worker
        head += 1
        return item
    }

    func finish(_ index: Int, _ report: MessageReport?) {
        pthread_mutex_lock(&lock)
        done[index] = .some(report)  // kept even when nil: "could not be read" is an answer
        if awaited == index { pthread_cond_signal(&resultReady) }
        pthread_mutex_unlock(&lock)
    }

    /// The report of message `index`, waiting until it and message `later` are finished.
    func waitForResult(_ index: Int, alongWith later: Int) -> MessageReport? {
        pthread_mutex_lock(&lock)
        defer { pthread_mutex_unlock(&lock) }
        while true {
            let laterDone = later <= index || done[later] != nil
            if laterDone, let report = done.removeValue(forKey: index) {
                awaited = nil
                return report
            }
            awaited = laterDone ? index : later
            pthread_cond_wait(&resultReady, &lock)
        }
    }

    /// The report of message `index` if it is done (`.some(nil)` when it could not be read).
    func result(_ index: Int) -> MessageReport?? {
        pthread_mutex_lock(&lock)
        defer { pthread_mutex_unlock(&lock) }
        return done.removeValue(forKey: index)
    }
}

/// A value handed to worker threads that only read it, or only touch their own part.
struct UncheckedBox<Value>: @unchecked Sendable {
    // Each worker uses only its own pipeline; nothing is shared mutably.
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// A POSIX thread running `body`, joined by `join()`. Plain pthreads rather than Dispatch: the
/// scan needs a fixed set of workers, and libdispatch would be linked into, and initialised
/// by, every process, the per-message filter hook included.
final class WorkerThread: @unchecked Sendable {
    private var thread = pthread_t()
    private let body: () -> Void

    /// nil when the thread cannot be created.
    init?(_ body: @escaping () -> Void) {
        self.body = body
        let context = Unmanaged.passRetained(self).toOpaque()
        let rc = pthread_create(
            &thread, nil,
            { context in
                let worker = Unmanaged<WorkerThread>.fromOpaque(context!).takeRetainedValue()
                worker.body()
                return nil
            }, context)
        guard rc == 0 else {
            Unmanaged<WorkerThread>.fromOpaque(context).release()
            return nil
        }
    }

    func join() {
        pthread_join(thread, nil)
    }
}
