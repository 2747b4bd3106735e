import Glibc

/// TCP sockets on 127.0.0.1 only.
enum LoopbackSocket {
    /// A listening socket on 127.0.0.1 and a port the kernel chose; close the descriptor after.
    static func listen() throws -> (descriptor: Int32, port: Int) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw TestFailure("socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(descriptor, generic, length) == 0 && Glibc.listen(descriptor, 16) == 0
                    && getsockname(descriptor, generic, &length) == 0
            }
        }
        guard bound else {
            close(descriptor)
            throw TestFailure("bind/listen on 127.0.0.1: \(String(cString: strerror(errno)))")
        }
        return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// A port that was free a moment ago, for a server started next.
    static func freePort() throws -> Int {
        let (descriptor, port) = try listen()
        close(descriptor)
        return port
    }

    /// Whether something accepts connections on 127.0.0.1:`port`.
    static func accepts(port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    /// Waits up to 15 s for a server on `port`; throws with its log otherwise.
    static func waitFor(port: Int, server: ServerProcess) throws {
        for _ in 0..<150 {
            if accepts(port: port) { return }
            usleep(100_000)
        }
        throw TestFailure("no server on port \(port) after 15 s: \(server.output)")
    }
}
