package import Glibc

/// The clock the milter's time budget runs on (``FilterHook/milterChangesWithinBudget(_:finished:)``):
/// what it times a message's work with, and how it waits for that work. The system's
/// (``SystemMilterClock``) in the programs; a test's passes the budget without waiting for it.
package protocol MilterClock: Sendable {
    /// Nanoseconds on a clock that only goes forward.
    func nanoseconds() -> UInt64

    /// Waits until `done` is posted, then true, or until `seconds` have passed, then false.
    func wait(for done: UnsafeMutablePointer<sem_t>, seconds: Int) -> Bool
}

/// The system's clocks: `CLOCK_MONOTONIC` for timing, `sem_timedwait(3)` (which takes a
/// `CLOCK_REALTIME` deadline) for the budget.
package struct SystemMilterClock: MilterClock {
    package init() {}

    package func nanoseconds() -> UInt64 { MilterOutcome.monotonicNanoseconds() }

    package func wait(for done: UnsafeMutablePointer<sem_t>, seconds: Int) -> Bool {
        var deadline = timespec()
        clock_gettime(CLOCK_REALTIME, &deadline)
        deadline.tv_sec += seconds
        while sem_timedwait(done, &deadline) != 0 {
            // EINTR: a signal came first; the deadline stays.
            guard errno == EINTR else { return false }
        }
        return true
    }
}
