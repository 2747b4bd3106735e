internal import CLibPQ
internal import CLibPQLoader
import EventStore
import Glibc

/// A `postgres://` or `postgresql://` URL checked by libpq's own parser (libpq §34.1.1.2,
/// Connection URIs), with the connection parameters reservoir adds.
struct PostgresURL {
    /// Seconds libpq waits for a server before giving up, unless the URL's `connect_timeout`
    /// or `PGCONNECT_TIMEOUT` says otherwise: a mail filter must not hang on a dead server.
    static let defaultConnectTimeoutSeconds = 5
    /// `application_name` shown in `pg_stat_activity`, unless the URL or `PGAPPNAME` sets one.
    static let applicationName = "reservoir"

    let url: String
    /// Host, port, database and user, never the password: safe for error messages.
    let description: String
    private let hasConnectTimeout: Bool

    init(_ url: String) throws(EventStoreError) {
        guard EventStoreLocation.isPostgresURL(url) else {
            throw EventStoreError(.unsupportedURL, "not a PostgreSQL URL (postgres://… or postgresql://…)")
        }
        // libpq is loaded on first use (see CLibPQLoader).
        guard reservoir_libpq_load() != 0 else {
            throw EventStoreError(.cannotOpen, String(cString: reservoir_libpq_error()) + "; install libpq5")
        }
        var errorMessage: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(url, &errorMessage) else {
            let reason = errorMessage.map { PostgresConnection.trimmed(String(cString: $0)) } ?? "out of memory"
            PQfreemem(errorMessage)
            throw EventStoreError(.unsupportedURL, "invalid PostgreSQL URL: \(reason)")
        }
        defer { PQconninfoFree(options) }
        var values: [String: String] = [:]
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val { values[String(cString: keyword)] = String(cString: value) }
            option += 1
        }
        self.url = url
        hasConnectTimeout = values["connect_timeout"] != nil || getenv("PGCONNECT_TIMEOUT") != nil
        let host = values["host"] ?? values["hostaddr"] ?? "the default socket"
        let port = values["port"].map { ":" + $0 } ?? ""
        let user = values["user"].map { $0 + "@" } ?? ""
        description = "\(user)\(host)\(port)/\(values["dbname"] ?? "")"
    }

    /// `PQconnectdbParams` keywords in order: defaults first so the URL overrides them, the URL
    /// expanded from `dbname`, then what reservoir requires (UTF-8, as Swift strings are).
    var connectionParameters: [(String, String)] {
        var parameters: [(String, String)] = [("fallback_application_name", Self.applicationName)]
        if !hasConnectTimeout { parameters.append(("connect_timeout", String(Self.defaultConnectTimeoutSeconds))) }
        parameters.append(("dbname", url))
        parameters.append(("client_encoding", "UTF8"))
        return parameters
    }
}
