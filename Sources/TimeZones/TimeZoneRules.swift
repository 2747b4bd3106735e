internal import Glibc
internal import ReservoirBase

/// A zone's offsets from UTC over time: the transitions of its TZif file (RFC 8536 §3.2) and, after
/// the last of them, its footer's POSIX TZ rule (RFC 8536 §3.3).
public struct TimeZoneRules: Equatable, Sendable {
    /// The zone's name, such as `Europe/Berlin` (empty when parsed from bytes without one).
    public let name: String
    /// Unix times of the table's transitions, strictly ascending.
    let transitions: [Int64]
    /// For each transition, the index into `types` that applies from it on.
    let transitionTypes: [UInt8]
    /// The local time types; the first applies before the first transition (RFC 8536 §3.2).
    let types: [LocalTimeType]
    /// Local time after the last transition, when the file has a footer rule.
    public let footer: POSIXTimeZoneRule?

    init(name: String, block: TZifParser.Block, footer: POSIXTimeZoneRule?) {
        self.name = name
        transitions = block.transitions
        transitionTypes = block.transitionTypes
        types = block.types
        self.footer = footer
    }

    /// The default zone directory: `$TZDIR` when set and not empty, else `/usr/share/zoneinfo`.
    public static var defaultDirectory: String {
        guard let value = getenv("TZDIR") else { return directory(tzdir: nil) }
        return directory(tzdir: String(cString: value))
    }

    /// The zone directory for a value of `TZDIR`: the value unless absent or empty.
    static func directory(tzdir: String?) -> String {
        guard let tzdir, !tzdir.isEmpty else { return "/usr/share/zoneinfo" }
        return tzdir
    }

    /// Reads the zone `name` (such as `Asia/Kathmandu`) from `directory`. The name is checked
    /// (`ZoneName.isValid`) before the file system is touched; at most
    /// `TimeZoneLimits.maximumFileBytes` are read.
    public static func load(zone name: String, directory: String = defaultDirectory) throws(TimeZoneError) -> TimeZoneRules {
        guard ZoneName.isValid(name) else { throw TimeZoneError(.invalidZoneName, name) }
        let bytes: [UInt8]
        do {
            bytes = try FileBytes.read(directory + "/" + name, limit: TimeZoneLimits.maximumFileBytes + 1)
        } catch {
            throw TimeZoneError(.unreadable, "\(name): \(error.description)")
        }
        return try TZifParser.parse(bytes, name: name)
    }

    /// The local time type in effect at a Unix time.
    public func offset(atUTC instant: Int64) -> LocalTimeType {
        guard let last = transitions.last else { return footer?.type(atUTC: instant) ?? types[0] }
        // RFC 8536 §3.3: the footer gives local time from the last transition on.
        if instant >= last, let footer { return footer.type(atUTC: instant) }
        return tableType(atUTC: instant)
    }

    /// The table's type at `instant`: type 0 before the first transition, else the type of the
    /// last transition at or before it (binary search).
    private func tableType(atUTC instant: Int64) -> LocalTimeType {
        var low = 0
        var high = transitions.count
        while low < high {
            let middle = (low + high) / 2
            if transitions[middle] <= instant { low = middle + 1 } else { high = middle }
        }
        return low == 0 ? types[0] : types[Int(transitionTypes[low - 1])]
    }

    /// The changes of local time type with `from <= atUTC < to`, in order: the table's, then the
    /// footer rule's after the last of them, for at most `TimeZoneLimits.maximumRuleYears` years.
    /// Entries that change nothing are left out.
    public func transitions(from: Int64, to: Int64) -> [TimeZoneTransition] {
        guard from < to else { return [] }
        var result: [TimeZoneTransition] = []
        var low = 0
        var high = transitions.count
        while low < high {
            let middle = (low + high) / 2
            if transitions[middle] < from { low = middle + 1 } else { high = middle }
        }
        var index = low
        while index < transitions.count, transitions[index] < to {
            let before = index == 0 ? types[0] : types[Int(transitionTypes[index - 1])]
            let after = types[Int(transitionTypes[index])]
            if before != after { result.append(TimeZoneTransition(atUTC: transitions[index], before: before, after: after)) }
            index += 1
        }
        guard let footer, footer.daylight != nil else { return result }
        let ruleFrom = max(from, (transitions.last ?? Int64.min) + 1)
        guard ruleFrom < to else { return result }
        let bound = POSIXTimeZoneRule.instantBound
        let firstYear = LocalDateTime.civilYear(ofLocalSeconds: min(max(ruleFrom, -bound), bound)) - 1
        let lastYear = min(
            LocalDateTime.civilYear(ofLocalSeconds: min(max(to, -bound), bound)) + 1, firstYear + TimeZoneLimits.maximumRuleYears)
        var previous = offset(atUTC: ruleFrom - 1)
        for year in firstYear...lastYear {
            for change in footer.transitions(year: year) where change.atUTC >= ruleFrom && change.atUTC < to {
                if change.after != previous {
                    result.append(TimeZoneTransition(atUTC: change.atUTC, before: previous, after: change.after))
                    previous = change.after
                }
            }
        }
        return result
    }

    /// Where a wall-clock time falls (RFC 5545 §3.3.5): once, twice as clocks go back (the first
    /// occurrence is the one meant), or not at all as clocks go forward (read with the offset
    /// before the gap, which puts it the gap's length later).
    public func resolve(local: LocalDateTime) -> LocalTimeResolution {
        let wall = local.localSeconds
        // Offsets lie within ±26 hours (RFC 8536 §3.2), so two days either side hold every candidate.
        let from = wall - 2 * 86_400
        let changes = transitions(from: from + 1, to: wall + 2 * 86_400)
        var segments: [(start: Int64, type: LocalTimeType)] = [(from, offset(atUTC: from))]
        for change in changes { segments.append((change.atUTC, change.after)) }
        var found: [(utc: Int64, type: LocalTimeType)] = []
        for (i, segment) in segments.enumerated() {
            let utc = wall - Int64(segment.type.utcOffsetSeconds)
            let end = i + 1 < segments.count ? segments[i + 1].start : Int64.max
            if utc >= segment.start, utc < end { found.append((utc, segment.type)) }
        }
        if found.count == 1 { return .unique(utc: found[0].utc, type: found[0].type) }
        if found.count >= 2 {
            return .ambiguous(earlier: found[0].utc, earlierType: found[0].type, later: found[1].utc, laterType: found[1].type)
        }
        // In a gap: the change whose wall clock jumps over `wall`.
        for change in changes {
            let jumpFrom = change.atUTC + Int64(change.before.utcOffsetSeconds)
            let jumpTo = change.atUTC + Int64(change.after.utcOffsetSeconds)
            if jumpFrom <= wall, wall < jumpTo {
                let utc = wall - Int64(change.before.utcOffsetSeconds)
                let shifted = LocalDateTime(localSeconds: utc + Int64(change.after.utcOffsetSeconds))
                return .nonexistent(utc: utc, type: change.after, shiftedTo: shifted, gapSeconds: jumpTo - jumpFrom)
            }
        }
        // Unreachable for consistent data; keep the offset in effect a day before.
        let type = segments[0].type
        return .unique(utc: wall - Int64(type.utcOffsetSeconds), type: type)
    }
}
