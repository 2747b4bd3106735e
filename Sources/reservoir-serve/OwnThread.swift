import Feed
import Glibc

/// Runs blocking work on a thread of its own and awaits its answer, so that a blocking wait
/// (a child process) never holds one of the few threads Swift's concurrency runs tasks on.
enum OwnThread {
    final class Job: @unchecked Sendable {
        let work: @Sendable () -> FeedResponse
        let continuation: CheckedContinuation<FeedResponse, Never>

        init(work: @escaping @Sendable () -> FeedResponse, continuation: CheckedContinuation<FeedResponse, Never>) {
            self.work = work
            self.continuation = continuation
        }

        func finish() { continuation.resume(returning: work()) }
    }

    static func run(_ work: @escaping @Sendable () -> FeedResponse) async -> FeedResponse {
        await withCheckedContinuation { (continuation: CheckedContinuation<FeedResponse, Never>) in
            let context = Unmanaged.passRetained(Job(work: work, continuation: continuation)).toOpaque()
            var thread = pthread_t()
            if pthread_create(&thread, nil, ownThreadMain, context) == 0 {
                pthread_detach(thread)
            } else {
                // No thread to be had: run it here rather than not at all.
                Unmanaged<Job>.fromOpaque(context).takeRetainedValue().finish()
            }
        }
    }
}

/// The thread's start routine: takes the job it was handed and finishes it.
private func ownThreadMain(_ raw: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    guard let raw else { return nil }
    Unmanaged<OwnThread.Job>.fromOpaque(raw).takeRetainedValue().finish()
    return nil
}
