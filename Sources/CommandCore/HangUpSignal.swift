import Glibc
import Synchronization

/// SIGHUP as a request to reload, for a program of many threads (`reservoir serve`, the
/// milter): the handler writes a byte to a pipe (async-signal-safe); a thread of its own reads
/// it and runs the reload, one at a time. Signals that arrive during a reload make one more.
/// SIGHUP is unblocked in the calling thread, and the reload thread starts with the caller's
/// mask as it was, so a program that blocked SIGHUP everywhere before (the milter: libmilter's
/// signal thread would stop on it) has it taken by the calling thread alone. A program that
/// calls this is no longer ended by SIGHUP, the default action without a handler.
package enum HangUpSignal {
    /// The pipe's write end, for the handler.
    private static let wake = Atomic<Int32>(-1)
    nonisolated(unsafe) private static var reload: (@Sendable () -> Void)?

    /// Installs the handler and starts the thread that runs `body` after each SIGHUP. False when
    /// no pipe or thread could be had (SIGHUP then keeps its default action).
    @discardableResult
    package static func onEach(_ body: @escaping @Sendable () -> Void) -> Bool {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return false }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        reload = body
        wake.store(ends[1], ordering: .sequentiallyConsistent)
        var thread = pthread_t()
        let readEnd = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
        readEnd.pointee = ends[0]
        guard pthread_create(&thread, nil, waitForHangUps, readEnd) == 0 else {
            readEnd.deallocate()
            return false
        }
        pthread_detach(thread)
        signal(SIGHUP, hangUpHandler)
        var unblock = sigset_t()
        sigemptyset(&unblock)
        sigaddset(&unblock, SIGHUP)
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
        return true
    }

    fileprivate static func note() {
        let saved = errno
        var byte: UInt8 = 1
        _ = write(wake.load(ordering: .relaxed), &byte, 1)
        errno = saved
    }

    fileprivate static func run(reading descriptor: Int32) {
        var bytes = [UInt8](repeating: 0, count: 64)
        while true {
            let count = read(descriptor, &bytes, bytes.count)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return }
            reload?()
        }
    }
}

private func hangUpHandler(_: Int32) {
    HangUpSignal.note()
}

private func waitForHangUps(_ raw: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    guard let pointer = raw?.assumingMemoryBound(to: Int32.self) else { return nil }
    let descriptor = pointer.pointee
    pointer.deallocate()
    HangUpSignal.run(reading: descriptor)
    return nil
}
