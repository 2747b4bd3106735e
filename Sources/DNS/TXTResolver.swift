import ReservoirBase

/// The outcome of one TXT lookup.
public enum TXTLookupResult: Sendable, Equatable {
    /// One string per TXT record, its character-strings concatenated (RFC 6376 §3.6.2.2).
    case found([String])
    /// The name does not exist (NXDOMAIN) or has no TXT record (NODATA).
    case notFound
    /// The lookup could not be completed (SERVFAIL, timeout, unreadable answer); the reason
    /// says which. A caller must not treat this as "no key" (RFC 6376 §6.1.2: TEMPFAIL).
    case temporaryFailure(String)
}

/// Something that answers TXT queries: the system resolver, a keys file, a cache.
///
/// Resolvers are used from one thread at a time (one per run); they are not `Sendable`.
public protocol TXTResolver: AnyObject {
    func lookupTXT(_ name: String) -> TXTLookupResult
}

/// DNS names compare case-insensitively (RFC 4343) and a trailing dot only marks them as
/// absolute; this is the form resolvers key their records by.
enum DomainName {
    static func normalized(_ name: some StringProtocol) -> String {
        var bytes = Array(name.utf8)
        // Names are ASCII (IDNA A-labels): folded on bytes, without Unicode case tables.
        guard bytes.allSatisfy({ $0 < 0x80 }) else {
            var text = String(name).lowercased()
            while text.hasSuffix(".") { text.removeLast() }
            return text
        }
        while bytes.last == UInt8(ascii: ".") { bytes.removeLast() }
        for i in bytes.indices { bytes[i] = ASCII.lowercased(bytes[i]) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether the ASCII name `name` normalizes to `key` (a normalized name's bytes), decided
    /// without building its normalized form; nil when `name` is not ASCII.
    static func asciiName(_ name: ArraySlice<UInt8>, normalizesTo key: [UInt8]) -> Bool? {
        guard !name.contains(where: { $0 >= 0x80 }) else { return nil }
        var end = name.endIndex
        while end > name.startIndex, name[end - 1] == UInt8(ascii: ".") { end -= 1 }
        return end - name.startIndex == key.count && zip(name[..<end], key).allSatisfy { ASCII.lowercased($0) == $1 }
    }
}
