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
        while true {
            var batch: [RawMessage] = []
            batch.reserveCapacity(batchSize)
            while batch.count < batchSize, let next = iterator.next() { batch.append(next) }
            if batch.isEmpty { return }
            for var report in analyze(batch) {
                recorder.record(&report)
                try each(report)
            }
        }
    }

    func analyze(_ batch: [RawMessage]) -> [MessageReport] {
        if workers.count == 1 || batch.count == 1 { return batch.map(workers[0].analyze) }
        let slots = ReportSlots(count: batch.count)
        let pipelines = UncheckedBox(workers)
        let input = UncheckedBox(batch)
        let sliceCount = min(workers.count, batch.count)
        DispatchQueue.concurrentPerform(iterations: sliceCount) { worker in
            let lower = batch.count * worker / sliceCount, upper = batch.count * (worker + 1) / sliceCount
            for index in lower..<upper {
                slots.store(pipelines.value[worker].analyze(input.value[index]), at: index)
            }
        }
        return slots.take()
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
