/// What the store remembers of one event at one calendar destination: which revision the
/// destination holds, the tag to replace it with, and the last failed attempt.
///
/// The outbox is not a queue of messages but the difference between the store and these
/// records: an event is waiting for a destination while the destination holds no revision of
/// it or an older one (``DeliveryLedger/pendingDeliveries(to:)``). Nothing is lost when a push
/// fails, a process dies mid-push or a destination is added later: the next push or
/// `reservoir sync` finds the difference again.
public struct DeliveryRecord: Sendable, Equatable {
    /// The destination's stable name (`caldav:https://…/` or `vdir:/path`).
    public var destination: String
    public var key: EventKey
    /// The UID of the destination's copy (its resource name is built from it), kept so that a
    /// forgotten event's copy can still be found.
    public var uid: String
    /// The event's SEQUENCE the destination holds; nil when it holds none yet.
    public var deliveredSequence: Int?
    /// The destination's entity tag of its copy (RFC 7232 §2.3), sent in `If-Match` with the
    /// next replacement; nil where the destination has none (a vdir) or no copy.
    public var etag: String?
    /// Failed attempts since the last success.
    public var failures: Int
    /// Why the last attempt failed, for `reservoir sync`; nil after a success.
    public var lastError: String?
    /// When the last attempt ended (Unix seconds).
    public var lastAttempt: Int64?

    public init(
        destination: String, key: EventKey, uid: String? = nil, deliveredSequence: Int?, etag: String?, failures: Int,
        lastError: String?, lastAttempt: Int64?
    ) {
        self.destination = destination
        self.key = key
        self.uid = uid ?? key.calendarUID
        self.deliveredSequence = deliveredSequence
        self.etag = etag
        self.failures = failures
        self.lastError = lastError
        self.lastAttempt = lastAttempt
    }

    /// The columns of `deliveries` a backend selects to read a record, in ``init(values:)`` order.
    public static let layout = RowLayout(
        table: "deliveries",
        columns: [
            StoreColumn("destination", .text), StoreColumn("account", .text), StoreColumn("owner", .text),
            StoreColumn("container", .text), StoreColumn("item", .text), StoreColumn("uid", .text),
            StoreColumn("delivered_sequence", .integer), StoreColumn("etag", .text),
            StoreColumn("failures", .integer),
            StoreColumn("last_error", .text), StoreColumn("last_attempt", .integer),
        ])

    /// Decodes a row read in ``layout`` order.
    public init(values: [ColumnValue]) throws(EventStoreError) {
        var row = try Self.layout.cursor(values)
        destination = try row.text()
        key = try EventKey(&row)
        // NULL: a record written before UIDs were kept, for an event with the legacy UID.
        uid = try row.optionalText() ?? key.legacyCalendarUID
        deliveredSequence = try row.optionalInteger().map { Int($0) }
        etag = try row.optionalText()
        failures = Int(try row.integer())
        lastError = try row.optionalText()
        lastAttempt = try row.optionalInteger()
    }
}

/// A stored event a destination does not hold at its current revision, with what the store
/// knows of the destination's copy (nil when nothing was ever attempted).
public struct PendingDelivery: Sendable, Equatable {
    public var event: StoredEvent
    public var record: DeliveryRecord?

    public init(event: StoredEvent, record: DeliveryRecord?) {
        self.event = event
        self.record = record
    }
}

/// How one attempt to deliver an event ended, as the ledger records it.
public enum DeliveryResult: Sendable, Equatable {
    /// The destination holds the event at `sequence` (this push stored it, or the destination
    /// already held a copy at least as new); `etag` is its tag, if it has one.
    case delivered(sequence: Int, etag: String?)
    /// Nothing was stored; the event stays waiting, and `reason` is shown by `reservoir sync`.
    case failed(reason: String)
    /// The claim is given back without an attempt (the event turned out to be up to date).
    case released
    /// The destination no longer holds the (forgotten) event: its record is removed.
    case removed
}

/// The store's side of calendar delivery: which revision each destination holds, and a claim
/// per event and destination so that processes pushing at once (parallel deliveries, several
/// hosts sharing a PostgreSQL store) push each change once.
public protocol DeliveryLedger: AnyObject {
    /// Every stored event with a start that `destination` does not hold at its current
    /// SEQUENCE, oldest change first.
    func pendingDeliveries(to destination: String) throws(EventStoreError) -> [PendingDelivery]

    /// The event `key` if `destination` does not hold its current SEQUENCE; nil when it does or
    /// when no such event is stored.
    func pendingDelivery(of key: EventKey, to destination: String) throws(EventStoreError) -> PendingDelivery?

    /// Takes the delivery of `key` (whose copy has `uid`) to `destination` for `owner` until
    /// `until` (Unix seconds). False when another owner holds an unexpired claim: that process
    /// is pushing it.
    func claimDelivery(of key: EventKey, uid: String, to destination: String, by owner: String, now: Int64, until: Int64)
        throws(EventStoreError) -> Bool

    /// Records how `owner`'s attempt ended and gives back its claim. A claim that expired and
    /// was taken by another owner meanwhile is left to that owner, and nothing is recorded.
    func finishDelivery(of key: EventKey, to destination: String, by owner: String, result: DeliveryResult, at now: Int64)
        throws(EventStoreError)

    /// Every destination's records, by destination and key.
    func deliveryRecords() throws(EventStoreError) -> [DeliveryRecord]

    /// The records of `destination` whose event is no longer stored (`reservoir forget`): copies
    /// the destination holds that must be removed there.
    func forgottenDeliveries(to destination: String) throws(EventStoreError) -> [DeliveryRecord]
}

/// The SQL both backends run for the ledger, with `?` placeholders (the PostgreSQL store
/// numbers them). Kept in one place so the backends cannot drift apart.
public enum DeliverySQL {
    /// The events of an account (parameter 2) `destination` (parameter 1) does not hold at
    /// their current sequence, with the record's columns after the event's. An event without a
    /// start (the cancellation of an event never stored) is never pending: a calendar object
    /// needs DTSTART (RFC 5545 §3.6.1), and no calendar holds an event to cancel.
    public static let pending =
        "SELECT \(prefixed(EventRow.layout, "e")), \(prefixed(DeliveryRecord.layout, "d")) FROM events e "
        + "LEFT JOIN deliveries d ON d.destination = ? AND \(sameKey("d", "e")) "
        + "WHERE e.account = ? AND e.start_text IS NOT NULL "
        + "AND (d.delivered_sequence IS NULL OR d.delivered_sequence < e.sequence) "
        + "ORDER BY e.updated_at, e.container, e.item, e.owner"

    /// One event (parameters 2 to 5: account, owner, container, item) if `destination`
    /// (parameter 1) does not hold it; an event without a start never (``pending``).
    public static let pendingOne =
        "SELECT \(prefixed(EventRow.layout, "e")), \(prefixed(DeliveryRecord.layout, "d")) FROM events e "
        + "LEFT JOIN deliveries d ON d.destination = ? AND \(sameKey("d", "e")) "
        + "WHERE \(keyIs("e")) AND e.start_text IS NOT NULL "
        + "AND (d.delivered_sequence IS NULL OR d.delivered_sequence < e.sequence)"

    /// Takes the claim (destination, account, owner, container, item, uid, claimer, until, now):
    /// a new record, or an existing one whose claim is free or expired. Returns a row when the
    /// claim was taken.
    public static let claim =
        "INSERT INTO deliveries (destination, account, owner, container, item, uid, failures, claimed_by, claimed_until) "
        + "VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?) "
        + "ON CONFLICT (destination, account, owner, container, item) DO UPDATE SET claimed_by = excluded.claimed_by, "
        + "claimed_until = excluded.claimed_until, uid = excluded.uid "
        + "WHERE deliveries.claimed_until IS NULL OR deliveries.claimed_until < ? RETURNING 1"

    /// Records a delivery (sequence, etag, now, destination, the key's four columns, claimer).
    public static let delivered =
        "UPDATE deliveries SET delivered_sequence = ?, etag = ?, failures = 0, last_error = NULL, last_attempt = ?, "
        + "claimed_by = NULL, claimed_until = NULL WHERE destination = ? AND \(keyIs()) AND claimed_by = ?"

    /// Records a failure (reason, now, destination, the key's four columns, claimer).
    public static let failed =
        "UPDATE deliveries SET failures = failures + 1, last_error = ?, last_attempt = ?, "
        + "claimed_by = NULL, claimed_until = NULL WHERE destination = ? AND \(keyIs()) AND claimed_by = ?"

    /// Gives back a claim (destination, the key's four columns, claimer).
    public static let release =
        "UPDATE deliveries SET claimed_by = NULL, claimed_until = NULL WHERE destination = ? AND \(keyIs()) AND claimed_by = ?"

    /// Removes a record once its copy is gone (destination, the key's four columns, claimer).
    public static let removed = "DELETE FROM deliveries WHERE destination = ? AND \(keyIs()) AND claimed_by = ?"

    /// The records of an account (parameter 2) at `destination` (parameter 1) whose event is no
    /// longer stored.
    public static let forgotten =
        "SELECT \(prefixed(DeliveryRecord.layout, "d")) FROM deliveries d LEFT JOIN events e "
        + "ON \(sameKey("e", "d")) WHERE d.destination = ? AND d.account = ? AND e.container IS NULL "
        + "ORDER BY d.container, d.item, d.owner"

    /// Every record of an account (parameter 1), in a stable order.
    public static let records =
        "SELECT \(DeliveryRecord.layout.names) FROM deliveries WHERE account = ? ORDER BY destination, container, item, owner"

    /// Each account with its number of events and of delivery records behind their event's
    /// sequence, ordered by account.
    public static let accounts =
        "SELECT a.account, (SELECT count(*) FROM events e WHERE e.account = a.account), "
        + "(SELECT count(*) FROM deliveries d JOIN events e ON \(sameKey("e", "d")) WHERE d.account = a.account "
        + "AND (d.delivered_sequence IS NULL OR d.delivered_sequence < e.sequence)) "
        + "FROM (SELECT account FROM events UNION SELECT account FROM deliveries) a ORDER BY a.account"

    /// `a.account = b.account AND a.owner = b.owner AND …`, column by column of the key.
    static func sameKey(_ a: String, _ b: String) -> String {
        EventKey.columns.map { "\(a).\($0) = \(b).\($0)" }.joined(separator: " AND ")
    }

    /// `account = ? AND owner = ? AND container = ? AND item = ?`, with `alias.` before each
    /// name when given.
    public static func keyIs(_ alias: String? = nil) -> String {
        EventKey.columns.map { "\(alias.map { $0 + "." } ?? "")\($0) = ?" }.joined(separator: " AND ")
    }

    /// The parameters of ``delivered``, ``failed`` or ``release`` for `result`, with the SQL.
    public static func finish(
        _ result: DeliveryResult, key: EventKey, destination: String, owner: String, now: Int64
    ) -> (sql: String, values: [ColumnValue]) {
        let tail: [ColumnValue] = [.text(destination)] + key.values + [.text(owner)]
        switch result {
        case .delivered(let sequence, let etag):
            return (delivered, [.integer(Int64(sequence)), ColumnValue(etag), .integer(now)] + tail)
        case .failed(let reason):
            return (failed, [.text(reason), .integer(now)] + tail)
        case .released:
            return (release, tail)
        case .removed:
            return (removed, tail)
        }
    }

    /// Decodes a row of ``pending`` or ``pendingOne``: the event's columns, then the record's
    /// (all NULL when the destination was never tried).
    public static func pendingRow(_ values: [ColumnValue]) throws(EventStoreError) -> PendingDelivery {
        let split = EventRow.layout.columns.count
        guard values.count == split + DeliveryRecord.layout.columns.count else {
            throw EventStoreError(.invalidRow, "a pending delivery has \(values.count) values")
        }
        let event = try EventRow(values: Array(values[..<split])).stored
        let rest = Array(values[split...])
        let record = rest.allSatisfy { $0 == .null } ? nil : try DeliveryRecord(values: rest)
        return PendingDelivery(event: event, record: record)
    }

    private static func prefixed(_ layout: RowLayout, _ alias: String) -> String {
        layout.columns.map { "\(alias).\($0.name)" }.joined(separator: ", ")
    }
}
