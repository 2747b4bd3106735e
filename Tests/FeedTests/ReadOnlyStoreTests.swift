import EventStore
import Glibc
import Testing

@testable import Feed

@Suite("The store opened read-only")
struct ReadOnlyStoreTests {
    @Test("SQLite URL forms name their file; other schemes are refused; PostgreSQL goes to its opener")
    func urls() throws {
        #expect(try ReadOnlyStore.sqlitePath("sqlite:/var/x.db") == "/var/x.db")
        #expect(try ReadOnlyStore.sqlitePath("sqlite:///var/x.db") == "/var/x.db")
        #expect(try ReadOnlyStore.sqlitePath("relative/x.db") == "relative/x.db")
        #expect(throws: EventStoreError(.unsupportedURL, "")) { try ReadOnlyStore.sqlitePath("http://host/x") }
        let opened = try ReadOnlyStore.open("postgres://u@h/db") { (_, _) throws(EventStoreError) -> any EventStore in MemoryStore([]) }
        #expect(opened is MemoryStore)
    }

    @Test("a missing SQLite file is an error, not a new store")
    func missing() {
        let path = "/tmp/reservoir-feed-missing-\(UInt64.random(in: 0...UInt64.max)).sqlite3"
        #expect(throws: EventStoreError.self) {
            try ReadOnlyStore.open("sqlite:" + path) { (_, _) throws(EventStoreError) -> any EventStore in MemoryStore([]) }
        }
        #expect(access(path, F_OK) != 0)
    }
}
