import Foundation

/// Ports on 127.0.0.1 for the servers the tests start (Radicale, Xandikos, reservoir serve).
enum LoopbackPort {
    static func address(_ port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return address
    }

    /// A socket bound to a port the kernel picks (port 0), and that port.
    static func bound() throws -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = address(0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard fd >= 0, ok else {
            close(fd)
            throw CocoaError(.fileWriteUnknown)
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// A port no one listens on now (the kernel's pick, released again).
    static func free() throws -> Int {
        let (fd, port) = try bound()
        close(fd)
        return port
    }

    /// A listening socket that accepts connections and never answers: a silent server. Close
    /// the descriptor when done.
    static func silent() throws -> (fd: Int32, port: Int) {
        let socket = try bound()
        listen(socket.fd, 16)
        return socket
    }

    /// Waits until something accepts connections on `port` (10 s at most).
    static func waitUntilListening(_ port: Int) throws {
        for _ in 0..<200 {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = address(port)
            let ok = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            close(fd)
            if ok == 0 { return }
            usleep(50_000)
        }
        throw CocoaError(.fileReadUnknown)
    }
}
