/// `--listen HOST:PORT`: an IPv4 address, a name, or a bracketed IPv6 address (`[::1]:8645`).
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    /// The port of `reservoir serve` when `--listen` is not given.
    public static let defaultPort = 8645
    public static let standard = ListenAddress(host: "127.0.0.1", port: defaultPort)

    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Nil unless `text` is `HOST:PORT` with a port from 0 to 65535 (0: any free port).
    public init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":") else { return nil }
        var host = String(text[..<colon])
        let portText = text[text.index(after: colon)...]
        guard !portText.isEmpty, portText.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), portText.count <= 5,
            let port = Int(portText), port <= 65_535
        else { return nil }
        if host.hasPrefix("[") && host.hasSuffix("]") {
            host = String(host.dropFirst().dropLast())
        } else if host.contains(":") {
            return nil
        }
        guard !host.isEmpty else { return nil }
        self.init(host: host, port: port)
    }

    /// Whether only this machine can connect: 127.0.0.0/8 (RFC 1122 §3.2.1.3), `::1`
    /// (RFC 4291 §2.5.3) or `localhost` (RFC 6761 §6.3).
    public var isLoopback: Bool {
        if host.lowercased() == "localhost" || host == "::1" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { Int($0).map { (0...255).contains($0) } ?? false }
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
