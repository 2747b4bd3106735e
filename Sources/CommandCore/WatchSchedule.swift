import Glibc

/// The clock and the wait of a continuous `reservoir watch`, injected so that its schedule runs
/// on a test's time: the program uses ``system`` (CLOCK_MONOTONIC and poll(2)).
package struct WatchClock: Sendable {
    /// Seconds on a clock a change of the wall clock does not move.
    package var now: @Sendable () -> Double
    /// Waits up to `milliseconds` for input on any of `descriptors`, or less when a signal
    /// comes (poll(2), not restarted).
    package var poll: @Sendable (_ descriptors: [Int32], _ milliseconds: Int32) -> Void

    package init(now: @escaping @Sendable () -> Double, poll: @escaping @Sendable (_ descriptors: [Int32], _ milliseconds: Int32) -> Void) {
        self.now = now
        self.poll = poll
    }

    /// CLOCK_MONOTONIC and poll(2).
    package static let system = WatchClock(
        now: {
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
        },
        poll: { descriptors, milliseconds in
            var polled = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            // EINTR (a signal that did not stop the watch) only starts the next round early.
            _ = Glibc.poll(&polled, nfds_t(polled.count), milliseconds)
        })
}

/// The bounds of `reservoir watch` (docs/RELIABILITY.md).
package enum WatchLimits {
    /// The largest message read, the filter's: larger ones are left unread with a line on
    /// standard error (and not asked for again).
    package static let messageBytes = FilterHook.maxAnalyzedBytes
    /// Messages read per mailbox and run unless --max-messages says otherwise: a first run over
    /// a large mailbox reads it in steps, recording its place after each message.
    package static let defaultMessagesPerRun = 500
    /// Seconds between reads without --once.
    package static let defaultIntervalSeconds = 60
    /// The longest wait after failures in a row (15 minutes); the first waits 1 second.
    package static let maximumBackoffSeconds = 900
    /// A connection that lasted this long (60 seconds) resets the count of failures in a row
    /// when it breaks: a NAT dropping an idle connection every ten minutes is not a failing server.
    package static let healthyConnectionSeconds = 60
    /// How long one `IDLE` lasts at most before it is ended and issued again (`--idle`, which
    /// may be shorter): 29 minutes, below the
    /// 30 minutes after which a server may log the client out (RFC 2177 §3: "clients using IDLE
    /// are advised to terminate the IDLE and re-issue it at least every 29 minutes").
    package static let idleReissueSeconds = 29 * 60
}

/// How a read of a mailbox ended.
package enum WatchReadOutcome: Sendable, Equatable {
    /// Everything new was read.
    case done
    /// More messages than --max-messages were new.
    case more
    /// A message met a transient failure: it is read again after the interval.
    case retryLater
}

/// When one watched mailbox is read next, and how many tries in a row failed: the back-off
/// and due times of a continuous watch, on the times its caller reads from a ``WatchClock``.
package struct MailboxSchedule: Sendable, Equatable {
    /// Failures in a row: reset by a read on a connection that idled, by a read without
    /// IDLE, or by a connection that lasted ``WatchLimits/healthyConnectionSeconds``.
    package private(set) var failures = 0
    /// When it is read next: the end of the interval without IDLE, the re-issue time of an
    /// IDLE, the end of a back-off, or now.
    package private(set) var due: Double = 0
    /// When the connection was made; nil without one.
    package private(set) var connectedAt: Double?

    package init() {}

    package func isDue(at now: Double) -> Bool { now >= due }

    /// A connection was made.
    package mutating func connected(at now: Double) { connectedAt = now }

    /// The connection is closed without a failure (a server without IDLE, read again later).
    package mutating func disconnected() { connectedAt = nil }

    /// The mailbox changed (an IDLE said so, or a change came while reading): read it now.
    package mutating func changed(at now: Double) { due = now }

    /// A failed try: the connection is gone and the next try waits 1 s, doubling with each
    /// failure in a row up to ``WatchLimits/maximumBackoffSeconds``, never at once. Returns the
    /// wait in seconds.
    package mutating func failed(at now: Double) -> Int {
        // A connection that lasted is a success of its own: a break after it starts counting anew.
        if let since = connectedAt, now - since >= Double(WatchLimits.healthyConnectionSeconds) { failures = 0 }
        connectedAt = nil
        failures += 1
        let wait = min(WatchLimits.maximumBackoffSeconds, 1 << min(failures - 1, 20))
        due = now + Double(wait)
        return wait
    }

    /// A read that succeeded: `idled` when it came on a connection that was in IDLE, `idles`
    /// when the server offers IDLE. The next read is due at once when more is waiting, after
    /// `interval` seconds without IDLE or after a transient failure, and when the IDLE is to be
    /// issued again (`idle` seconds) otherwise.
    package mutating func read(_ outcome: WatchReadOutcome, idled: Bool, idles: Bool, at now: Double, interval: Int, idle: Int) {
        // A new connection has not succeeded until its IDLE has: a server that breaks every IDLE
        // keeps the back-off growing instead of a reconnection every second.
        if idled || !idles { failures = 0 }
        switch outcome {
        case .more: due = now
        case .retryLater: due = now + Double(interval)
        case .done: due = now + Double(idles ? idle : interval)
        }
    }

    /// When a round of a watch over `schedules` wakes: the earliest due, or `interval`
    /// seconds from now when there is none.
    package static func wake(_ schedules: [MailboxSchedule], at now: Double, interval: Int) -> Double {
        schedules.map(\.due).min() ?? now + Double(interval)
    }

    /// Waits until `wake` on `clock`, or until input on `descriptors` (an idling connection
    /// said something) or a signal; returns at once when `wake` has come.
    package static func wait(until wake: Double, on descriptors: [Int32], clock: WatchClock) {
        let now = clock.now()
        guard wake > now else { return }
        clock.poll(descriptors, Int32(clamping: Int(((wake - now) * 1000).rounded(.up))))
    }
}
