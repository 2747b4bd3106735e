import CommandCore
import Synchronization
import Testing

/// A clock that moves only when the watch waits: `poll` advances it by the time asked for.
final class TestClock: Sendable {
    let time = Mutex<Double>(1_000)
    let waits = Mutex<[Int32]>([])

    var clock: WatchClock {
        WatchClock(
            now: { self.time.withLock { $0 } },
            poll: { _, milliseconds in
                self.waits.withLock { $0.append(milliseconds) }
                self.time.withLock { $0 += Double(milliseconds) / 1000 }
            })
    }

    func advance(_ seconds: Double) { time.withLock { $0 += seconds } }
    var now: Double { time.withLock { $0 } }
}

@Suite("MailboxSchedule: a continuous watch's back-off and due times, on an injected clock")
struct WatchScheduleTests {
    @Test("failures in a row wait 1, 2, 4 … seconds up to 15 minutes, never retrying at once")
    func backoff() {
        let test = TestClock()
        var schedule = MailboxSchedule()
        var waits: [Int] = []
        for _ in 0..<12 {
            let wait = schedule.failed(at: test.now)
            #expect(schedule.due == test.now + Double(wait))
            #expect(!schedule.isDue(at: test.now))
            waits.append(wait)
            MailboxSchedule.wait(until: schedule.due, on: [], clock: test.clock)
            #expect(schedule.isDue(at: test.now))
        }
        #expect(waits == [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 900, 900])
        #expect(schedule.failures == 12)
    }

    @Test("a connection that lasted a minute starts the count anew when it breaks; a shorter one does not")
    func healthyConnection() {
        let test = TestClock()
        var schedule = MailboxSchedule()
        _ = schedule.failed(at: test.now)
        _ = schedule.failed(at: test.now)
        schedule.connected(at: test.now)
        test.advance(Double(WatchLimits.healthyConnectionSeconds) - 1)
        #expect(schedule.failed(at: test.now) == 4)
        schedule.connected(at: test.now)
        test.advance(Double(WatchLimits.healthyConnectionSeconds))
        #expect(schedule.failed(at: test.now) == 1)
        #expect(schedule.connectedAt == nil)
    }

    @Test("a read: the rest at once, the interval without IDLE or after a transient failure, the IDLE's re-issue time with it")
    func dueAfterRead() {
        let now = 5_000.0
        var schedule = MailboxSchedule()
        schedule.read(.more, idled: false, idles: true, at: now, interval: 60, idle: 1_740)
        #expect(schedule.due == now)
        schedule.read(.retryLater, idled: false, idles: true, at: now, interval: 60, idle: 1_740)
        #expect(schedule.due == now + 60)
        schedule.read(.done, idled: false, idles: false, at: now, interval: 60, idle: 1_740)
        #expect(schedule.due == now + 60)
        schedule.read(.done, idled: true, idles: true, at: now, interval: 60, idle: 5)
        #expect(schedule.due == now + 5)
    }

    @Test("a new connection has not succeeded until its IDLE has: the back-off keeps growing")
    func idleMustSucceed() {
        let test = TestClock()
        var schedule = MailboxSchedule()
        _ = schedule.failed(at: test.now)
        schedule.read(.done, idled: false, idles: true, at: test.now, interval: 60, idle: 1_740)
        #expect(schedule.failures == 1)
        #expect(schedule.failed(at: test.now) == 2)
        schedule.read(.done, idled: true, idles: true, at: test.now, interval: 60, idle: 1_740)
        #expect(schedule.failures == 0)
        _ = schedule.failed(at: test.now)
        schedule.read(.done, idled: false, idles: false, at: test.now, interval: 60, idle: 1_740)
        #expect(schedule.failures == 0)
    }

    @Test("--idle 5: on the injected clock the IDLE is issued again every 5 seconds, never more often")
    func idleReissue() {
        let test = TestClock()
        var schedule = MailboxSchedule()
        var reads: [Double] = []
        let start = test.now
        while test.now - start < 13 {
            if schedule.isDue(at: test.now) {
                reads.append(test.now - start)
                schedule.read(.done, idled: !reads.isEmpty, idles: true, at: test.now, interval: 3_600, idle: 5)
            }
            MailboxSchedule.wait(until: MailboxSchedule.wake([schedule], at: test.now, interval: 3_600), on: [3], clock: test.clock)
        }
        #expect(reads == [0, 5, 10])
        #expect(test.waits.withLock { $0 } == [5_000, 5_000, 5_000])
    }

    @Test("a change makes the mailbox due now; the wake is the earliest due, or the interval without mailboxes")
    func wake() {
        let test = TestClock()
        var a = MailboxSchedule()
        var b = MailboxSchedule()
        a.read(.done, idled: true, idles: true, at: test.now, interval: 60, idle: 100)
        b.read(.done, idled: true, idles: false, at: test.now, interval: 60, idle: 100)
        #expect(MailboxSchedule.wake([a, b], at: test.now, interval: 60) == test.now + 60)
        test.advance(1)
        a.changed(at: test.now)
        #expect(MailboxSchedule.wake([a, b], at: test.now, interval: 60) == test.now)
        #expect(MailboxSchedule.wake([], at: test.now, interval: 60) == test.now + 60)
        // A wake that has come does not wait.
        MailboxSchedule.wait(until: test.now, on: [], clock: test.clock)
        #expect(test.waits.withLock { $0 }.isEmpty)
    }
}
