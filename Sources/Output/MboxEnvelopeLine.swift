import MIME
import ReservoirBase

/// The `From ` line an mbox file or a local delivery agent puts before a message (RFC 4155
/// §2: `From ` sender, a space, and a timestamp in asctime form), recognised by its whole
/// form rather than by its first five bytes: `From : a@example.com` with white space before
/// the colon is an obsolete From field (RFC 5322 §4.5.1), not an envelope line.
enum MboxEnvelopeLine {
    /// Longest line taken for an envelope line (the sender is an address, the rest a date).
    static let maxLength = 1_024

    static let weekdays = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
    static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// Whether `line` (without its line break) is `From sender Www Mmm dd hh:mm[:ss] [zone] yyyy`.
    static func matches(_ line: some Collection<UInt8>) -> Bool {
        var bytes = Array(line.prefix(maxLength + 1))
        guard bytes.count <= maxLength else { return false }
        if bytes.last == 0x0D { bytes.removeLast() }
        // A bare CR inside would end the line early for a reader that ends lines at CR, and
        // what follows it would be a header field the envelope line hid.
        guard bytes.starts(with: "From ".utf8), !bytes.contains(0x0D) else { return false }
        let words = bytes[5...].split(whereSeparator: { $0 == 0x20 || $0 == 0x09 })
        // RFC 4155 §2: the sender is an addr-spec; a colon first makes the line a field.
        guard words.count >= 6, let sender = words.first, sender.first != UInt8(ascii: ":") else { return false }
        let date = Array(words.dropFirst())
        guard isName(date[0], in: weekdays), isName(date[1], in: months),
            (1...2).contains(date[2].count), date[2].allSatisfy(isDigit), isTime(date[3])
        else { return false }
        // The year comes after the time, a zone may stand between (`07:21:50 PST 2026`).
        return date[4...].contains { $0.count == 4 && $0.allSatisfy(isDigit) }
    }

    static func isName(_ word: ArraySlice<UInt8>, in names: [String]) -> Bool {
        word.count == 3 && names.contains { $0.utf8.elementsEqual(word.lazy.map(ASCII.lowercased)) }
    }

    /// hh:mm or hh:mm:ss.
    static func isTime(_ word: ArraySlice<UInt8>) -> Bool {
        let parts = word.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
        return (2...3).contains(parts.count) && parts.allSatisfy { $0.count == 2 && $0.allSatisfy(isDigit) }
    }

    static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
}
