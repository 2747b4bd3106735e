import ReservoirBase

/// The person's choice about a sender domain no configured list names (`reservoir allow`,
/// `reservoir deny`): kept per account, in addition to the configured allowed domains.
public enum SenderChoice: String, Sendable, Equatable, CaseIterable {
    /// Its genuinely signed mail is trusted from now on, as if the domain were configured.
    case allow
    /// Its mail is refused without being kept as pending.
    case deny
}

/// One recorded choice: which domain, what, when (Unix seconds) and by whom (the local user
/// name, or `page` for the page of `reservoir serve`).
public struct SenderDecision: Sendable, Equatable {
    public var domain: String
    public var choice: SenderChoice
    public var decidedAt: Int64
    public var decidedBy: String

    public init(domain: String, choice: SenderChoice, decidedAt: Int64, decidedBy: String) {
        self.domain = domain
        self.choice = choice
        self.decidedAt = decidedAt
        self.decidedBy = decidedBy
    }
}

/// A reservation from a genuine sender the person has not chosen yet (docs/SECURITY.md,
/// "Pending senders"): shown, never in a calendar, until `reservoir allow` re-decides its
/// message with the domain allowed.
public struct PendingReservation: Sendable, Equatable {
    /// The From domain, with which the vouching DKIM signature is aligned.
    public var domain: String
    public var container: String
    public var item: String
    public var title: String
    /// The start and end as the reservation gave them (ISO 8601), for the listing.
    public var start: String?
    public var end: String?
    /// The reservation as JSON, for `reservoir pending --json`.
    public var reservationJSON: String
    public var messageID: String?
    /// When it arrived (Unix seconds): the oldest go first past the limit, and all after
    /// `pending-days`.
    public var received: Int64
    /// The message's bytes (at most ``PendingLimits/maxMessageBytes``), read again with the
    /// rules of the day the person allows the domain.
    public var message: [UInt8]

    public init(
        domain: String, container: String, item: String, title: String, start: String?, end: String?, reservationJSON: String,
        messageID: String?, received: Int64, message: [UInt8]
    ) {
        self.domain = domain
        self.container = container
        self.item = item
        self.title = title
        self.start = start
        self.end = end
        self.reservationJSON = reservationJSON
        self.messageID = messageID
        self.received = received
        self.message = message
    }
}

/// The bounds on what is kept pending (docs/RELIABILITY.md).
public enum PendingLimits {
    /// Pending reservations kept per account; past it the oldest are dropped.
    public static let maxPerAccount = 200
    /// A message larger than this is not kept pending (its reservations are refused as before).
    public static let maxMessageBytes = 1 << 20
    /// Days a pending reservation is kept when `pending-days` is not set.
    public static let defaultDays = 30
}

/// A store that keeps an account's sender choices and pending reservations. Every call reads
/// and writes the handle's account only.
public protocol SenderStore: AnyObject {
    /// The choices made for this account, by domain.
    func senderDecisions() throws(EventStoreError) -> [SenderDecision]
    /// Records a choice, replacing an earlier one for the same domain.
    func decideSender(_ decision: SenderDecision) throws(EventStoreError)
    /// Keeps `reservations` pending (a later message for the same item replaces the earlier),
    /// drops those received before `expiry`, then the oldest past
    /// ``PendingLimits/maxPerAccount``.
    func keepPending(_ reservations: [PendingReservation], expiringBefore expiry: Int64) throws(EventStoreError)
    /// The pending reservations received at or after `expiry`, oldest first.
    func pendingReservations(receivedSince expiry: Int64) throws(EventStoreError) -> [PendingReservation]
    /// Removes and returns the pending reservations of `domain`.
    func removePending(domain: String) throws(EventStoreError) -> [PendingReservation]
}

extension SenderStore {
    /// The choice recorded for `domain` (lowercased on both sides), if any.
    public func choice(for domain: String) throws(EventStoreError) -> SenderChoice? {
        let domain = domain.lowercased()
        return try senderDecisions().first { $0.domain == domain }?.choice
    }
}

/// Hexadecimal text of message bytes, the form both backends keep them in.
enum PendingMessageText {
    static func encode(_ bytes: [UInt8]) -> String {
        Hexadecimal.lowercase(bytes)
    }

    static func decode(_ text: String) -> [UInt8] {
        func value(_ c: UInt8) -> UInt8? {
            switch c {
            case 0x30...0x39: c - 0x30
            case 0x61...0x66: c - 0x61 + 10
            default: nil
            }
        }
        let utf8 = Array(text.utf8)
        var out = [UInt8]()
        out.reserveCapacity(utf8.count / 2)
        var index = 0
        while index + 1 < utf8.count {
            guard let high = value(utf8[index]), let low = value(utf8[index + 1]) else { return [] }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }
}

/// The SQL both backends share, `?`-numbered as SQLite reads it.
package enum SenderSQL {
    package static let pendingColumns =
        "domain, container, item, title, start_text, end_text, reservation_json, message_id, received, message"

    package static func pendingRow(_ text: (Int) -> String?, _ integer: (Int) -> Int64?) -> PendingReservation? {
        guard let domain = text(0), let container = text(1), let item = text(2), let title = text(3), let json = text(6),
            let received = integer(8), let message = text(9)
        else { return nil }
        return PendingReservation(
            domain: domain, container: container, item: item, title: title, start: text(4), end: text(5), reservationJSON: json,
            messageID: text(7), received: received, message: PendingMessageText.decode(message))
    }

    package static func messageText(_ bytes: [UInt8]) -> String { PendingMessageText.encode(bytes) }
}
