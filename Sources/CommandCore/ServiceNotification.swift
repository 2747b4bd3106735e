import Glibc

/// Tells systemd (a `Type=notify` unit: `$NOTIFY_SOCKET`, sd_notify(3)) how a long-running
/// program is: `READY=1` once its start's checks passed and it serves, `RELOADING=1` while a
/// reload (SIGHUP) is under way, `STOPPING=1`. Nothing without the variable.
package enum ServiceNotification {
    /// A socket name starting with `@` is in the abstract namespace.
    package static func send(_ state: String) {
        guard let variable = getenv("NOTIFY_SOCKET") else { return }
        var path = Array(String(cString: variable).utf8)
        guard !path.isEmpty, path.count < 108 else { return }
        if path[0] == UInt8(ascii: "@") { path[0] = 0 }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.enumerated() { raw[index] = byte }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + path.count)
        let message = Array(state.utf8)
        _ = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(fd, message, message.count, 0, $0, length) }
        }
    }

    /// A reload: `RELOADING=1` with the monotonic time systemd asks for (`MONOTONIC_USEC`),
    /// then `body`, then `READY=1`.
    package static func reloading<Result>(_ body: () throws -> Result) rethrows -> Result {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        send("RELOADING=1\nMONOTONIC_USEC=\(Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000)")
        defer { send("READY=1") }
        return try body()
    }
}
