import ICalendarReading
import ReservoirBase

/// Merges the copy of an event found at a calendar destination with the revision Reservoir is
/// about to write, so that an update changes what Reservoir owns and keeps what the person
/// added there (docs/CALENDARS.md, "What Reservoir owns in an event").
///
/// Reservoir owns, in the VEVENT of its UID without RECURRENCE-ID (the master):
/// - always: UID, DTSTAMP, SEQUENCE, STATUS, SUMMARY, DTSTART, DTEND, DURATION, CREATED,
///   LAST-MODIFIED, STRUCTURED-DATA and every `X-RESERVOIR-*` property: the booking's identity,
///   time and state; the copy's values go;
/// - when it writes one: LOCATION, GEO, URL, TRANSP; without one of its own the copy's is kept
///   (a place the person filled in);
/// - DESCRIPTION unless the person edited it: Reservoir writes the digest of its text as
///   `X-RESERVOIR-DESCRIPTION-DIGEST`; a copy whose DESCRIPTION (or its absence) no longer
///   matches that digest was edited, and keeps its own (as does one already holding
///   Reservoir's new text, so a merged object merged again is unchanged);
/// - its own VALARMs, marked `X-RESERVOIR-ALARM`.
///
/// Everything else in the copy is kept: the person's VALARMs, CATEGORIES lines that name more
/// than Reservoir's category (which Reservoir writes on a line of its own), COLOR, ATTACH,
/// ATTENDEE, ORGANIZER, RRULE, `X-` properties, the instances (VEVENTs with a RECURRENCE-ID),
/// and the VTIMEZONEs the kept lines name.
/// VCALENDAR's VERSION, PRODID and CALSCALE are Reservoir's; METHOD is dropped (RFC 4791 §4.1).
///
/// The merge never traps: the copy is read line by line without interpretation beyond names
/// and BEGIN/END, within the bounds below. A copy that cannot be read (too large, no calendar,
/// no VEVENT with the UID) is not merged: the result is Reservoir's text, and says why.
public enum CalendarObjectMerge {
    /// Why the copy was not merged.
    public enum Unreadable: String, Sendable, Equatable, CaseIterable {
        /// Larger than ``maximumBytes``, more than ``maximumLines`` or ``maximumComponents``, or
        /// nested deeper than ``maximumDepth``.
        case tooLarge = "too-large"
        /// No VCALENDAR at the top, or BEGIN/END that do not pair.
        case notACalendar = "not-a-calendar"
        /// No VEVENT with Reservoir's UID and no RECURRENCE-ID.
        case noEvent = "no-event"
    }

    public struct Result: Sendable, Equatable {
        /// What to write.
        public var text: String
        /// Nil when the copy was merged; the reason when `text` is Reservoir's object alone.
        public var unreadable: Unreadable?
        /// Whether the person's DESCRIPTION was kept instead of Reservoir's.
        public var keptPersonDescription: Bool
    }

    /// The copy's bytes read at most (as `CalDAVLimits.responseBodyBytes` and
    /// `VdirCollection.maximumObjectBytes`, which bound the copy before it gets here).
    public static let maximumBytes = 1 << 20
    /// Content lines of the copy after unfolding.
    public static let maximumLines = 20_000
    /// Components of the copy, at any depth.
    public static let maximumComponents = 1_000
    /// Nesting of the copy's components (VCALENDAR › VEVENT › VALARM is 3).
    public static let maximumDepth = 8

    /// The property that carries the digest of Reservoir's DESCRIPTION.
    public static let descriptionDigestProperty = "X-RESERVOIR-DESCRIPTION-DIGEST"
    /// The property that marks a VALARM Reservoir wrote (its value says which: `reminder`, `checkin`).
    public static let alarmMarkerProperty = "X-RESERVOIR-ALARM"

    /// Properties of the master VEVENT always taken from Reservoir's revision.
    public static let alwaysOwned: Set<String> = [
        "UID", "DTSTAMP", "SEQUENCE", "STATUS", "SUMMARY", "DTSTART", "DTEND", "DURATION", "CREATED", "LAST-MODIFIED", "STRUCTURED-DATA",
    ]
    /// Properties taken from Reservoir's revision when it has one, else kept from the copy.
    public static let ownedWhenWritten: Set<String> = ["LOCATION", "GEO", "URL", "TRANSP"]

    /// `server`, the copy found at the destination, merged with `ours`, Reservoir's new object
    /// for the same UID (``ICalendarWriter/object(_:)``).
    public static func merge(server: String, ours: String) -> Result {
        func fallback(_ reason: Unreadable) -> Result { Result(text: ours, unreadable: reason, keptPersonDescription: false) }
        guard case .success(let ourTop) = parse(ours), let ourCalendar = ourTop.first(where: { $0.name == "VCALENDAR" }),
            let ourEvent = ourCalendar.children.first(where: { $0.name == "VEVENT" }), let uid = ourEvent.value(of: "UID")
        else { return fallback(.noEvent) }
        let serverTop: [Node]
        switch parse(server) {
        case .success(let top): serverTop = top
        case .failure(let reason): return fallback(reason)
        }
        guard serverTop.count == 1, let serverCalendar = serverTop.first, serverCalendar.name == "VCALENDAR" else {
            return fallback(.notACalendar)
        }
        let events = serverCalendar.children.filter { $0.name == "VEVENT" && $0.value(of: "UID") == uid }
        guard let master = events.first(where: { $0.value(of: "RECURRENCE-ID") == nil }) else { return fallback(.noEvent) }

        var calendar = Node(name: "VCALENDAR")
        let ourCalendarNames = Set(ourCalendar.lines.map(\.name))
        calendar.lines = ourCalendar.lines + serverCalendar.lines.filter { !ourCalendarNames.contains($0.name) && $0.name != "METHOD" }
        let (event, keptDescription) = mergeEvent(master: master, ours: ourEvent)
        // RFC 4791 §4.1: one master and instances, each RECURRENCE-ID once; repeats are dropped.
        var instances: [Node] = []
        var seen: Set<String> = []
        for instance in events where instance.value(of: "RECURRENCE-ID") != nil {
            let id = instance.value(of: "RECURRENCE-ID") ?? ""
            if seen.insert(id).inserted { instances.append(instance) }
        }
        let ourZones = ourCalendar.children.filter { $0.name == "VTIMEZONE" }
        let ourZoneIDs = Set(ourZones.compactMap { $0.value(of: "TZID") })
        var named: Set<String> = []
        for node in [event] + instances { node.collectZoneIDs(into: &named) }
        var zones = ourZones
        for zone in serverCalendar.children where zone.name == "VTIMEZONE" {
            guard let id = zone.value(of: "TZID"), !ourZoneIDs.contains(id), named.contains(id) else { continue }
            if !zones.contains(where: { $0.value(of: "TZID") == id }) { zones.append(zone) }
        }
        calendar.children = zones + [event] + instances
        return Result(text: calendar.serialized(), unreadable: nil, keptPersonDescription: keptDescription)
    }

    private static func mergeEvent(master: Node, ours: Node) -> (Node, Bool) {
        let ourNames = Set(ours.lines.map(\.name))
        // The description: the person's when it no longer matches the digest Reservoir wrote with it.
        // A copy whose text is Reservoir's new text (line breaks aside) keeps its own line too,
        // so merging a merged object again changes nothing.
        var keepTheirs = false
        var edited = false
        if let written = master.value(of: descriptionDigestProperty) {
            let theirs = descriptionDigest(master.lines.first(where: { $0.name == "DESCRIPTION" }).map { unescape($0.value) } ?? "")
            let ourText = descriptionDigest(ours.lines.first(where: { $0.name == "DESCRIPTION" }).map { unescape($0.value) } ?? "")
            edited = theirs != written && theirs != ourText
            keepTheirs = edited || theirs == ourText
        }
        let theirDescription = master.lines.filter { $0.name == "DESCRIPTION" }
        // Reservoir's CATEGORIES line is written; a line of the copy is the person's unless all
        // its values are Reservoir's (the line Reservoir wrote before).
        let ourCategories = Set(ours.lines.filter { $0.name == "CATEGORIES" }.flatMap { categoryValues($0.value[...]) })
        // The person's DESCRIPTION stands where Reservoir's would, or with the kept lines when
        // Reservoir writes none.
        var lines: [Line] = []
        var placed = !keepTheirs
        for line in ours.lines {
            guard line.name == "DESCRIPTION", keepTheirs else {
                lines.append(line)
                continue
            }
            if !placed { lines += theirDescription }
            placed = true
        }
        for line in master.lines {
            if alwaysOwned.contains(line.name) || line.name.hasPrefix("X-RESERVOIR-") { continue }
            if ownedWhenWritten.contains(line.name), ourNames.contains(line.name) { continue }
            if line.name == "DESCRIPTION", placed { continue }
            if line.name == "CATEGORIES", categoryValues(line.value[...]).allSatisfy({ ourCategories.contains($0) }) { continue }
            lines.append(line)
        }
        // Copies written before alarms were marked: Reservoir's reminder repeated the summary,
        // its check-in alarm began "Check-in opens: ".
        let legacy = !master.lines.contains { $0.name.hasPrefix("X-RESERVOIR-") }
        let summary = master.value(of: "SUMMARY").map(unescape)
        let kept = master.children.filter { child in
            guard child.name == "VALARM" else { return true }
            if child.value(of: alarmMarkerProperty) != nil { return false }
            guard legacy, child.value(of: "ACTION")?.uppercased() == "DISPLAY", let text = child.value(of: "DESCRIPTION").map(unescape)
            else { return true }
            return !(text == summary || text.hasPrefix("Check-in opens: "))
        }
        var event = Node(name: "VEVENT")
        event.lines = lines
        event.children = ours.children + kept
        return (event, edited)
    }

    /// The digest Reservoir writes beside its DESCRIPTION: FNV-1a (64 bits) of the text with
    /// line breaks as LF and trailing white space removed, in hex. It tells an edit from
    /// Reservoir's own text; it protects nothing (whoever can write the copy can write both).
    public static func descriptionDigest(_ text: String) -> String {
        var normalized: [UInt8] = []
        var afterCR = false
        for byte in text.utf8 {
            if byte == 0x0A, afterCR {
                afterCR = false
                continue
            }
            afterCR = byte == 0x0D
            normalized.append(afterCR ? 0x0A : byte)
        }
        while let last = normalized.last, last == 0x0A || last == 0x20 || last == 0x09 { normalized.removeLast() }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in normalized {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// RFC 5545 §3.3.11 TEXT unescaped: `\n`/`\N` a line break, `\,` `\;` `\\` the character.
    static func unescape(_ value: some StringProtocol) -> String {
        var out = ""
        var escaped = false
        for character in value {
            if escaped {
                out.append(character == "n" || character == "N" ? "\n" : character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                out.append(character)
            }
        }
        if escaped { out.append("\\") }
        return out
    }

    /// The values of a CATEGORIES line (RFC 5545 §3.8.1.2: comma-separated TEXT), unescaped and
    /// upper-cased for comparison.
    static func categoryValues(_ value: Substring) -> [String] {
        var values: [String] = []
        var current = Substring()
        var start = value.startIndex
        var index = value.startIndex
        while index < value.endIndex {
            if value[index] == "\\" {
                index = value.index(after: index)
                if index < value.endIndex { index = value.index(after: index) }
                continue
            }
            if value[index] == "," {
                current = value[start..<index]
                values.append(unescape(current).uppercased())
                start = value.index(after: index)
            }
            index = value.index(after: index)
        }
        values.append(unescape(value[start...]).uppercased())
        return values.filter { !$0.isEmpty }
    }

    // MARK: - Reading without loss

    /// One unfolded content line as written, with what the package's content-line reader
    /// (`ICalendarReading.ContentLineParser`) read of it: its upper-cased name, its value as
    /// written and its parameters (quotes and RFC 6868's `^` escapes undone).
    struct Line {
        var text: String
        var name: String
        var value: String
        var parameters: [ICalendarParameter]

        /// RFC 5545 §3.1: name *(";" param) ":" value; nil for anything else.
        init?(_ line: UnfoldedLine) {
            guard case .property(let property, _) = ContentLineParser.parse(line) else { return nil }
            text = String(decoding: line.bytes, as: UTF8.self)
            name = property.name
            value = property.value
            parameters = property.parameters
        }

        /// The value of the TZID parameter (RFC 5545 §3.2.19), if any.
        var zoneID: String? { parameters.first { $0.name == "TZID" }?.values.first }
    }

    struct Node {
        var name: String
        var lines: [Line] = []
        var children: [Node] = []

        /// The first value of property `name`, trimmed of spaces.
        func value(of name: String) -> String? {
            lines.first { $0.name == name }.map { String($0.value.trimmingASCII()) }
        }

        func collectZoneIDs(into ids: inout Set<String>) {
            for line in lines { if let id = line.zoneID { ids.insert(id) } }
            for child in children { child.collectZoneIDs(into: &ids) }
        }

        func serialized() -> String {
            var text = ICalendarWriter.fold("BEGIN:\(name)")
            for line in lines { text += ICalendarWriter.fold(line.text) }
            for child in children { text += child.serialized() }
            return text + ICalendarWriter.fold("END:\(name)")
        }
    }

    enum Parsed {
        case success([Node])
        case failure(Unreadable)
    }

    /// The component tree of `text`: lines unfolded (RFC 5545 §3.1), a content line that does
    /// not parse or holds a control character other than HTAB (§3.1: not allowed in a value)
    /// dropped, BEGIN and END paired strictly.
    static func parse(_ text: String) -> Parsed {
        guard text.utf8.count <= maximumBytes else { return .failure(.tooLarge) }
        // RFC 5545 §3.1: lines end in CRLF (LF alone is taken too); a line starting with a space
        // or HTAB continues the one before, without that character.
        var bytes = Array(text.utf8)[...]
        // A byte order mark is not content.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        // Lines as written: none cut, as the reader cuts what it reads.
        let unfolded = LineUnfolder.lines(bytes, maximumLines: maximumLines, maximumLineBytes: nil)
        guard !unfolded.limitHit else { return .failure(.tooLarge) }
        var stack: [Node] = []
        var top: [Node] = []
        var components = 0
        for unfoldedLine in unfolded.lines {
            guard !unfoldedLine.bytes.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) else { continue }
            guard let line = Line(unfoldedLine) else { continue }
            switch line.name {
            case "BEGIN":
                components += 1
                guard components <= maximumComponents, stack.count < maximumDepth else { return .failure(.tooLarge) }
                stack.append(Node(name: line.value.trimmingASCII().uppercased()))
            case "END":
                guard let open = stack.popLast(), open.name == line.value.trimmingASCII().uppercased() else {
                    return .failure(.notACalendar)
                }
                if stack.isEmpty { top.append(open) } else { stack[stack.count - 1].children.append(open) }
            default:
                // Lines outside any component are not part of a calendar object.
                guard !stack.isEmpty else { return .failure(.notACalendar) }
                stack[stack.count - 1].lines.append(line)
            }
        }
        guard stack.isEmpty, !top.isEmpty else { return .failure(.notACalendar) }
        return .success(top)
    }
}
