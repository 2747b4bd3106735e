/// RFC 5545 §3.1: a long content line is folded by inserting CRLF and one white-space
/// character (space or tab); unfolding removes both. The reader is lenient: LF alone ends a
/// line too, and a CR before LF is dropped.
struct UnfoldedLine {
    /// The line's bytes with every fold removed.
    var bytes: [UInt8]
    /// The physical line (1-based) the content line starts on.
    var number: Int
    /// Whether the line was cut at ``ICalendarLimits/maximumLineBytes``.
    var truncated: Bool
}

enum LineUnfolder {
    /// The content lines of `bytes` in order, at most ``ICalendarLimits/maximumLines`` of
    /// them (`limitHit` says whether more followed). Empty lines are dropped.
    static func lines(_ bytes: ArraySlice<UInt8>) -> (lines: [UnfoldedLine], limitHit: Bool) {
        var result: [UnfoldedLine] = []
        var current: UnfoldedLine?
        var physical = 0
        var index = bytes.startIndex
        while index < bytes.endIndex {
            physical += 1
            // One physical line: up to LF, without a trailing CR.
            var end = bytes[index...].firstIndex(of: 0x0A) ?? bytes.endIndex
            let next = end < bytes.endIndex ? end + 1 : end
            if end > index, bytes[end - 1] == 0x0D { end -= 1 }
            let line = bytes[index..<end]
            index = next
            if let first = line.first, first == 0x20 || first == 0x09, current != nil {
                // RFC 5545 §3.1: a continuation; its one leading white-space character goes.
                append(line.dropFirst(), to: &current)
                continue
            }
            if let done = current, !done.bytes.isEmpty {
                guard result.count < ICalendarLimits.maximumLines else { return (result, true) }
                result.append(done)
            }
            current = UnfoldedLine(bytes: [], number: physical, truncated: false)
            append(line, to: &current)
        }
        if let done = current, !done.bytes.isEmpty {
            guard result.count < ICalendarLimits.maximumLines else { return (result, true) }
            result.append(done)
        }
        return (result, false)
    }

    private static func append(_ part: ArraySlice<UInt8>, to line: inout UnfoldedLine?) {
        guard var value = line else { return }
        line = nil  // keep the array uniquely referenced while appending
        let room = ICalendarLimits.maximumLineBytes - value.bytes.count
        if part.count > room {
            value.bytes += part.prefix(max(room, 0))
            value.truncated = true
        } else {
            value.bytes += part
        }
        line = value
    }
}
