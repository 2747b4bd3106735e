import EventStore
import Testing

@Suite("Stored rows")
struct EventRowTests {
    static let row = EventRow(
        stored: StoredEvent(event: dinner(at: "2031-05-12T19:30:00"), sequence: 2, createdAt: 5, updatedAt: 6),
        lastMessageDate: nil, lastArrival: 6)

    @Test("a row reads back as written, one value per column")
    func roundTrip() throws {
        #expect(Self.row.values.count == EventRow.layout.columns.count)
        #expect(try EventRow(values: Self.row.values) == Self.row)
        let entry = HistoryEntry(
            key: Self.row.stored.event.key, sequence: 2, change: .refusedOtherDomain, messageID: nil,
            path: "/m/cur/1:2,S", signingDomain: "attacker.example", messageDate: -1, appliedAt: 9,
            summary: "not applied")
        #expect(entry.values.count == HistoryEntry.layout.columns.count)
        #expect(try HistoryEntry(values: entry.values) == entry)
    }

    @Test(
        "a missing, mistyped or extra value is an error",
        arguments: [
            ("title", ColumnValue.null),
            ("sequence", .text("2")),
            ("title", .integer(1)),
            ("status", .text("confirmed")),
            ("category", .text("Restaurant")),
            ("start_local", .null),
        ])
    func damaged(column: String, value: ColumnValue) throws {
        var values = Self.row.values
        let index = try #require(EventRow.layout.columns.firstIndex { $0.name == column })
        values[index] = value
        #expect(throws: EventStoreError(.invalidRow, "")) { try EventRow(values: values) }
    }

    @Test("a row of the wrong width is an error")
    func width() {
        #expect(throws: EventStoreError(.invalidRow, "")) { try EventRow(values: Array(Self.row.values.dropLast())) }
        #expect(throws: EventStoreError(.invalidRow, "")) { try EventRow(values: Self.row.values + [.null]) }
    }
}
