internal import CLibCurl
import Glibc

/// Decides, for each address libcurl is about to connect to (CURLOPT_OPENSOCKETFUNCTION), whether
/// a page may be fetched from it: never from a ``SpecialPurposeAddress`` unless the hop's host
/// is one the person allowed (`--allow-private-host`). A refused address gets no socket, so
/// libcurl answers as it does for a port where nothing listens (CURLE_COULDNT_CONNECT), and no
/// packet leaves for it.
final class PageConnectionGuard {
    /// The hosts allowed to be on special-purpose addresses, lowercase, without brackets.
    let allowedHosts: Set<String>
    /// Whether the host of the hop being fetched is one of them.
    var hopAllowed = false

    init(allowedHosts: Set<String>) {
        self.allowedHosts = allowedHosts
    }

    /// Sets the hop's host (as ``PageAddress`` reads it: lowercase, an IPv6 literal bracketed).
    func enter(host: String) {
        hopAllowed = allowedHosts.contains(Self.bare(host))
    }

    /// `host` lowercase, without the brackets of an IPv6 literal.
    static func bare(_ host: String) -> String {
        let lower = host.lowercased()
        guard lower.hasPrefix("["), lower.hasSuffix("]") else { return lower }
        return String(lower.dropFirst().dropLast())
    }

    /// Whether a connection to `address` may be made.
    func permits(_ address: UnsafePointer<curl_sockaddr>) -> Bool {
        if hopAllowed { return true }
        guard let offset = MemoryLayout<curl_sockaddr>.offset(of: \curl_sockaddr.addr) else { return false }
        let socketAddress = UnsafeRawPointer(address) + offset
        let length = Int(address.pointee.addrlen)
        switch address.pointee.family {
        case AF_INET where length >= MemoryLayout<sockaddr_in>.size:
            let ipv4 = socketAddress.loadUnaligned(as: sockaddr_in.self)
            return !SpecialPurposeAddress.isSpecial(ipv4: UInt32(bigEndian: ipv4.sin_addr.s_addr))
        case AF_INET6 where length >= MemoryLayout<sockaddr_in6>.size:
            let ipv6 = socketAddress.loadUnaligned(as: sockaddr_in6.self)
            let bytes = withUnsafeBytes(of: ipv6.sin6_addr) { Array($0) }
            return !SpecialPurposeAddress.isSpecial(ipv6: bytes)
        default:
            // Neither IPv4 nor IPv6 (a Unix socket): never a page's.
            return false
        }
    }

    /// CURLOPT_OPENSOCKETFUNCTION: "return a curl_socket_t for a socket… or CURL_SOCKET_BAD in
    /// case no connection could be established or another error was detected" (libcurl then
    /// tries the host's next address, as for a refused connection).
    static let openSocket: curl_opensocket_callback = { context, _, address in
        guard let context, let address else { return CURL_SOCKET_BAD }
        let connectionGuard = Unmanaged<PageConnectionGuard>.fromOpaque(context).takeUnretainedValue()
        guard connectionGuard.permits(address) else { return CURL_SOCKET_BAD }
        return socket(address.pointee.family, address.pointee.socktype | Int32(SOCK_CLOEXEC.rawValue), address.pointee.protocol)
    }
}
