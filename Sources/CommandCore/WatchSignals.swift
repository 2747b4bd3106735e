import Glibc
import Synchronization

/// SIGHUP asks a continuous watch to reload (the command reads its settings again): the
/// handler only notes it, and the wait it interrupts (poll(2), never restarted) ends the round
/// early; other system calls restart (`SA_RESTART`), so a read from a server goes on.
package enum WatchReload {
    private static let requested = Atomic<Bool>(false)

    package static func install() {
        _ = requested.load(ordering: .sequentiallyConsistent)
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in
            // Async-signal-safe: an atomic only.
            WatchReload.requested.store(true, ordering: .sequentiallyConsistent)
        }
        sigemptyset(&action.sa_mask)
        action.sa_flags = Int32(SA_RESTART)
        sigaction(SIGHUP, &action, nil)
        var unblock = sigset_t()
        sigemptyset(&unblock)
        sigaddset(&unblock, SIGHUP)
        sigprocmask(SIG_UNBLOCK, &unblock, nil)
    }

    /// Whether a reload was asked for since the last call.
    package static func asked() -> Bool {
        requested.exchange(false, ordering: .sequentiallyConsistent)
    }
}

/// SIGTERM and SIGINT stop a continuous watch at once — in IDLE, waiting, connecting —
/// except while a message is being recorded or the calendars pushed: then as soon as that
/// is done. The store's UID state is kept after each message, so a stop loses nothing and
/// the next run reads nothing twice. Exit status 0.
package enum WatchStop {
    /// 0: nothing under way; 1: recording; 2: recording, and a stop was asked for.
    private static let state = Atomic<Int>(0)

    package static func install() {
        // The handler must not be the first to touch it (a global's lazy initialization is
        // not async-signal-safe).
        _ = state.load(ordering: .sequentiallyConsistent)
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in
            // Async-signal-safe: an atomic and _exit(2) only.
            if !WatchStop.state.compareExchange(expected: 1, desired: 2, ordering: .sequentiallyConsistent).exchanged {
                _exit(0)
            }
        }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0
        var unblock = sigset_t()
        sigemptyset(&unblock)
        for signal in [SIGTERM, SIGINT] {
            sigaction(signal, &action, nil)
            sigaddset(&unblock, signal)
        }
        // A parent that blocked them (a test runner's threads do) would make the watch unstoppable.
        sigprocmask(SIG_UNBLOCK, &unblock, nil)
    }

    package static func busy() {
        _ = state.compareExchange(expected: 0, desired: 1, ordering: .sequentiallyConsistent)
    }

    package static func idle() {
        if state.exchange(0, ordering: .sequentiallyConsistent) == 2 { _exit(0) }
    }
}
