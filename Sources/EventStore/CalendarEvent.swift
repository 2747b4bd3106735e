public import ReservoirBase

/// Whose bookings a store holds: a mailbox address, its local part as given and its domain
/// lowercased in A-labels, or the one implicit account of a single-user store. A store is
/// opened for one account, and every read and write it does is that account's alone.
public struct Account: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The address; empty for the implicit account.
    public let address: String

    /// The account of a single-user installation: stores written before accounts hold their
    /// events under it, and a command without `--account` uses it.
    public static let implicit = Account(normalizedAddress: "")

    /// An account whose address is already normalized (local part as given, domain in
    /// lowercase A-labels: the caller converts U-labels).
    public init(normalizedAddress: String) {
        address = normalizedAddress
    }

    public var isImplicit: Bool { address.isEmpty }

    public var description: String { isImplicit ? "(the implicit account)" : address }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.address < rhs.address }
}

/// Identifies one calendar event: who vouched for the booking (its owner), the booking
/// (container) and the part of it (item), as Apple's reservation API does with a container and
/// an item reference. Bookings are keyed per owner, so no owner can create, update or cancel
/// another's booking by using its number (docs/SECURITY.md, "Ownership of a booking").
public struct EventKey: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// Whose booking it is. A store sets it: it reads and writes its own account's keys only,
    /// whatever account a key handed to it names.
    public let account: Account
    /// The proof's owner: the vouching domain (the pass type's linked domain), a Wallet pass
    /// type with no linked domain, a railway, or ``BookingOwner/unproven`` for a booking
    /// trusted without a proof (`--allow-unverified`).
    public let owner: BookingOwner
    public let container: String
    public let item: String

    public init(account: Account = .implicit, owner: BookingOwner, container: String, item: String) {
        self.account = account
        self.owner = owner
        self.container = container
        self.item = item
    }

    /// `container/item`, the name people use (`reservoir forget`, `history`).
    public var description: String { "\(container)/\(item)" }

    /// The same booking item under `owner`.
    public func owned(by owner: BookingOwner) -> EventKey {
        EventKey(account: account, owner: owner, container: container, item: item)
    }

    /// The same booking item in `account`'s bookings.
    public func inAccount(_ account: Account) -> EventKey {
        EventKey(account: account, owner: owner, container: container, item: item)
    }

    /// A globally unique, stable identifier for a new event (RFC 5545 §3.8.4.7), readable as
    /// the booking's own words: `RA-9F3Z7K_EC15-ZurichHB-2031-07-14_railalpina.example@reservoir`.
    /// The parts (booking, item, owner when there is one) are joined by `_`; in each, ASCII
    /// letters, digits and `- . ~` stay as written (RFC 3986 §2.3's unreserved characters but
    /// the separator) and every other byte of its UTF-8 form is written `%XX` — `_` and `%`
    /// themselves, `@`, `/` (a vdir's file name and a CalDAV resource name are the UID),
    /// spaces and controls, and non-ASCII letters, which file systems and servers may store in
    /// another Unicode normalization — so two different keys never share a UID. An event keeps
    /// the UID it was created with (``StoredEvent/uid``): one created before UIDs were readable
    /// keeps its `%2D`s, and its calendar copies are updated in place.
    public var calendarUID: String {
        let parts = owner.isProven ? [container, item, owner.storedText] : [container, item]
        return parts.map(Self.readableUIDPart).joined(separator: "_") + "@reservoir"
    }

    /// The UID of events stored before bookings were keyed per owner (schema 4 and earlier):
    /// the booking and the item only, each part escaped as UIDs then were (``legacyUIDPart(_:)``).
    /// Those events keep it, so calendars holding them are updated in place rather than given
    /// a second copy.
    public var legacyCalendarUID: String { "\(Self.legacyUIDPart(container))-\(Self.legacyUIDPart(item))@reservoir" }

    /// A part of a readable UID (``calendarUID``).
    static func readableUIDPart(_ s: String) -> String {
        escapedUIDPart(s) { byte in
            ASCII.isLetter(byte) || ASCII.isDigit(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
                || byte == UInt8(ascii: "~")
        }
    }

    /// A part of a UID as they were made before they were readable: ASCII letters, digits,
    /// `.` and `_` kept, every other byte `%XX`, the `-` that joined the parts included.
    static func legacyUIDPart(_ s: String) -> String {
        escapedUIDPart(s) { byte in ASCII.isLetter(byte) || ASCII.isDigit(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") }
    }

    static func escapedUIDPart(_ s: String, keeping kept: (UInt8) -> Bool) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(s.utf8.count)
        for byte in s.utf8 {
            if kept(byte) {
                out.append(byte)
            } else {
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.container, lhs.item, lhs.owner, lhs.account.address) < (rhs.container, rhs.item, rhs.owner, rhs.account.address)
    }
}

/// RFC 5545 §3.8.1.11 event status.
public enum EventStatus: String, Sendable, Equatable {
    case confirmed = "CONFIRMED"
    case tentative = "TENTATIVE"
    case cancelled = "CANCELLED"
}

/// A point in time as the reservation wrote it: the text, and when an offset was given or a
/// zone was found the instant; without either the time is wall-clock ("floating", RFC 5545
/// §3.3.5 form 1).
public struct EventTime: Sendable, Equatable {
    /// The ISO 8601 text as written in the markup.
    public let text: String
    /// Civil date and time as written: `YYYY-MM-DDTHH:MM:SS`.
    public let local: String
    /// Seconds east of UTC, nil for floating time.
    public let offsetSeconds: Int?
    /// Unix time, nil for floating time.
    public let epochSeconds: Int64?
    /// The IANA zone (`Europe/Zurich`) the time was read in, when a zone was found for a time
    /// written without offset; ``offsetSeconds`` and ``epochSeconds`` are then that zone's. For
    /// a time with its own offset, the zone of its place (an airport, a station) when that zone
    /// shows the same offset at that instant. Nil otherwise and for floating time.
    public let zone: String?

    public init(text: String, local: String, offsetSeconds: Int?, epochSeconds: Int64?, zone: String? = nil) {
        self.text = text
        self.local = local
        self.offsetSeconds = offsetSeconds
        self.epochSeconds = epochSeconds
        self.zone = zone
    }

    /// For ordering and "upcoming" checks: the instant, or the wall-clock time read as UTC.
    public var sortKey: Int64 {
        if let epochSeconds { return epochSeconds }
        return CivilTime.epochSeconds(ofLocal: local) ?? 0
    }
}

/// What the store keeps for one reservation item: the event as a calendar shows it.
public struct CalendarEvent: Sendable, Equatable {
    public var key: EventKey
    public var category: EventCategory
    public var title: String
    public var start: EventTime?
    public var end: EventTime?
    public var location: String?
    public var notes: String
    public var url: String?
    public var status: EventStatus
    /// Online check-in window (a flight with `checkinUrl`), Unix seconds.
    public var checkinOpens: Int64?
    public var checkinCloses: Int64?
    /// The reservation as schema.org JSON-LD, for `events --json`.
    public var reservationJSON: String

    public init(
        key: EventKey, category: EventCategory, title: String, start: EventTime?, end: EventTime?,
        location: String?, notes: String, url: String?, status: EventStatus,
        checkinOpens: Int64? = nil, checkinCloses: Int64? = nil, reservationJSON: String
    ) {
        self.key = key
        self.category = category
        self.title = title
        self.start = start
        self.end = end
        self.location = location
        self.notes = notes
        self.url = url
        self.status = status
        self.checkinOpens = checkinOpens
        self.checkinCloses = checkinCloses
        self.reservationJSON = reservationJSON
    }
}

extension EventKey {
    /// The key a store files a booking item under: `account`'s, owned by the proof that
    /// vouched for `message` (``MessageProvenance/owner``), so a caller cannot file one
    /// person's or one owner's booking under another.
    public func filed(for message: MessageProvenance, in account: Account) -> EventKey {
        EventKey(account: account, owner: message.owner, container: container, item: item)
    }
}

/// The kind of proof that vouched for a message, kept with the event it last changed so a
/// reader can say how a booking is vouched for: mail signed by its sender (DKIM, verified
/// here), mail whose sender's signature an ARC sealer the user trusts vouched for (RFC 8617),
/// or a Wallet pass signed by its pass type's certificate.
public enum EventProof: Sendable, Equatable {
    /// A DKIM signature of the message, verified here.
    case signedMail
    /// The DKIM result an ARC sealer recorded (`--trust-arc-sealer`): the sealer's word.
    case arc(sealer: String)
    /// A Wallet pass's signature, by the certificate of this pass type.
    case signedPass(passType: String)
    /// A page fetched over verified https (`reservoir add URL`) from a host of this registered domain.
    case page(domain: String)
    /// A rail ticket's bar code signed by this railway (its RICS code), verified against the
    /// UIC key list (`--rail-keys`).
    case signedRailTicket(railway: String)

    /// The word stored in the `proof` column: `mail`, `arc:SEALER`, `pass:TYPE`, `page:DOMAIN`,
    /// `rail:RICS`.
    public var storedText: String {
        switch self {
        case .signedMail: "mail"
        case .arc(let sealer): "arc:" + sealer
        case .signedPass(let passType): "pass:" + passType
        case .page(let domain): "page:" + domain
        case .signedRailTicket(let railway): "rail:" + railway
        }
    }

    /// The proof a stored word names; nil for a word this build does not know.
    public init?(storedText text: String) {
        if text == "mail" {
            self = .signedMail
        } else if text.hasPrefix("arc:"), text.count > 4 {
            self = .arc(sealer: String(text.dropFirst(4)))
        } else if text.hasPrefix("pass:"), text.count > 5 {
            self = .signedPass(passType: String(text.dropFirst(5)))
        } else if text.hasPrefix("page:"), text.count > 5 {
            self = .page(domain: String(text.dropFirst(5)))
        } else if text.hasPrefix("rail:"), text.count > 5 {
            self = .signedRailTicket(railway: String(text.dropFirst(5)))
        } else {
            return nil
        }
    }
}

/// The message a change came from, recorded with every change.
public struct MessageProvenance: Sendable, Equatable {
    public var messageID: String?
    public var path: String?
    /// Who vouched for the message, and so owns what it books (``EventKey/owner``): the DKIM
    /// `d=` domain, a pass type or the domain it is linked to, a railway;
    /// ``BookingOwner/unproven`` when trusted without a proof.
    public var owner: BookingOwner
    /// When the message was sent by signed evidence (the signed `Date:`, else the signature's
    /// `t=`), as Unix seconds; orders versions of one reservation. Nil when nothing signed says.
    public var messageDate: Int64?
    /// When this process handled it (Unix seconds); breaks ties between equal dates.
    public var arrival: Int64
    /// The kind of proof behind ``owner``; nil when trusted without one.
    public var proof: EventProof?

    public init(
        messageID: String?, path: String?, owner: BookingOwner, messageDate: Int64?, arrival: Int64, proof: EventProof? = nil
    ) {
        self.messageID = messageID
        self.path = path
        self.owner = owner
        self.messageDate = messageDate
        self.arrival = arrival
        self.proof = proof
    }
}

/// An event as stored, with its revision number (RFC 5545 SEQUENCE).
public struct StoredEvent: Sendable, Equatable {
    public var event: CalendarEvent
    public var sequence: Int
    /// The event's iCalendar UID, fixed when it was created (``EventKey/calendarUID``).
    public var uid: String
    public var createdAt: Int64
    public var updatedAt: Int64
    /// The kind of proof behind the message that last changed the event; nil when it was
    /// trusted without one, or stored before the store kept it (schema 6 and earlier).
    public var proof: EventProof?

    public init(
        event: CalendarEvent, sequence: Int, uid: String? = nil, createdAt: Int64, updatedAt: Int64, proof: EventProof? = nil
    ) {
        self.event = event
        self.sequence = sequence
        self.uid = uid ?? event.key.calendarUID
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.proof = proof
    }

    /// Who vouched for the booking (``EventKey/owner``).
    public var owner: BookingOwner { event.key.owner }
}

extension Sequence<StoredEvent> {
    /// Ordered as ``EventStore/events()`` lists them: by start (the instant, or the wall-clock
    /// time read as UTC; no start first), then by key.
    public func sortedByStart() -> [StoredEvent] {
        sorted { ($0.event.start?.sortKey ?? 0, $0.event.key) < ($1.event.start?.sortKey ?? 0, $1.event.key) }
    }
}

/// What applying one reservation did to the store.
public enum EventChange: Sendable, Equatable {
    case created(StoredEvent)
    /// The event changed; `previous` is how it looked before.
    case updated(StoredEvent, previous: StoredEvent)
    case cancelled(StoredEvent, previous: StoredEvent?)
    /// Same content as stored, or the same message again: nothing changed.
    case unchanged(StoredEvent)
    /// The message is older than the one the event was last changed by.
    case olderThanStored(StoredEvent)

    public var stored: StoredEvent {
        switch self {
        case .created(let e), .updated(let e, _), .cancelled(let e, _), .unchanged(let e),
            .olderThanStored(let e):
            return e
        }
    }

    /// What this change was.
    public var changeKind: EventChangeKind {
        switch self {
        case .created: .created
        case .updated: .updated
        case .cancelled: .cancelled
        case .unchanged: .unchanged
        case .olderThanStored: .olderThanStored
        }
    }

    /// A stable word for JSON and logs: ``changeKind``'s raw value.
    public var kind: String { changeKind.rawValue }
}

/// One line of an event's history: which message changed it, and how.
public struct HistoryEntry: Sendable, Equatable {
    public var key: EventKey
    public var sequence: Int
    public var change: EventChangeKind
    public var messageID: String?
    public var path: String?
    /// The owner of the message that made the change, as the `signing_domain` column holds
    /// it (``BookingOwner/storedText``); nil when nothing vouched (`--allow-unverified`, a
    /// `forget`). A record of the change, kept as written even when older than the owner codec.
    public var signingDomain: String?
    public var messageDate: Int64?
    public var appliedAt: Int64
    public var summary: String

    public init(
        key: EventKey, sequence: Int, change: EventChangeKind, messageID: String?, path: String?,
        signingDomain: String?, messageDate: Int64?, appliedAt: Int64, summary: String
    ) {
        self.key = key
        self.sequence = sequence
        self.change = change
        self.messageID = messageID
        self.path = path
        self.signingDomain = signingDomain
        self.messageDate = messageDate
        self.appliedAt = appliedAt
        self.summary = summary
    }
}
