import Glibc
import ReservoirBase

/// Parses a `--store` URL and opens the store it names.
///
/// - `sqlite:PATH` or a plain path: the embedded SQLite store;
/// - `postgres://…` or `postgresql://…`: a PostgreSQL store, opened by the `postgres` opener the
///   caller passes (the `EventStorePostgres` target's `PostgresEventStore.init(url:)`), so this
///   target does not link libpq;
/// - nothing: `$XDG_DATA_HOME/reservoir/events.sqlite3` (default `~/.local/share`).
public enum EventStoreLocation {
    /// Opens a store from a URL the caller has recognised for an account, e.g.
    /// `PostgresEventStore.init(url:account:)`.
    public typealias Opener = (String, Account) throws(EventStoreError) -> any EventStore

    /// URL schemes served by the PostgreSQL store (libpq's own URI forms).
    public static let postgresSchemes = ["postgres://", "postgresql://"]

    /// Whether `url` names a PostgreSQL store.
    public static func isPostgresURL(_ url: String) -> Bool {
        postgresSchemes.contains { url.hasPrefix($0) }
    }

    /// Opens the store `url` names; without a `postgres` opener a PostgreSQL URL is refused
    /// with `.unsupportedURL`.
    /// With `readOnlyFallback`, an SQLite store that cannot be opened for writing because its
    /// file or file system is read-only is opened for reading instead (commands that only read),
    /// and a store that does not exist is `.notFound`, whatever `creation` says: reading a
    /// mistyped path must not look like reading an empty store.
    /// `creation`: whether a missing SQLite store is made, and its directories (``StoreCreation``).
    /// `busyTimeoutMilliseconds`: how long an SQLite store waits for another writer. `account`:
    /// whose bookings the store holds (the implicit account of a single-user store by default).
    public static func open(
        _ url: String?, postgres: Opener? = nil, readOnlyFallback: Bool = false,
        busyTimeoutMilliseconds: Int32 = SQLiteEventStore.busyTimeoutMilliseconds, creation: StoreCreation = .withDirectories,
        account: Account = .implicit
    ) throws(EventStoreError) -> any EventStore {
        if let url, isPostgresURL(url) {
            guard let postgres else {
                throw EventStoreError(.unsupportedURL, "this build has no PostgreSQL store; use sqlite:PATH")
            }
            return try postgres(url, account)
        }
        let path = try sqlitePath(url)
        do {
            return try SQLiteEventStore(
                path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds, creation: readOnlyFallback ? .never : creation,
                account: account)
        } catch  where readOnlyFallback && error.kind == .readOnly {
            // The first error says more than a failed fallback would.
            guard let store = try? SQLiteEventStore(readingAt: path, account: account) else { throw error }
            return store
        }
    }

    /// The file of an SQLite store URL (`sqlite:PATH`, `sqlite://PATH`, a bare path), or the
    /// default store's without one.
    public static func sqlitePath(_ url: String?) throws(EventStoreError) -> String {
        let path: String
        if let url, !url.isEmpty {
            if url.hasPrefix("sqlite://") {
                path = String(url.dropFirst("sqlite://".count))
            } else if url.hasPrefix("sqlite:") {
                path = String(url.dropFirst("sqlite:".count))
            } else if CharacterSearch.contains(url, "://") {
                throw EventStoreError(
                    .unsupportedURL, "unknown store URL \(URLText.withoutCredentials(url)); use sqlite:PATH or postgres://…")
            } else {
                path = url
            }
        } else {
            path = try defaultPath()
        }
        return path
    }

    /// `$XDG_DATA_HOME/reservoir/events.sqlite3`, per the XDG Base Directory specification,
    /// else `$HOME/.local/share/reservoir/events.sqlite3`. Without an absolute `XDG_DATA_HOME`
    /// or `HOME` (a Postfix `pipe`, cron or a systemd unit may start reservoir without them), or
    /// with `HOME=/`, there is no default: a store is never made in whatever directory the
    /// process happens to start in, nor at the root.
    public static func defaultPath() throws(EventStoreError) -> String {
        if let xdg = getenv("XDG_DATA_HOME").map({ String(cString: $0) }), xdg.hasPrefix("/") {
            return xdg + "/reservoir/events.sqlite3"
        }
        guard let home = getenv("HOME").map({ String(cString: $0) }), home.hasPrefix("/"), home.contains(where: { $0 != "/" })
        else {
            throw EventStoreError(
                .noDefaultLocation,
                "no default store without a home directory (HOME is unset, relative or /): give --store sqlite:PATH")
        }
        return home + "/.local/share/reservoir/events.sqlite3"
    }
}

/// Whether opening an SQLite store may make it. A store is made where it is first recorded
/// into; a mistyped path must not become a new, empty store that every later read finds empty.
public enum StoreCreation: Sendable, Equatable {
    /// The store must exist: `.notFound` otherwise (commands that read, forget or sync).
    case never
    /// A new store is made when its directory exists: `.missingDirectory` otherwise (a path
    /// the user named).
    case inExistingDirectory
    /// A new store is made, and its missing directories (mode 0700): the default location
    /// under `$XDG_DATA_HOME`, or a path given with `--create`.
    case withDirectories
}
