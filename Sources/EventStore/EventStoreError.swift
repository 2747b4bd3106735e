/// The one error the store throws: the environment failed (file, disk, database, network).
public struct EventStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        case cannotOpen = "cannot-open"
        case busy
        case diskFull = "disk-full"
        case readOnly = "read-only"
        case corrupt
        case database
        case unsupportedURL = "unsupported-url"
        case schemaTooNew = "schema-too-new"
        /// A stored row has a value missing, of the wrong type, or a word this build does not
        /// know (a category, a status, a history change).
        case invalidRow = "invalid-row"
        /// A database server dropped the connection and a reconnection failed too; a later
        /// attempt may succeed (a restart, a failover).
        case connectionLost = "connection-lost"
        /// No `--store` and no home directory to keep the default store in: a setting is
        /// missing, not a failure that goes away by itself.
        case noDefaultLocation = "no-default-location"
        /// The directory a new store would go in does not exist: a mistyped path, not a place
        /// to start an empty store (``StoreCreation``).
        case missingDirectory = "missing-directory"
        /// A store to read or change does not exist (``StoreCreation/never``).
        case notFound = "not-found"
        /// A store's `-wal` or `-shm` file cannot be written though the store can (its mode was
        /// changed apart from the store's).
        case sideFile = "side-file"
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.kind == rhs.kind }
}
