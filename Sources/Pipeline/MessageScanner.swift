import Dispatch
import Glibc
public import MIME

/// Scans many messages on every core, reporting them in their source order.
///
/// Messages are read in batches; each batch is split into one contiguous slice per worker,
/// each worker analyzing its slice with a pipeline of its own (own resolver cache, no store).
/// The recording pipeline then applies the batch to the store on the calling thread, in
/// order, so the store sees the same sequence of changes as a one-core scan would.
public struct MessageScanner {
    /// Messages per worker in one batch: bounds memory to a few batches' worth of mail.
    public static let messagesPerWorkerBatch = 32

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

    public func scan<Messages: Sequence>(_ messages: Messages, each: (MessageReport) throws -> Void) rethrows
    where Messages.Element == RawMessage {
        let batchSize = workers.count * Self.messagesPerWorkerBatch
        var iterator = messages.makeIterator()
        func nextBatch() -> [RawMessage] {
            var batch: [RawMessage] = []
            batch.reserveCapacity(batchSize)
            while batch.count < batchSize, let next = iterator.next() { batch.append(next) }
            return batch
        }
        guard workers.count > 1 else {
            while true {
                let batch = nextBatch()
                if batch.isEmpty { return }
                for var report in batch.map(workers[0].analyze) {
                    recorder.record(&report)
                    try each(report)
                }
            }
        }
        // Three stages overlap: while the workers analyze batch n, this thread records and
        // reports batch n - 1 and reads batch n + 1.
        var current = nextBatch()
        if current.isEmpty { return }
        var running = startAnalysis(current)
        while true {
            let following = nextBatch()
            let reports = running.wait()
            if !following.isEmpty { running = startAnalysis(following) }
            for var report in reports {
                recorder.record(&report)
                try each(report)
            }
            if following.isEmpty { return }
            current = following
        }
    }

    /// Analysis of one batch on the worker threads, started now and joined by `wait()`.
    final class Analysis: @unchecked Sendable {
        // `slots` is written by the workers (disjoint indices) and read after the group is done.
        let slots: ReportSlots
        let group = DispatchGroup()

        init(count: Int) { slots = ReportSlots(count: count) }

        func wait() -> [MessageReport] {
            group.wait()
            return slots.take()
        }
    }

    func startAnalysis(_ batch: [RawMessage]) -> Analysis {
        let analysis = Analysis(count: batch.count)
        let pipelines = UncheckedBox(workers)
        let input = UncheckedBox(batch)
        let next = IndexCounter()
        let workerCount = min(workers.count, batch.count)
        DispatchQueue.global().async(group: analysis.group) {
            // Each worker takes the next unclaimed message, so one large message does not hold
            // back a whole slice.
            DispatchQueue.concurrentPerform(iterations: workerCount) { worker in
                while let index = next.claim(below: input.value.count) {
                    analysis.slots.store(pipelines.value[worker].analyze(input.value[index]), at: index)
                }
            }
        }
        return analysis
    }

    func analyze(_ batch: [RawMessage]) -> [MessageReport] {
        if workers.count == 1 || batch.count == 1 { return batch.map(workers[0].analyze) }
        return startAnalysis(batch).wait()
    }
}

/// Hands out the indices of a batch, each once, to the workers.
final class IndexCounter: @unchecked Sendable {
    // Guarded by `lock`.
    private var next = 0
    private var lock = pthread_mutex_t()

    init() { pthread_mutex_init(&lock, nil) }
    deinit { pthread_mutex_destroy(&lock) }

    func claim(below count: Int) -> Int? {
        pthread_mutex_lock(&lock)
        defer { pthread_mutex_unlock(&lock) }
        guard next < count else { return nil }
        next += 1
        return next - 1
    }
}

/// A value handed to worker threads that only read it, or only touch their own part.
struct UncheckedBox<Value>: @unchecked Sendable {
    // Each worker uses only its own pipeline and reads the batch; nothing is shared mutably.
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// One slot per message of a batch; each index is written by exactly one worker.
final class ReportSlots: @unchecked Sendable {
    // Disjoint indices per worker and a join (concurrentPerform returns) before `take`.
    private let buffer: UnsafeMutableBufferPointer<MessageReport?>

    init(count: Int) {
        buffer = .allocate(capacity: count)
        buffer.initialize(repeating: nil)
    }

    deinit {
        buffer.deinitialize()
        buffer.deallocate()
    }

    func store(_ report: MessageReport, at index: Int) { buffer[index] = report }

    func take() -> [MessageReport] { buffer.compactMap { $0 } }
}
