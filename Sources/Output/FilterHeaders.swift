import MIME
public import Pipeline
public import Reservations
import Trust

/// What `reservoir filter` adds to a message: an RFC 8601 `Authentication-Results` field and
/// one `X-Reservation` summary field per reservation, at the top of the header.
///
/// The rest of the message goes out byte for byte, less the fields a sender could forge
/// (``ForgedFieldScanner``): `Authentication-Results` claiming our authserv-id (RFC 8601 §5),
/// every `X-Reservation` and every `X-Reservoir-Error`.
public enum FilterHeaders {
    /// RFC 5322 §2.1.1: lines SHOULD be no more than 78 characters.
    public static let foldColumn = 78
    public static let summaryFieldName = "X-Reservation"
    /// The field saying the filter could not work (an invalid configuration file); removed
    /// from incoming mail like the others (``ForgedFieldScanner``).
    public static let errorFieldName = "X-Reservoir-Error"
    /// Longest text of an `X-Reservoir-Error` field, in bytes after reduction to printable ASCII.
    public static let maxErrorTextBytes = 400

    /// `X-Reservoir-Error: text`, the text reduced to printable ASCII (anything else becomes
    /// `?`), cut at ``maxErrorTextBytes`` and folded.
    public static func errorField(_ text: String, lineEnding: String) -> String {
        var printable = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard printable.count < maxErrorTextBytes else {
                printable.append(contentsOf: "...".unicodeScalars)
                break
            }
            printable.append(scalar.value >= 0x20 && scalar.value < 0x7F ? scalar : "?")
        }
        return fold(errorFieldName, String(printable), lineEnding: lineEnding)
    }

    public static func rewrite(_ original: [UInt8], report: MessageReport, authservID: String) -> [UInt8] {
        let segments = plan(original, report: report, authservID: authservID)
        var out: [UInt8] = []
        out.reserveCapacity(segments.reduce(0) { $0 + $1.count })
        for segment in segments {
            switch segment {
            case .added(let bytes): out += bytes
            case .original(let range): out += original[range]
            }
        }
        return out
    }

    /// A piece of the rewritten message: bytes we add, or a range of the original.
    public enum Segment: Equatable, Sendable {
        case added([UInt8])
        case original(Range<Int>)

        public var count: Int {
            switch self {
            case .added(let bytes): bytes.count
            case .original(let range): range.count
            }
        }
    }

    /// `rewrite` as a list of pieces, so a filter can write the message without a second copy
    /// of it in memory.
    public static func plan(_ original: [UInt8], report: MessageReport, authservID: String) -> [Segment] {
        let forged = ForgedFieldScanner.find(in: original, authservID: authservID)
        let added = fields(report: report, authservID: authservID, lineEnding: detectLineEnding(original))
        return plan(length: original.count, forged: forged, added: Array(added.utf8))
    }

    /// A message of `length` bytes with the `forged` fields left out and `added` at their
    /// insertion point. Input with no header field at all is not a message (RFC 5322 §3.5 needs
    /// at least the origination fields): nothing is added to it.
    public static func plan(length: Int, forged: ForgedFields, added: [UInt8]) -> [Segment] {
        var segments: [Segment] = []
        var cursor = 0
        func keep(upTo end: Int) {
            if cursor < end { segments.append(.original(cursor..<end)) }
            cursor = max(cursor, end)
        }
        keep(upTo: min(forged.insertionPoint, length))
        if forged.hasHeaderField, !added.isEmpty { segments.append(.added(added)) }
        for removal in forged.removals where removal.upperBound <= length {
            keep(upTo: removal.lowerBound)
            cursor = max(cursor, removal.upperBound)
        }
        keep(upTo: length)
        return segments
    }

    /// The fields the filter adds for `report`: Authentication-Results, then one X-Reservation
    /// per reservation, the message's own first, then those of its forwarded messages
    /// (`(forwarded)` after each).
    public static func fields(report: MessageReport, authservID: String, lineEnding: String) -> String {
        var added = AuthenticationResults(report: report, authservID: authservID).field(lineEnding: lineEnding)
        for item in report.items {
            let verdict: Verdict = report.isTrusted(item) ? .trusted : report.waitsAsPending(item) ? .pending : .untrusted
            added += fold(summaryFieldName, summary(item.reservation, verdict: verdict), lineEnding: lineEnding)
        }
        for forwarded in report.forwarded {
            for item in forwarded.report.items {
                let text = summary(item.reservation, trusted: forwarded.report.isTrusted(item)) + " (forwarded)"
                added += fold(summaryFieldName, text, lineEnding: lineEnding)
            }
        }
        return added
    }

    /// What an `X-Reservation` field says of its reservation after the booking's words.
    public enum Verdict: Sendable {
        case trusted
        /// A genuine sender the person has not chosen yet: it waits for `reservoir allow`.
        case pending
        case untrusted
    }

    /// One line a Sieve script or a person can read: category, title, local start with its
    /// offset, status, and whether it is trusted.
    public static func summary(_ r: Reservation, trusted: Bool) -> String {
        summary(r, verdict: trusted ? .trusted : .untrusted)
    }

    /// ``summary(_:trusted:)``, with `(pending)` for a reservation that waits for the person's
    /// choice of its sender rather than `(untrusted)`.
    public static func summary(_ r: Reservation, verdict: Verdict) -> String {
        var parts = [r.category.displayName, r.title]
        if let start = r.start {
            let local = start.local.replacingFirst("T", with: " ")
            parts.append(start.isDateOnly ? String(local.prefix(10)) : String(local.prefix(16)))
            if !start.isDateOnly {
                parts.append(start.offsetSeconds.map(offsetText) ?? "floating")
            }
        }
        parts.append(r.status.rawValue)
        if !r.reservationID.isEmpty { parts.append("#" + r.reservationID) }
        switch verdict {
        case .trusted: break
        case .pending: parts.append("(pending)")
        case .untrusted: parts.append("(untrusted)")
        }
        return parts.joined(separator: " ")
    }

    static func offsetText(_ seconds: Int) -> String {
        let minutes = abs(seconds) / 60
        let h = minutes / 60
        let m = minutes % 60
        return (seconds < 0 ? "-" : "+") + (h < 10 ? "0" : "") + String(h) + ":" + (m < 10 ? "0" : "") + String(m)
    }

    /// CRLF when the first line ends with one, LF otherwise (Maildir files use LF, and so do
    /// procmail and Dovecot when they hand a message to a filter).
    public static func detectLineEnding(_ bytes: [UInt8]) -> String {
        guard let lf = bytes.firstIndex(of: 0x0A) else { return "\n" }
        return lf > 0 && bytes[lf - 1] == 0x0D ? "\r\n" : "\n"
    }

    /// `Name: value`, folded at white space before ``foldColumn``; non-ASCII values as RFC 2047
    /// encoded words (Q encoding, UTF-8), each at most 75 characters (RFC 2047 §2).
    static func fold(_ name: String, _ value: String, lineEnding: String) -> String {
        var out = name + ":"
        var column = out.count
        for word in EncodedWordWriter.words(value) {
            if column + 1 + word.count > foldColumn {
                out += lineEnding
                column = 0
            }
            out += " " + word
            column += 1 + word.count
        }
        return out + lineEnding
    }
}

extension String {
    func replacingFirst(_ target: Character, with replacement: String) -> String {
        guard let index = firstIndex(of: target) else { return self }
        return self[..<index] + replacement + self[self.index(after: index)...]
    }
}
