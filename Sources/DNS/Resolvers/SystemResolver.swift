import CResolv
import Glibc

/// TXT lookups through libresolv (`res_nquery`) with a private resolver state, so the
/// timeout and server apply to this resolver only.
///
/// The answer is read by ``DNSAnswer`` with a bounds check on every byte, so a malformed
/// response becomes a temporary failure. Not thread-safe: one state, one thread.
public final class SystemResolver: TXTResolver {
    /// Size of the answer buffer: the largest DNS message (TCP), so long key records fit;
    /// libresolv retries over TCP when the UDP answer is truncated (RFC 1035 §4.2.2).
    public static let answerBufferSize = 65_535
    /// Attempts per server before giving up (libresolv `retry`).
    public static let attempts: Int32 = 2
    /// DNS port used when a server is given without one.
    public static let defaultPort: UInt16 = 53

    /// Owned: created by `res_ninit` in the shim, released in `deinit`; nil when libresolv
    /// could not initialise, and then every lookup is a temporary failure.
    private let state: res_state?
    private let timeoutSeconds: Int

    /// Uses the servers of `/etc/resolv.conf`. `timeoutSeconds` is the wait per attempt
    /// (at least 1).
    public init(timeoutSeconds: Int) {
        self.timeoutSeconds = max(1, timeoutSeconds)
        self.state = reservoir_res_new()
        configure()
    }

    /// Uses only `server`, written `IPv4[:port]`; nil when it is not such an address.
    public init?(server: String, timeoutSeconds: Int) {
        guard let address = Self.socketAddress(server) else { return nil }
        self.timeoutSeconds = max(1, timeoutSeconds)
        self.state = reservoir_res_new()
        configure()
        // resolv.h: nsaddr_list holds IPv4 servers; nscount says how many are used.
        state?.pointee.nsaddr_list.0 = address
        state?.pointee.nscount = 1
    }

    deinit {
        reservoir_res_free(state)
    }

    private func configure() {
        guard let state else { return }
        state.pointee.retrans = Int32(clamping: timeoutSeconds)
        state.pointee.retry = Self.attempts
        // Larger UDP answers than 512 bytes save a TCP retry for 2048-bit key records.
        state.pointee.options |= UInt(RES_USE_EDNS0)
    }

    public func lookupTXT(_ name: String) -> TXTLookupResult {
        guard let state else { return .temporaryFailure("the system resolver could not be initialised") }
        // RFC 1035 §2.3.4: a name is at most 255 octets on the wire (253 written, plus a dot).
        guard !name.isEmpty, name.utf8.count <= 254, !name.utf8.contains(0) else { return .notFound }
        var answer = [UInt8](repeating: 0, count: Self.answerBufferSize)
        let length = answer.withUnsafeMutableBufferPointer { buffer in
            reservoir_res_query(state, name, Int32(DNSAnswer.typeTXT), buffer.baseAddress, Int32(buffer.count))
        }
        guard length >= 0 else { return failure(state) }
        let parsed: DNSAnswer
        do {
            parsed = try DNSAnswer(Array(answer[0..<min(Int(length), answer.count)]))
        } catch {
            return .temporaryFailure("unreadable DNS answer for \(name): \(error)")
        }
        switch parsed.responseCode {
        case .noError:
            if parsed.txtRecords.isEmpty { return .notFound }
            return .found(parsed.txtRecords.map { String(decoding: $0, as: UTF8.self) })
        case .nameError:
            return .notFound
        case .serverFailure:
            return .temporaryFailure("SERVFAIL for \(name)")
        case .other(let code):
            return .temporaryFailure("DNS response code \(code) for \(name)")
        }
    }

    /// `res_nquery` returned -1: the reason is in the state's `h_errno` (netdb.h).
    private func failure(_ state: res_state) -> TXTLookupResult {
        switch reservoir_h_errno(state) {
        case HOST_NOT_FOUND, NO_DATA:  // NXDOMAIN, or NOERROR without answers
            return .notFound
        case TRY_AGAIN:
            return .temporaryFailure("DNS server failure or timeout")
        case NO_RECOVERY:
            return .temporaryFailure("DNS server refused the query")
        case let code:
            return .temporaryFailure("DNS lookup failed (h_errno \(code))")
        }
    }

    /// `a.b.c.d` or `a.b.c.d:port` → a `sockaddr_in`.
    static func socketAddress(_ text: String) -> sockaddr_in? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 1 || parts.count == 2 else { return nil }
        var port = Self.defaultPort
        if parts.count == 2 {
            guard let value = UInt16(parts[1]), value > 0 else { return nil }
            port = value
        }
        var address = in_addr()
        guard inet_pton(AF_INET, String(parts[0]), &address) == 1 else { return nil }
        var socket = sockaddr_in()
        socket.sin_family = sa_family_t(AF_INET)
        socket.sin_port = port.bigEndian
        socket.sin_addr = address
        return socket
    }
}
