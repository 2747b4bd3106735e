import ReservoirBase

/// A user-id and password from an `Authorization: Basic` field (RFC 7617).
public struct BasicCredentials: Sendable, Equatable {
    /// Longest Authorization field read; longer ones are refused unread.
    public static let maximumFieldBytes = 4096

    public var user: [UInt8]
    public var password: [UInt8]

    public init(user: some Sequence<UInt8>, password: some Sequence<UInt8>) {
        self.user = Array(user)
        self.password = Array(password)
    }

    /// Reads `credentials = auth-scheme 1*SP token68` with the scheme `Basic` in any case
    /// (RFC 7235 §2.1, RFC 7617 §2); the token68 decodes to `user-id ":" password`, split at the
    /// first colon (a user-id cannot contain one). Nil for anything else.
    public init?(authorization field: String) {
        let bytes = Array(field.utf8)
        guard bytes.count <= Self.maximumFieldBytes, bytes.count > 6,
            bytes[0..<5].map(ASCII.lowercased) == Array("basic".utf8), bytes[5] == 0x20
        else { return nil }
        let token = bytes[6...].drop { $0 == 0x20 }
        let trimmed = token.reversed().drop { $0 == 0x20 || $0 == 0x09 }.reversed()
        guard let decoded = Base64Text.decode(trimmed), let colon = decoded.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        self.init(user: decoded[..<colon], password: decoded[(colon + 1)...])
    }

    /// Whether these are `expected`, compared in constant time (``ConstantTime``): both halves
    /// are always compared, so a right user with a wrong password takes as long as a wrong user.
    public func matches(_ expected: BasicCredentials) -> Bool {
        ConstantTime.both(ConstantTime.equal(user, expected.user), ConstantTime.equal(password, expected.password))
    }
}
