import Glibc

/// The names under which `reservoir serve` answers: a request's `Host` (RFC 9110 §7.2) must
/// name the address it listens on, `localhost` when that is loopback, or a `--server-name`.
///
/// DNS rebinding: a page of `http://attacker.example:8645/` whose name the attacker re-points
/// at 127.0.0.1 is, to the browser, the same origin as that name's server, and may read its
/// answers; its requests reach this server carrying `Host: attacker.example:8645`, and its
/// `Origin` equals `http://` + that `Host`. Only the name tells it apart, so a name this
/// server was not given is refused before anything else is read (RFC 9110 §15.5.20: 421, "not
/// able to produce a response for the target URI"). The port is not compared: a browser sends
/// the one it connected to, and which server a name leads to is the name's doing.
public struct ServedHosts: Sendable, Equatable {
    /// Host names and IP literals (IPv6 written as ``canonical(_:)`` writes it), lowercase.
    public let names: Set<String>
    /// Listening on every address (`0.0.0.0`, `::`): any IP literal names this server, since a
    /// connection to an address reached it through that address, and no name rebinds an address.
    public let anyAddress: Bool

    /// The longest `--server-name` taken (RFC 1035 §2.3.4: 255 octets for a whole name).
    public static let maximumNameBytes = 255

    public init(listen: ListenAddress, serverNames: [String] = []) {
        let host = Self.canonical(listen.host)
        var names = Set(serverNames.map(Self.canonical))
        names.insert(host)
        if listen.isLoopback {
            // RFC 6761 §6.3: localhost is this machine's; a browser may reach 127.0.0.1 or ::1 by it.
            names.insert("localhost")
            if host == "localhost" { names.formUnion(["127.0.0.1", "::1"]) }
        }
        let wildcard = host == "0.0.0.0" || host == "::"
        if wildcard { names.insert("localhost") }
        self.names = names
        anyAddress = wildcard
    }

    /// What a request's `Host` field says of it.
    public enum Verdict: Sendable, Equatable {
        case served
        /// No `Host`, two of them, or a value that is not `uri-host [ ":" port ]` (RFC 9112
        /// §3.2: a server "MUST respond with a 400").
        case malformed
        /// A name or address this server was not given.
        case foreign
    }

    public func check(_ field: String?) -> Verdict {
        guard let field, let host = Self.host(ofField: field) else { return .malformed }
        if names.contains(host) { return .served }
        if anyAddress && (Self.ipv6(host) != nil || Self.isIPv4Literal(host)) { return .served }
        return .foreign
    }

    /// The host of a `Host` value, lowercase, an IPv6 literal without brackets and canonical;
    /// nil unless it is an IP literal, a dotted IPv4 address or a name of letters, digits, `-`,
    /// `.` and `_`, with an optional `:port` of at most 5 digits.
    static func host(ofField field: String) -> String? {
        let value = Array(field.utf8)
        guard !value.isEmpty, value.count <= maximumNameBytes + 8 else { return nil }
        let hostPart: ArraySlice<UInt8>
        let rest: ArraySlice<UInt8>
        if value.first == UInt8(ascii: "[") {
            guard let close = value.firstIndex(of: UInt8(ascii: "]")) else { return nil }
            hostPart = value[1..<close]
            rest = value[(close + 1)...]
        } else {
            let colon = value.firstIndex(of: UInt8(ascii: ":")) ?? value.endIndex
            hostPart = value[..<colon]
            rest = value[colon...]
        }
        if !rest.isEmpty {
            let port = rest.dropFirst()
            guard rest.first == UInt8(ascii: ":"), port.count <= 5, port.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        }
        let text = String(decoding: hostPart, as: UTF8.self)
        if value.first == UInt8(ascii: "[") { return ipv6(text) }
        guard !hostPart.isEmpty, hostPart.allSatisfy(isNameByte) else { return nil }
        return text.lowercased()
    }

    /// A host as the names are kept: lowercase, an IPv6 address in its RFC 5952 form.
    static func canonical(_ host: String) -> String {
        var bare = host
        if bare.hasPrefix("[") && bare.hasSuffix("]") { bare = String(bare.dropFirst().dropLast()) }
        return ipv6(bare) ?? bare.lowercased()
    }

    /// An IPv6 address written as inet_ntop writes it (RFC 5952), nil when `text` is none.
    static func ipv6(_ text: String) -> String? {
        guard text.contains(":") else { return nil }
        var address = in6_addr()
        guard inet_pton(AF_INET6, text, &address) == 1 else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(AF_INET6, &address, &buffer, socklen_t(buffer.count)) != nil else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self).lowercased()
    }

    /// Four decimal octets, as a browser writes every IPv4 host (WHATWG URL §3.5).
    static func isIPv4Literal(_ text: String) -> Bool {
        let octets = text.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets.allSatisfy { $0.count <= 3 && Int($0).map { (0...255).contains($0) } ?? false }
    }

    static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"): true
        default: false
        }
    }
}
