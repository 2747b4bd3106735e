import ReservoirBase

/// One row of the `events` table: the stored event and the message that last changed it,
/// whose `Date:` and arrival order the next version (``EventRevision``). Every backend
/// selects, writes and decodes it through ``layout``, ``values`` and ``init(values:)``.
public struct EventRow: Sendable, Equatable {
    public var stored: StoredEvent
    /// The `Date:` of the message that last changed the event (Unix seconds).
    public var lastMessageDate: Int64?
    /// When that message was handled (Unix seconds).
    public var lastArrival: Int64?

    public init(stored: StoredEvent, lastMessageDate: Int64?, lastArrival: Int64?) {
        self.stored = stored
        self.lastMessageDate = lastMessageDate
        self.lastArrival = lastArrival
    }

    /// The columns of `events`, in the order of ``values`` and ``init(values:)``.
    public static let layout = RowLayout(
        table: "events",
        columns: [
            StoreColumn("account", .text), StoreColumn("owner", .text), StoreColumn("container", .text),
            StoreColumn("item", .text), StoreColumn("category", .text), StoreColumn("title", .text),
            StoreColumn("start_text", .text), StoreColumn("start_local", .text),
            StoreColumn("start_offset", .integer), StoreColumn("start_epoch", .integer), StoreColumn("start_zone", .text),
            StoreColumn("end_text", .text), StoreColumn("end_local", .text),
            StoreColumn("end_offset", .integer), StoreColumn("end_epoch", .integer), StoreColumn("end_zone", .text),
            StoreColumn("location", .text), StoreColumn("notes", .text), StoreColumn("url", .text),
            StoreColumn("status", .text), StoreColumn("checkin_opens", .integer), StoreColumn("checkin_closes", .integer),
            StoreColumn("reservation_json", .text), StoreColumn("sequence", .integer), StoreColumn("uid", .text),
            StoreColumn("created_at", .integer), StoreColumn("updated_at", .integer),
            StoreColumn("last_message_date", .integer), StoreColumn("last_arrival", .integer), StoreColumn("proof", .text),
        ])

    /// The row's values in ``layout`` order.
    public var values: [ColumnValue] {
        let e = stored.event
        var values: [ColumnValue] = e.key.values + [.text(e.category.rawValue), .text(e.title)]
        for time in [e.start, e.end] {
            values += [
                ColumnValue(time?.text), ColumnValue(time?.local), ColumnValue(time?.offsetSeconds), ColumnValue(time?.epochSeconds),
                ColumnValue(time?.zone),
            ]
        }
        values += [
            ColumnValue(e.location), .text(e.notes), ColumnValue(e.url), .text(e.status.rawValue),
            ColumnValue(e.checkinOpens), ColumnValue(e.checkinCloses), .text(e.reservationJSON),
            .integer(Int64(stored.sequence)), .text(stored.uid),
            .integer(stored.createdAt), .integer(stored.updatedAt), ColumnValue(lastMessageDate), ColumnValue(lastArrival),
            ColumnValue(stored.proof?.storedText),
        ]
        return values
    }

    /// Decodes a row read in ``layout`` order; a missing or mistyped value, or a category or
    /// status this build does not know, is an `.invalidRow` error.
    public init(values: [ColumnValue]) throws(EventStoreError) {
        var row = try Self.layout.cursor(values)
        let key = try EventKey(&row)
        let category = try row.word(EventCategory.init(rawValue:))
        let title = try row.text()
        let start = try Self.time(&row)
        let end = try Self.time(&row)
        let event = CalendarEvent(
            key: key, category: category, title: title, start: start, end: end,
            location: try row.optionalText(), notes: try row.text(), url: try row.optionalText(),
            status: try row.word(EventStatus.init(rawValue:)),
            checkinOpens: try row.optionalInteger(), checkinCloses: try row.optionalInteger(),
            reservationJSON: try row.text())
        let sequence = try row.integer()
        guard let revision = Int(exactly: sequence), revision >= 0 else {
            throw EventStoreError(.invalidRow, "events.sequence of \(key) is \(sequence)")
        }
        // A NULL uid is an event stored before UIDs were kept: it keeps the UID it was pushed with.
        let uid = try row.optionalText() ?? key.legacyCalendarUID
        stored = StoredEvent(event: event, sequence: revision, uid: uid, createdAt: try row.integer(), updatedAt: try row.integer())
        lastMessageDate = try row.optionalInteger()
        lastArrival = try row.optionalInteger()
        if let proof = try row.optionalText() {
            guard let read = EventProof(storedText: proof) else {
                throw EventStoreError(.invalidRow, "events.proof of \(key) holds “\(proof)”, which this reservoir does not know")
            }
            stored.proof = read
        }
    }

    /// A time's five columns: none, or the text with its civil time (offset and instant only
    /// when the text had an offset or a zone was found; the zone only in the latter case).
    private static func time(_ row: inout RowCursor) throws(EventStoreError) -> EventTime? {
        let text = try row.optionalText()
        let local = try row.optionalText()
        let offset = try row.optionalInteger()
        let epoch = try row.optionalInteger()
        let zone = try row.optionalText()
        guard let text else { return nil }
        guard let local else {
            throw EventStoreError(.invalidRow, "events: a time “\(text)” without its civil time")
        }
        var offsetSeconds: Int?
        if let offset {
            guard let seconds = Int(exactly: offset) else {
                throw EventStoreError(.invalidRow, "events: the offset of “\(text)” is out of range")
            }
            offsetSeconds = seconds
        }
        return EventTime(text: text, local: local, offsetSeconds: offsetSeconds, epochSeconds: epoch, zone: zone)
    }
}

extension HistoryEntry {
    /// The columns of `history` (without its own `id`), in the order of ``values`` and
    /// ``init(values:)``.
    public static let layout = RowLayout(
        table: "history",
        columns: [
            StoreColumn("account", .text), StoreColumn("owner", .text), StoreColumn("container", .text),
            StoreColumn("item", .text), StoreColumn("sequence", .integer), StoreColumn("change", .text), StoreColumn("message_id", .text),
            StoreColumn("path", .text),
            StoreColumn("signing_domain", .text), StoreColumn("message_date", .integer),
            StoreColumn("applied_at", .integer), StoreColumn("summary", .text),
        ])

    /// The entry's values in ``layout`` order.
    public var values: [ColumnValue] {
        [
            .text(key.account.address), .text(key.owner.storedText), .text(key.container), .text(key.item), .integer(Int64(sequence)),
            .text(change.rawValue),
            ColumnValue(messageID), ColumnValue(path), ColumnValue(signingDomain), ColumnValue(messageDate),
            .integer(appliedAt), .text(summary),
        ]
    }

    /// Decodes a row read in ``layout`` order; the change's word is read with its older
    /// spellings (``EventChangeKind/init(storedWord:)``).
    public init(values: [ColumnValue]) throws(EventStoreError) {
        var row = try Self.layout.cursor(values)
        let key = try EventKey(&row)
        let sequence = try row.integer()
        guard let revision = Int(exactly: sequence), revision >= 0 else {
            throw EventStoreError(.invalidRow, "history.sequence of \(key) is \(sequence)")
        }
        self.init(
            key: key, sequence: revision, change: try row.word(EventChangeKind.init(storedWord:)),
            messageID: try row.optionalText(), path: try row.optionalText(), signingDomain: try row.optionalText(),
            messageDate: try row.optionalInteger(), appliedAt: try row.integer(), summary: try row.text())
    }
}

extension EventKey {
    /// The key's columns (`account`, `owner`, `container`, `item`), in every table that holds a key.
    public static let columns = ["account", "owner", "container", "item"]

    /// The key's values in ``columns`` order.
    public var values: [ColumnValue] { [.text(account.address), .text(owner.storedText), .text(container), .text(item)] }

    /// Reads the key's four columns; an owner whose text names none (``BookingOwner/init(storedText:)``)
    /// is an invalid row, never read as a domain.
    init(_ row: inout RowCursor) throws(EventStoreError) {
        let account = Account(normalizedAddress: try row.text())
        let text = try row.text()
        guard let owner = BookingOwner(storedText: text) else {
            throw EventStoreError(.invalidRow, "the owner “\(text)” is neither a domain, a pass type nor a railway")
        }
        self.init(account: account, owner: owner, container: try row.text(), item: try row.text())
    }
}
