import Synchronization
import TimeZones

/// Where the reader gets a zone's rules: from the system's zone files, each read once per
/// process and only when a wall-clock time with evidence for that zone asks for it, so a
/// message whose times carry offsets (or have no evidence) reads no zone file.
struct TimeZoneBook: Sendable {
    /// The rules of a zone name, nil when the system has none by that name.
    let rules: @Sendable (String) -> TimeZoneRules?

    /// The system's zone directory (`$TZDIR`, else `/usr/share/zoneinfo`), cached.
    static let system = TimeZoneBook { SystemZones.rules($0) }
}

/// The zones this process has read, by name (a name the system lacks is remembered too).
private enum SystemZones {
    /// Names past this many are read again each time rather than kept: a bound on what
    /// hostile mail naming many zones can make the process hold.
    static let maximumCached = 64

    static let cache = Mutex<[String: TimeZoneRules?]>([:])

    static func rules(_ name: String) -> TimeZoneRules? {
        if let known = cache.withLock({ $0[name] }) { return known }
        let rules = try? TimeZoneRules.load(zone: name)
        cache.withLock { cached in
            if cached.count < maximumCached { cached[name] = .some(rules) }
        }
        return rules
    }
}
