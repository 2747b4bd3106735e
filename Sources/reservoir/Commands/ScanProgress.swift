import CommandCore
import Glibc

/// A one-line progress display on standard error — messages of the total, rate, megabytes,
/// time left — redrawn at most every ``interval`` seconds, only when standard error is a
/// terminal.
struct ScanProgress {
    static let interval = 0.1

    let enabled: Bool
    private var messages = 0
    /// Messages expected in all; skipped ones are taken off as they are skipped.
    var total = 0
    private var bytes = 0
    private let started: Double
    private var lastDrawn: Double = 0

    init() {
        enabled = isatty(STDERR_FILENO) == 1
        started = Self.monotonic()
    }

    mutating func add(bytes count: Int) {
        messages += 1
        bytes += count
        guard enabled else { return }
        let now = Self.monotonic()
        if now - lastDrawn >= Self.interval {
            lastDrawn = now
            draw(now)
        }
    }

    var elapsed: Double { Self.monotonic() - started }

    /// Takes the line off the terminal: before banners are written (the next message draws it
    /// again), and at the end, where the summary takes its place.
    func clear() {
        guard enabled else { return }
        _ = Output.bytes(Array("\r\u{1B}[2K".utf8), to: STDERR_FILENO)
    }

    func finish() { clear() }

    private func draw(_ now: Double) {
        let elapsed = max(now - started, 0.001)
        let rate = Int(Double(messages) / elapsed)
        let megabytes = Double(bytes) / 1_048_576
        var line = "\r\u{1B}[2Kscanning: \(messages)"
        if total >= messages, total > 0 { line += "/\(total)" }
        line += (max(total, messages) == 1 ? " message" : " messages") + " · \(rate)/s · \(Int(megabytes)) MB · \(Int(elapsed)) s"
        if total > messages, rate > 0 { line += " · about \((total - messages) / rate + 1) s left" }
        _ = Output.bytes(Array(line.utf8), to: STDERR_FILENO)
    }

    static func monotonic() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
