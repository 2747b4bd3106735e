import EventStorePostgres
import Foundation
import PostgresTestSupport
import ReservoirBase
import Testing

@testable import EventStore

/// The backends the shared contract runs against: SQLite always, PostgreSQL when the server
/// binaries are installed.
enum StoreBackend: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite
    case postgres

    static var available: [StoreBackend] { PostgresServer.isAvailable ? allCases : [.sqlite] }

    var testDescription: String { rawValue }

    /// A fresh, empty store: a new file, or a new database on the shared server.
    func makeStore() throws -> FreshStore {
        switch self {
        case .sqlite:
            let directory = NSTemporaryDirectory() + "reservoir-contract-\(UUID().uuidString)"
            let path = directory + "/events.sqlite3"
            let store = try SQLiteEventStore(path: path)
            return FreshStore(
                store: store, reopen: { try SQLiteEventStore(path: path) }, scoped: { store.scoped(to: $0) },
                sql: { statement in
                    try SQLiteDatabase(path: path, busyTimeoutMilliseconds: 1000).prepare(statement).rows()
                        .map { $0.text(0) ?? "" }
                },
                cleanup: { try? FileManager.default.removeItem(atPath: directory) })
        case .postgres:
            // As an ordinary role, as a site runs it: the row-level security policies apply
            // to every statement of the contract (a superuser would bypass them).
            let server = try PostgresServer.shared.get()
            let (url, superuserURL) = try server.makeDatabase(ownedBy: PostgresServer.ordinaryRole)
            let store = try PostgresEventStore(url: url)
            return FreshStore(
                store: store, reopen: { try PostgresEventStore(url: url) }, scoped: { store.scoped(to: $0) },
                sql: { statement in try server.psqlColumn(url: superuserURL, statement) },
                cleanup: {})
        }
    }
}

struct FreshStore {
    let store: any EventStore
    /// Opens a second, independent handle on the same store (another process would).
    let reopen: () throws -> any EventStore
    /// The same store holding another account's bookings.
    let scoped: (Account) -> any EventStore
    /// Runs SQL on the store's database directly, behind the store's back; the first column
    /// of each row it returns, as text.
    let sql: (String) throws -> [String]
    let cleanup: () -> Void
}

func dinner(
    at local: String, offset: Int = -7 * 3600, status: EventStatus = .confirmed,
    container: String = "IWDSCA", item: String = "1", title: String = "Reservation: EPIC Steak"
) -> CalendarEvent {
    let epoch = CivilTime.epochSeconds(ofLocal: local).map { $0 - Int64(offset) }
    let sign = offset < 0 ? "-" : "+"
    let hours = abs(offset) / 3600
    let text = local + sign + (hours < 10 ? "0" : "") + String(hours) + ":00"
    return CalendarEvent(
        key: EventKey(owner: .domain("epicsteak.example"), container: container, item: item), category: .food, title: title,
        start: EventTime(text: text, local: local, offsetSeconds: offset, epochSeconds: epoch),
        end: nil, location: "EPIC Steak, 369 The Embarcadero, San Francisco", notes: "Party of 2",
        url: nil, status: status, reservationJSON: "{}")
}

func message(_ id: String?, date: Int64?, domain: String? = "epicsteak.example", arrival: Int64 = 100) -> MessageProvenance {
    MessageProvenance(messageID: id, path: nil, owner: domain.map(BookingOwner.domain) ?? .unproven, messageDate: date, arrival: arrival)
}
