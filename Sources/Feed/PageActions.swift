import COpenSSL
public import EventStore
import ReservoirBase

/// What the page's forms ask for (`reservoir serve --actions`), always for the account the
/// request's access decided, never one the form names.
public enum PageAction: Sendable, Equatable {
    /// `reservoir add URL`: a confirmation page by its https address.
    case add(url: String)
    /// `reservoir allow DOMAIN`: trust a pending sender and import what it sent.
    case allow(domain: String)
    /// `reservoir deny DOMAIN`: drop a pending sender's reservations and refuse its mail.
    case deny(domain: String)

    /// The path below the page (`/<token>/add`) each form posts to.
    public static let paths = ["/add": "add", "/allow": "allow", "/deny": "deny"]
}

/// What an action did, for the person who pressed the button.
public struct PageActionResult: Sendable, Equatable {
    public var succeeded: Bool
    /// One or a few lines for people; any text from the network is escaped when shown.
    public var summary: String

    public init(succeeded: Bool, summary: String) {
        self.succeeded = succeeded
        self.summary = summary
    }

    /// The answer to Trust, in words (no item ids): `Reservations from airline.example are now
    /// trusted: 2 added (Flight to Lisbon; Hotel Lisboa).`, and a sentence for each message
    /// that today's rules no longer take, with the reason.
    public static func trusted(domain: String, added titles: [String], notAdded: [(message: String, reason: String)]) -> Self {
        var text = "Reservations from \(domain) are now trusted: "
        switch titles.count {
        case 0: text += "nothing waiting was added."
        case 1: text += "1 added (\(titles[0]))."
        default: text += "\(titles.count) added (\(titles.prefix(5).joined(separator: "; "))\(titles.count > 5 ? "; …" : ""))."
        }
        for refused in notAdded.prefix(5) { text += "\nNot added, “\(refused.message)”: \(refused.reason)." }
        return Self(succeeded: true, summary: text)
    }

    /// The answer to Dismiss, in words: `Reservations from newsletter.example are now refused:
    /// 1 waiting dropped.`
    public static func refused(domain: String, dropped: Int) -> Self {
        Self(
            succeeded: true,
            summary: "Reservations from \(domain) are now refused: \(dropped) waiting \(dropped == 1 ? "reservation" : "reservations") dropped."
        )
    }
}

/// The page's forms: who runs an action, and the secret of their anti-forgery tokens.
public struct PageActions: Sendable {
    /// Runs one action for an account (nil: the server's one account); the program runs
    /// `reservoir add|allow|deny`, so the rules of the command line hold unchanged.
    public typealias Runner = @Sendable (PageAction, Account?) -> PageActionResult?

    public let run: Runner
    /// A random key made when the server starts: a form from an earlier run is refused.
    let secret: [UInt8]

    public init(secret: [UInt8], run: @escaping Runner) {
        self.secret = secret
        self.run = run
    }

    /// A new 32-byte key from OpenSSL's generator (RAND_bytes), nil when it has no entropy.
    public static func randomSecret() -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: 32)
        guard RAND_bytes(&bytes, Int32(bytes.count)) == 1 else { return nil }
        return bytes
    }

    /// The anti-forgery token of an account's forms: HMAC-SHA256 (RFC 2104) of the account
    /// under the server's key, in hexadecimal. Another site cannot read the page to learn it
    /// (the same-origin policy), so a form it makes a browser post carries none — the
    /// synchronizer token pattern, beside the Origin check of ``FeedService``.
    public func token(for account: Account?) -> String {
        let message = Array("reservoir-serve-form:\(account?.address ?? "")".utf8)
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        _ = secret.withUnsafeBytes { key in
            message.withUnsafeBytes { data in
                HMAC(
                    EVP_sha256(), key.baseAddress, Int32(key.count), data.baseAddress?.assumingMemoryBound(to: UInt8.self), data.count,
                    &output, &length)
            }
        }
        return Hexadecimal.lowercase(output.prefix(Int(length)))
    }
}

/// A pending sender as the page offers it: the domain and how many reservations wait.
public struct PendingSender: Sendable, Equatable {
    public var domain: String
    public var count: Int
    public var titles: [String]

    public init(domain: String, count: Int, titles: [String]) {
        self.domain = domain
        self.count = count
        self.titles = titles
    }

    /// Grouped by domain, in the order of the domain names.
    public static func grouped(_ pending: [PendingReservation]) -> [PendingSender] {
        var byDomain: [String: [PendingReservation]] = [:]
        for reservation in pending { byDomain[reservation.domain, default: []].append(reservation) }
        return byDomain.keys.sorted().map { domain in
            let reservations = byDomain[domain] ?? []
            return PendingSender(domain: domain, count: reservations.count, titles: reservations.prefix(3).map(\.title))
        }
    }
}

/// An `application/x-www-form-urlencoded` body (the WHATWG URL standard, §5.1): `name=value`
/// pairs joined by `&`, `+` for a space, percent-encoded UTF-8.
public enum FormBody {
    /// The largest body read: an address and a token fit many times over.
    public static let maxBytes = 8192

    /// The pairs, nil for a body over ``maxBytes``, malformed percent-encoding or text that
    /// is not UTF-8.
    public static func read(_ body: [UInt8]) -> [String: String]? {
        guard body.count <= maxBytes else { return nil }
        var fields: [String: String] = [:]
        for pair in body.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let equals = pair.firstIndex(of: UInt8(ascii: "=")) ?? pair.endIndex
            guard let name = decode(pair[pair.startIndex..<equals]),
                let value = decode(equals == pair.endIndex ? [] : pair[pair.index(after: equals)...])
            else { return nil }
            // A field given twice is ambiguous: which one a reader takes is not for the sender to steer.
            guard fields[name] == nil else { return nil }
            fields[name] = value
        }
        return fields
    }

    static func decode(_ bytes: some Collection<UInt8>) -> String? {
        let spaced = bytes.map { $0 == UInt8(ascii: "+") ? UInt8(ascii: " ") : $0 }
        guard let decoded = PercentEncoding.decoded(spaced) else { return nil }
        return String(validating: decoded, as: UTF8.self)
    }
}
