#if canImport(Glibc)
    import Glibc
#endif

/// The clock a program reads "now" from, in Unix seconds: the system's, or one pinned (`--now`)
/// for replays and tests. One is made where a program starts and handed to every stage; a
/// program that runs for days (`watch`, `serve`, the milter) reads it again for each message or
/// request, so `x=` expiry, "already ended" and pending expiry follow the day.
public struct WallClock: Sendable {
    private let read: @Sendable () -> Int64

    /// A clock read from `read` (a test's, that moves when the test says).
    public init(reading read: @escaping @Sendable () -> Int64) {
        self.read = read
    }

    /// The system's real-time clock.
    public static let system = WallClock(reading: {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec)
    })

    /// A clock that stays at `seconds`.
    public static func pinned(at seconds: Int64) -> WallClock { WallClock(reading: { seconds }) }

    /// The time now.
    public func now() -> Int64 { read() }
}
