import Glibc

/// Parses a `--store` URL and opens the store it names.
///
/// - `sqlite:PATH` or a plain path: the embedded SQLite store;
/// - nothing: `$XDG_DATA_HOME/reservoir/events.sqlite3` (default `~/.local/share`).
public enum EventStoreLocation {
    public static func open(_ url: String?) throws(EventStoreError) -> any EventStore {
        let path: String
        if let url, !url.isEmpty {
            if url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") {
                throw EventStoreError(.unsupportedURL, "this build has no PostgreSQL store yet; use sqlite:PATH")
            }
            if url.hasPrefix("sqlite://") {
                path = String(url.dropFirst("sqlite://".count))
            } else if url.hasPrefix("sqlite:") {
                path = String(url.dropFirst("sqlite:".count))
            } else if url.contains("://") {
                throw EventStoreError(.unsupportedURL, "unknown store URL \(url); use sqlite:PATH")
            } else {
                path = url
            }
        } else {
            path = defaultPath()
        }
        return try SQLiteEventStore(path: path)
    }

    /// `$XDG_DATA_HOME/reservoir/events.sqlite3`, per the XDG Base Directory specification.
    public static func defaultPath() -> String {
        if let xdg = getenv("XDG_DATA_HOME").map({ String(cString: $0) }), xdg.hasPrefix("/") {
            return xdg + "/reservoir/events.sqlite3"
        }
        let home = getenv("HOME").map { String(cString: $0) } ?? "."
        return home + "/.local/share/reservoir/events.sqlite3"
    }
}
