import Foundation
import Glibc

/// A nameserver on loopback that answers every query with `reply(query)`, or stays silent
/// when that is nil; stopped by closing it.
public final class LoopbackNameserver: @unchecked Sendable {
    public let socketFD: Int32
    public let port: UInt16
    public init(reply: @escaping @Sendable ([UInt8]) -> [UInt8]?) {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        socketFD = fd
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        port = UInt16(bigEndian: address.sin_port)
        Thread.detachNewThread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                var peer = sockaddr_storage()
                var peerLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
                let n = withUnsafeMutablePointer(to: &peer) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(fd, &buffer, buffer.count, 0, $0, &peerLength) }
                }
                if n <= 0 { return }
                guard let answer = reply(Array(buffer[0..<n])) else { continue }
                _ = withUnsafePointer(to: &peer) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(fd, answer, answer.count, 0, $0, peerLength) }
                }
            }
        }
    }
    public func stop() {
        shutdown(socketFD, Int32(SHUT_RDWR))
        close(socketFD)
    }

    /// The query's header and question, turned into a response header with `flags` and
    /// `answers` answer records announced.
    public static func response(to query: [UInt8], flags: UInt16, answers: UInt16) -> [UInt8] {
        guard query.count > 12 else { return query }
        var end = 12
        while end < query.count, query[end] != 0 { end += Int(query[end]) + 1 }
        end = min(end + 5, query.count)
        var out = Array(query[0..<end])
        out[2] = UInt8(flags >> 8)
        out[3] = UInt8(flags & 0xFF)
        out[4] = 0
        out[5] = 1
        out[6] = UInt8(answers >> 8)
        out[7] = UInt8(answers & 0xFF)
        out[8] = 0
        out[9] = 0
        out[10] = 0
        out[11] = 0
        return out
    }
}
