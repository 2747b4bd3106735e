/// Whether a file looks like mail, from its first bytes: the test `scan` applies to a plain
/// directory before it reads every file in it as a message (docs/USAGE.md), so that a mistyped
/// path (`~/Documents`) is refused rather than read as a few hundred broken messages.
///
/// A file looks like a message when it starts with an mbox `From ` line (RFC 4155), or with a
/// header section (RFC 5322 §2.2, §3.6): its first line is a header field (a name of printable
/// ASCII other than `:`, then `:`, white space allowed before it as in §4.5), every line up to
/// the first empty line or the end of ``prefixBytes`` is a field or a folded continuation
/// (§2.2.3), and at least one field is one a message carries (``messageFields``: `From`,
/// `Date`, `Subject`, `Received`, …). Files named on the command line and Maildirs are not
/// tested: the person or the layout says they are mail.
public enum MessageShape {
    /// How much of a file is read to decide.
    public static let prefixBytes = 16 * 1024

    /// Field names (lowercased) that only mail has: RFC 5322 §3.6's originator, destination,
    /// identification, informational, resent and trace fields, MIME's (RFC 2045 §3), DKIM's and
    /// those mail systems add on delivery.
    static let messageFields: Set<String> = [
        "date", "from", "sender", "reply-to", "to", "cc", "bcc", "message-id", "in-reply-to", "references", "subject",
        "comments", "keywords", "resent-date", "resent-from", "resent-sender", "resent-to", "resent-cc", "resent-bcc",
        "resent-message-id", "return-path", "received", "mime-version", "content-type", "content-transfer-encoding",
        "dkim-signature", "arc-seal", "authentication-results", "delivered-to",
    ]

    /// Whether `prefix`, the first bytes of a file, starts as a message does.
    public static func looksLikeMessage(_ prefix: ArraySlice<UInt8>) -> Bool {
        if prefix.starts(with: "From ".utf8) { return true }
        var lines: [ArraySlice<UInt8>] = []
        var start = prefix.startIndex
        while let end = prefix[start...].firstIndex(of: UInt8(ascii: "\n")) {
            var line = prefix[start..<end]
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            if line.isEmpty { break }
            lines.append(line)
            start = end + 1
        }
        // A header section cut by the prefix: the last, partial line is not judged.
        guard let first = lines.first, fieldName(first) != nil else { return false }
        var known = false
        for line in lines {
            if line.first == UInt8(ascii: " ") || line.first == UInt8(ascii: "\t") { continue }
            guard let name = fieldName(line) else { return false }
            if messageFields.contains(name) { known = true }
        }
        return known
    }

    /// The lowercased name of a header field line, or nil when the line is not one.
    static func fieldName(_ line: ArraySlice<UInt8>) -> String? {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        var name = line[line.startIndex..<colon]
        // RFC 5322 §4.5 (obsolete syntax): white space between the name and the colon.
        while let last = name.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") { name = name.dropLast() }
        // RFC 5322 §3.6.8: ftext is %d33-57 / %d59-126.
        guard !name.isEmpty, name.allSatisfy({ $0 >= 33 && $0 <= 126 && $0 != UInt8(ascii: ":") }) else { return nil }
        return String(decoding: name.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }, as: UTF8.self)
    }
}
