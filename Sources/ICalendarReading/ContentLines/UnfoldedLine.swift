/// RFC 5545 §3.1: a long content line is folded by inserting CRLF and one white-space
/// character (space or tab); unfolding removes both. The reader is lenient: LF alone ends a
/// line too, and a CR before LF is dropped. The one unfolding of the package: the calendar
/// reader's, and the calendar merge's, which keeps every line as written (`ICalendar`).
package struct UnfoldedLine {
    /// The line's bytes with every fold removed.
    package var bytes: [UInt8]
    /// The physical line (1-based) the content line starts on.
    package var number: Int
    /// Whether the line was cut at the reader's line limit.
    package var truncated: Bool
}

package enum LineUnfolder {
    /// The content lines of `bytes` in order, at most `maximumLines` of them (`limitHit` says
    /// whether more followed), each cut at `maximumLineBytes` (nil: never). Empty lines are
    /// dropped; a continuation after one starts a line of its own, as the CRLF before it is no
    /// fold (§3.1).
    package static func lines(
        _ bytes: ArraySlice<UInt8>, maximumLines: Int = ICalendarLimits.maximumLines,
        maximumLineBytes: Int? = ICalendarLimits.maximumLineBytes
    ) -> (lines: [UnfoldedLine], limitHit: Bool) {
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
                append(line.dropFirst(), to: &current, limit: maximumLineBytes)
                continue
            }
            if let done = current, !done.bytes.isEmpty {
                guard result.count < maximumLines else { return (result, true) }
                result.append(done)
            }
            current = UnfoldedLine(bytes: [], number: physical, truncated: false)
            append(line, to: &current, limit: maximumLineBytes)
        }
        if let done = current, !done.bytes.isEmpty {
            guard result.count < maximumLines else { return (result, true) }
            result.append(done)
        }
        return (result, false)
    }

    private static func append(_ part: ArraySlice<UInt8>, to line: inout UnfoldedLine?, limit: Int?) {
        guard var value = line else { return }
        line = nil  // keep the array uniquely referenced while appending
        let room = (limit ?? Int.max) - value.bytes.count
        if part.count > room {
            value.bytes += part.prefix(max(room, 0))
            value.truncated = true
        } else {
            value.bytes += part
        }
        line = value
    }
}
