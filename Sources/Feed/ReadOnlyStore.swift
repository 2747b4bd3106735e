public import EventStore
import ReservoirBase

/// Opens the store `--store` names for reading only, for a server that reads what other
/// processes write and must never create, migrate or lock it for writing.
///
/// The URL forms are `EventStoreLocation.open`'s: `sqlite:PATH`, `sqlite://PATH`, a plain path,
/// nothing for the default path, `postgres://…` through the caller's opener (libpq has no
/// read-only connection; the PostgreSQL store only reads here). An SQLite store is opened
/// read-only and must exist. Kept apart from `EventStoreLocation` so that the programs that
/// write, the hook among them, link nothing of it.
public enum ReadOnlyStore {
    public static func open(
        _ url: String?, postgres: EventStoreLocation.Opener, account: Account = .implicit
    ) throws(EventStoreError) -> any EventStore {
        guard let url, !url.isEmpty else {
            return try SQLiteEventStore(readingAt: try EventStoreLocation.defaultPath(), account: account)
        }
        if EventStoreLocation.isPostgresURL(url) { return try postgres(url, account) }
        return try SQLiteEventStore(readingAt: try sqlitePath(url), account: account)
    }

    /// The file an SQLite URL names.
    static func sqlitePath(_ url: String) throws(EventStoreError) -> String {
        if url.hasPrefix("sqlite://") { return String(url.dropFirst("sqlite://".count)) }
        if url.hasPrefix("sqlite:") { return String(url.dropFirst("sqlite:".count)) }
        let bytes = Array(url.utf8)
        let schemeMark = Array("://".utf8)
        if bytes.count >= schemeMark.count,
            (0...(bytes.count - schemeMark.count)).contains(where: { Array(bytes[$0..<($0 + schemeMark.count)]) == schemeMark })
        {
            throw EventStoreError(.unsupportedURL, "unknown store URL \(URLText.withoutCredentials(url)); use sqlite:PATH or postgres://…")
        }
        return url
    }
}
