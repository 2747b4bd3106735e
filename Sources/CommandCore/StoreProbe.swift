import EventStore
import ReservoirBase

/// What `GET /healthz` and the scrape-time gauges ask the store: it opens without creating
/// anything and answers a lookup of one event by its key (an index read), else why not.
package enum StoreProbe {
    /// Nil when the store at `location` answers, else the reason (its error, without the
    /// password of a PostgreSQL URL: the store's own messages never carry it).
    package static func problem(_ location: String?) -> String? {
        do {
            let store = try CommandRunner.openStore(at: location, use: .read, busyTimeoutMilliseconds: 1000, quiet: true)
            _ = try store.event(EventKey(owner: .unproven, container: "", item: ""))
            return nil
        } catch {
            return "store: \(error)"
        }
    }

    /// Calendar copies waiting over every account of the store (``AccountSummary``), or nil
    /// when the store does not answer.
    package static func copiesWaiting(_ location: String?) -> Int? {
        guard let store = try? CommandRunner.openStore(at: location, use: .read, busyTimeoutMilliseconds: 1000, quiet: true),
            let directory = store.directory, let accounts = try? directory.accounts()
        else { return nil }
        return accounts.reduce(0) { $0 + $1.pendingDeliveries }
    }
}
