/// The mbox format (RFC 4155): messages, each after a `From ` separator line.
enum Mbox {
    /// Whether the bytes begin with a `From ` separator line.
    static func isMbox(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 5 && bytes[0..<5].elementsEqual("From ".utf8)
    }

    /// Splits at `From ` lines that start the file or follow an empty line, drops the separator
    /// line and the empty line before the next one, and unescapes `>From ` (mboxrd: one `>` is
    /// removed from `>+From `). LF and CRLF files alike.
    static func split(_ bytes: [UInt8]) -> [[UInt8]] {
        var messages: [[UInt8]] = []
        var starts: [(separator: Int, content: Int)] = []
        bytes.withUnsafeBufferPointer { p in
            let n = p.count
            var lineStart = 0
            var previousLineEmpty = true
            while lineStart < n {
                var lineEnd = lineStart
                while lineEnd < n, p[lineEnd] != 0x0A { lineEnd += 1 }
                let next = lineEnd < n ? lineEnd + 1 : n
                let isFrom =
                    lineEnd - lineStart >= 5 && p[lineStart] == UInt8(ascii: "F") && p[lineStart + 1] == UInt8(ascii: "r")
                    && p[lineStart + 2] == UInt8(ascii: "o") && p[lineStart + 3] == UInt8(ascii: "m") && p[lineStart + 4] == 0x20
                if isFrom, previousLineEmpty { starts.append((lineStart, next)) }
                let length = lineEnd - lineStart
                previousLineEmpty = length == 0 || (length == 1 && p[lineStart] == 0x0D)
                lineStart = next
            }
        }
        for (index, start) in starts.enumerated() {
            var end = index + 1 < starts.count ? starts[index + 1].separator : bytes.count
            // The empty line before the next separator (or at the end of the file) is mbox's.
            if end > start.content, bytes[end - 1] == 0x0A {
                var lineBreakStart = end - 1
                if lineBreakStart > start.content, bytes[lineBreakStart - 1] == 0x0D { lineBreakStart -= 1 }
                if lineBreakStart > start.content, bytes[lineBreakStart - 1] == 0x0A { end = lineBreakStart }
            }
            messages.append(unescape(bytes, start.content..<max(start.content, end)))
        }
        return messages
    }

    /// Removes one ">" from lines matching `>+From ` (mboxrd; covers mboxo's `>From `).
    static func unescape(_ bytes: [UInt8], _ range: Range<Int>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(range.count)
        var lineStart = range.lowerBound
        while lineStart < range.upperBound {
            var lineEnd = lineStart
            while lineEnd < range.upperBound, bytes[lineEnd] != 0x0A { lineEnd += 1 }
            let next = lineEnd < range.upperBound ? lineEnd + 1 : range.upperBound
            var k = lineStart
            while k < lineEnd, bytes[k] == UInt8(ascii: ">") { k += 1 }
            if k > lineStart, lineEnd - k >= 5, bytes[k..<(k + 5)].elementsEqual("From ".utf8) {
                out.append(contentsOf: bytes[(lineStart + 1)..<next])
            } else {
                out.append(contentsOf: bytes[lineStart..<next])
            }
            lineStart = next
        }
        return out
    }
}
